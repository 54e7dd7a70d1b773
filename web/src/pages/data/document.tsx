// One document: a form of the collection's fields in schema mode, JSON in flexible mode. Saving
// sends only what is edited; a new document starts from the fields' defaults. What a field shows
// is its current state: its own problem (a required field empty, a number or JSON that does not
// parse) once a save was tried, or the API's message about it until it is changed. A document in
// the trash is read-only, with Restore.
import { useEffect, useState, type FormEvent } from 'react';
import { flushSync } from 'react-dom';
import { useQueryClient } from '@tanstack/react-query';
import { api, ApiFailure, call, type FieldDef } from '../../api';
import { navigate } from '../../router';
import { ErrorBox, FieldError, Link, Notice, Progress } from '../../components/ui';
import { useAction } from '../../hooks';
import type { ProjectPageProps } from '../project-shell';
import { DataQueryProvider } from '../../data/query-client';
import { documentsKey, useCollectionDef, useDocument } from '../../data/documents';
import { OwnerPicker } from './owner-picker';
import { RefPicker } from './ref-picker';
import { takeDraft, useDraftSource } from '../../drafts';
import { useSession } from '../../session';
import './grid.css';

const SYSTEM = new Set(['_id', 'isDeleted', 'deletedAt', 'createdAt', 'updatedAt']);

/** The text an input shows for a stored value. */
function toText(field: FieldDef, value: unknown): string {
  if (value === undefined || value === null) return '';
  if (field.type === 'Object' || field.type === 'Array') return JSON.stringify(value, null, 2);
  return String(value);
}

/** The typed value of an input, or an Error in words. Empty means "leave out" (or null on edit). */
function fromText(field: FieldDef, text: string): unknown {
  if (text === '') {
    if (field.required) throw new Error('Required.');
    return undefined;
  }
  switch (field.type) {
    case 'Number': {
      const n = Number(text);
      if (!Number.isFinite(n)) throw new Error('Enter a number.');
      return n;
    }
    case 'Boolean':
      return text === 'true';
    case 'Object':
    case 'Array':
      try {
        return JSON.parse(text);
      } catch {
        throw new Error('This is not valid JSON: check the brackets, quotes and commas.');
      }
    default:
      return text;
  }
}

export function DocumentPage(props: ProjectPageProps & { name: string; id?: string }) {
  return (
    <DataQueryProvider>
      <DocumentForm {...props} />
    </DataQueryProvider>
  );
}

function DocumentForm({ project, name, id }: ProjectPageProps & { name: string; id?: string }) {
  const projectId = project.id;
  const path = { projectId, collectionName: name };
  const def = useCollectionDef(projectId, name);
  const doc = useDocument(projectId, name, id);
  const client = useQueryClient();
  /** After a write: this document and the collection's pages are asked for again. */
  const refresh = () => client.invalidateQueries({ queryKey: documentsKey(projectId, name) });
  const [values, setValues] = useState<Record<string, string>>({});
  const [json, setJson] = useState('{\n  \n}');
  /** A save was tried: from then on each field shows its own problem as it is now. */
  const [tried, setTried] = useState(false);
  /** The API's messages by field, each kept until that field changes. */
  const [serverErrors, setServerErrors] = useState<Record<string, string>>({});
  const [saved, setSaved] = useState('');
  const { busy, error, run } = useAction();
  const base = `/projects/${projectId}/data/${encodeURIComponent(name)}`;
  // What is typed survives an ended session: kept as the log-in page comes, given back after it.
  const developerId = useSession().developer?.id;
  const draftKey = `document:${projectId}:${name}:${id ?? 'new'}`;
  useDraftSource(draftKey, { values, json });

  useEffect(() => {
    if (!def.data) return;
    const current = doc.data;
    // A new document starts from the fields' defaults, which the API would apply anyway.
    setValues(
      Object.fromEntries(
        def.data.fields.map((f) => [f.name, toText(f, current ? current[f.name] : f.default)]),
      ),
    );
    const editable = Object.fromEntries(Object.entries(current ?? {}).filter(([k]) => !SYSTEM.has(k)));
    setJson(JSON.stringify(editable, null, 2));
    const draft = takeDraft<{ values: Record<string, string>; json: string }>(developerId, draftKey);
    if (draft) {
      setValues((loaded) => ({ ...loaded, ...draft.values }));
      setJson(draft.json);
      setSaved('Restored what you were typing when your session ended.');
    }
  }, [def.data, doc.data]);

  if (def.error || doc.error) return <ErrorBox error={def.error ?? doc.error} />;
  if (!def.data || (id && !doc.data)) return <Progress label="Loading the document…" />;
  const collection = def.data;
  const schemaMode = collection.mode === 'schema';
  const current = doc.data;

  /** The body to send and the problems of the form as it is now (none: it may be sent). */
  const check = (): { out: Record<string, unknown>; problems: Record<string, string> } => {
    if (!schemaMode) {
      try {
        const parsed = JSON.parse(json) as unknown;
        if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error();
        return { out: parsed as Record<string, unknown>, problems: {} };
      } catch {
        return {
          out: {},
          problems: { json: 'This is not a JSON object. Check the brackets, quotes and commas.' },
        };
      }
    }
    const out: Record<string, unknown> = {};
    const problems: Record<string, string> = {};
    for (const field of collection.fields) {
      const text = values[field.name] ?? '';
      if (current && text === toText(field, current[field.name])) continue;
      try {
        const value = fromText(field, text);
        if (value !== undefined) out[field.name] = value;
        else if (current && current[field.name] !== undefined) out[field.name] = null;
      } catch (err) {
        problems[field.name] = (err as Error).message;
      }
    }
    return { out, problems };
  };
  const local = tried ? check().problems : {};
  const shownFields = schemaMode ? collection.fields.map((f) => f.name) : ['json'];
  const change = (field: string) => {
    if (!(field in serverErrors)) return;
    const { [field]: _gone, ...rest } = serverErrors;
    setServerErrors(rest);
  };

  /** The input of the form's first field with a problem gets the focus, as a reader expects. */
  const focusFirst = (fields: string[]) => {
    const first = shownFields.find((f) => fields.includes(f));
    if (first)
      document.getElementById(first === 'json' && !schemaMode ? 'doc-json' : `doc-${first}`)?.focus();
  };
  const save = (e: FormEvent) => {
    e.preventDefault();
    setSaved('');
    const { out: payload, problems } = check();
    // Rendered now, so that the focused input is already described by its message.
    flushSync(() => setTried(true));
    if (Object.keys(problems).length) return focusFirst(Object.keys(problems));
    setServerErrors({});
    void run(async () => {
      try {
        await send(payload);
      } catch (err) {
        // A refusal naming the form's fields goes under them, and only there.
        const placed = (err instanceof ApiFailure ? err.details : [])
          .map((d) => [schemaMode ? d.path.split('.')[0]! : 'json', d.message] as const)
          .filter(([field]) => shownFields.includes(field));
        if (!placed.length) throw err;
        flushSync(() => setServerErrors(Object.fromEntries(placed.reverse())));
        focusFirst(placed.map(([field]) => field));
      }
    });
  };
  const send = async (payload: Record<string, unknown>) => {
    {
      if (current) {
        await call(
          api.PATCH('/api/projects/{projectId}/data/{collectionName}/{id}', {
            params: { path: { ...path, id: id! } },
            body: payload,
          }),
        );
        setSaved('Saved.');
        await refresh();
      } else {
        const created = await call(
          api.POST('/api/projects/{projectId}/data/{collectionName}', { params: { path }, body: payload }),
        );
        navigate(`${base}/${String(created.data._id)}`);
      }
    }
  };
  const lifecycle = (kind: 'trash' | 'restore') =>
    run(async () => {
      const params = { params: { path: { ...path, id: id! } } };
      if (kind === 'trash')
        await call(api.DELETE('/api/projects/{projectId}/data/{collectionName}/{id}', params));
      else await call(api.POST('/api/projects/{projectId}/data/{collectionName}/{id}/restore', params));
      setSaved(kind === 'trash' ? 'Moved to the trash.' : 'Restored from the trash.');
      await refresh();
    });

  const message = (field: string) => local[field] ?? serverErrors[field];
  const readOnly = !!current?.isDeleted;
  // Under private RLS only the owner (an end user) reads a document: the member picks one.
  const privateOwner =
    collection.rls.enabled && collection.rls.mode === 'private' ? collection.rls.ownerField : '';
  const jsonObject = (): Record<string, unknown> => {
    try {
      const parsed = JSON.parse(json) as unknown;
      return typeof parsed === 'object' && parsed && !Array.isArray(parsed)
        ? (parsed as Record<string, unknown>)
        : {};
    } catch {
      return {};
    }
  };
  const ownerValue = privateOwner
    ? schemaMode
      ? (values[privateOwner] ?? '')
      : String(jsonObject()[privateOwner] ?? '')
    : '';
  return (
    <>
      <p>
        <Link to={base}>← {name}</Link>
      </p>
      <h1 className="doc-title">{current ? `Document ${String(current._id)}` : `New document in ${name}`}</h1>
      {current?.isDeleted && (
        <p className="warning">
          This document is in the trash since {new Date(String(current.deletedAt)).toLocaleString()}. It is
          read-only: restore it to edit it.
        </p>
      )}
      <form onSubmit={save} noValidate className="doc-form">
        {privateOwner && !readOnly && (
          <OwnerPicker
            projectId={projectId}
            ownerField={privateOwner}
            value={ownerValue}
            onChange={(userId) =>
              schemaMode
                ? setValues({ ...values, [privateOwner]: userId })
                : setJson(JSON.stringify({ ...jsonObject(), [privateOwner]: userId }, null, 2))
            }
          />
        )}
        {/* A document in the trash cannot be changed: its controls are disabled, Restore is offered. */}
        <fieldset className="plain" disabled={readOnly}>
          {schemaMode ? (
            collection.fields.map((f) => {
              const inputId = `doc-${f.name}`;
              const err = message(f.name);
              const common = {
                id: inputId,
                'aria-invalid': err ? true : undefined,
                'aria-describedby': err ? `${inputId}-err` : undefined,
                'aria-required': f.required ? true : undefined,
                value: values[f.name] ?? '',
              };
              const onText = (v: string) => {
                setValues({ ...values, [f.name]: v });
                change(f.name);
              };
              return (
                <div className="field" key={f.name}>
                  <label htmlFor={inputId}>
                    {f.name}{' '}
                    <span className="muted">
                      ({f.type}
                      {f.required ? ', required' : ''}
                      {f.type === 'Ref' && f.ref ? ` → ${f.ref}` : ''})
                    </span>
                  </label>
                  {f.type === 'Boolean' ? (
                    <select {...common} onChange={(e) => onText(e.target.value)}>
                      <option value="">(not set)</option>
                      <option value="true">true</option>
                      <option value="false">false</option>
                    </select>
                  ) : f.type === 'Ref' && f.ref ? (
                    // Chosen among the target's documents: an id that names none cannot be set.
                    <RefPicker
                      id={inputId}
                      projectId={projectId}
                      target={f.ref}
                      value={values[f.name] || null}
                      label={f.name}
                      required={f.required}
                      errorId={err ? `${inputId}-err` : undefined}
                      onChange={(ref) => onText(ref ?? '')}
                    />
                  ) : f.type === 'Object' || f.type === 'Array' ? (
                    <textarea
                      {...common}
                      rows={4}
                      className="mono"
                      onChange={(e) => onText(e.target.value)}
                    />
                  ) : (
                    <input
                      {...common}
                      type={f.type === 'Number' ? 'number' : 'text'}
                      step="any"
                      placeholder={f.type === 'Date' ? '2026-01-31T12:00:00Z' : undefined}
                      onChange={(e) => onText(e.target.value)}
                    />
                  )}
                  <FieldError message={err} id={`${inputId}-err`} />
                </div>
              );
            })
          ) : (
            <div className="field">
              <label htmlFor="doc-json">Document (JSON)</label>
              <textarea
                id="doc-json"
                className="mono"
                rows={14}
                value={json}
                onChange={(e) => {
                  setJson(e.target.value);
                  change('json');
                }}
                aria-invalid={message('json') ? true : undefined}
                aria-describedby={message('json') ? 'doc-json-err doc-json-hint' : 'doc-json-hint'}
              />
              <small className="hint" id="doc-json-hint">
                Saving sets the fields given here; a field left out keeps its value (set it to null to clear
                it).
              </small>
              <FieldError message={message('json')} id="doc-json-err" />
            </div>
          )}
        </fieldset>
        <ErrorBox error={error} />
        {saved && <Notice>{saved}</Notice>}
        <div className="row">
          {!readOnly && (
            <button type="submit" disabled={busy}>
              {busy ? 'Saving…' : current ? 'Save' : 'Add document'}
            </button>
          )}
          {current && !current.isDeleted && (
            <button type="button" className="danger" onClick={() => lifecycle('trash')} disabled={busy}>
              Move to trash
            </button>
          )}
          {current?.isDeleted && (
            <button type="button" onClick={() => lifecycle('restore')} disabled={busy}>
              Restore
            </button>
          )}
        </div>
      </form>
      {current && (
        <details>
          <summary>Raw JSON</summary>
          <pre className="mono">{JSON.stringify(current, null, 2)}</pre>
        </details>
      )}
    </>
  );
}
