// Create or edit a collection: name, mode, fields (with sub-fields to three levels, protected and
// private flags on users fields) and RLS. The body is checked with the API's schema before it is
// sent, and the API checks again; a message appears next to the field it names, or above the form.
import { useEffect, useState, type FormEvent } from 'react';
import { api, ApiFailure, call, type Collection } from '../api';
import { navigate } from '../router';
import { FieldEditor, newField, type DraftField } from '../components/field-editor';
import { ErrorBox, Field, FieldError, Notice, Progress } from '../components/ui';
import { Confirm } from '../components/confirm';
import { problemsOf } from '../forms/validate';
import {
  definitionProblems,
  mergeProblems,
  ownerChoices as ownerChoicesOf,
} from '../forms/definition-problems';
import { queryClient } from '../query';
import { collectionsKey, useCollections } from '../data/collections';
import { useAction } from '../hooks';
import { fromDraft, toDraft } from '../schema-draft';
import type { ProjectPageProps } from './project-shell';
import { RlsOwnerField } from '../components/rls-owner-field';
import { takeDraft, useDraftSource } from '../drafts';
import { useSession } from '../session';

type Rls = Collection['rls'];
const USERS_FIXED = new Set(['email', 'password']);
const isBlank = (f: DraftField) => !f.name.trim() && !f.ref && !f.defaultValue && !f.fields.length;

export function CollectionEditorPage({ project, name }: ProjectPageProps & { name?: string }) {
  const projectId = project.id;
  const all = useCollections(projectId);
  const existing = name ? all.data?.find((c) => c.name === name) : undefined;
  const [draftName, setName] = useState('');
  const [mode, setMode] = useState<'flexible' | 'schema'>('schema');
  const [fields, setFields] = useState<DraftField[]>([newField()]);
  // No owner preselected: a hidden `userId` would be refused, naming a field the user never saw.
  const [rls, setRls] = useState<Rls>({ enabled: false, mode: 'public-read', ownerField: '' });
  const [saved, setSaved] = useState(false);
  const [tried, setTried] = useState(false);
  const { busy, error, run } = useAction();
  const remove = useAction();

  // What is typed survives an ended session: kept as the log-in page comes, given back after it.
  const developerId = useSession().developer?.id;
  const draftKey = `collection:${projectId}:${name ?? 'new'}`;
  useDraftSource(draftKey, { draftName, mode, fields, rls });
  const [restored, setRestored] = useState(false);

  useEffect(() => {
    if (name && !existing) return;
    if (existing) {
      setName(existing.name);
      setMode(existing.mode);
      setFields(existing.fields.map(toDraft));
      setRls(existing.rls);
    }
    const draft = takeDraft<{
      draftName: string;
      mode: 'flexible' | 'schema';
      fields: DraftField[];
      rls: Rls;
    }>(developerId, draftKey);
    if (!draft) return;
    setName(draft.draftName);
    setMode(draft.mode);
    setFields(draft.fields);
    setRls(draft.rls);
    setRestored(true);
  }, [existing]);

  if (all.error) return <ErrorBox error={all.error} />;
  if (!all.data) return <Progress label="Loading…" />;
  if (name && !existing) return <ErrorBox error={new Error(`There is no collection named “${name}”.`)} />;

  const targets = [...new Set([...all.data.map((c) => c.name), draftName].filter(Boolean))];
  const ownerChoices = ownerChoicesOf(fields.map((f) => ({ ...f, name: f.name.trim() })));
  const addOwnerField = () => {
    const name = fields.some((f) => f.name.trim() === 'ownerId') ? 'ownerUserId' : 'ownerId';
    setFields([...fields, { ...newField(), name }]);
    setRls({ ...rls, ownerField: name });
  };
  const chooseMode = (next: 'flexible' | 'schema') => {
    setMode(next);
    // A flexible collection needs no field: the blank row a new form starts with goes.
    if (next === 'flexible') setFields(fields.filter((f) => !isBlank(f)));
    else if (!fields.length) setFields([newField()]);
  };

  // An owner not chosen is left out while RLS is off (the API keeps its own default).
  const sentRls = rls.ownerField ? rls : { enabled: rls.enabled, mode: rls.mode };
  const body = { mode, fields: fields.map(fromDraft), rls: sentRls };
  // Once a save was tried, the problems shown are those of the draft as it is now: one fixed goes.
  const problemsNow = () =>
    mergeProblems(
      existing
        ? problemsOf('updateCollection', body)
        : problemsOf('createCollection', { name: draftName, ...body }),
      definitionProblems({ ...body, rls }),
    );
  const problems = tried ? problemsNow() : [];
  const failure = problems.length
    ? new ApiFailure('Check the fields marked.', 400, 'INVALID', problems)
    : error instanceof ApiFailure
      ? error
      : undefined;

  const submit = (e: FormEvent) => {
    e.preventDefault();
    setSaved(false);
    setTried(true);
    if (problemsNow().length) return;
    void run(async () => {
      if (existing) {
        await call(
          api.PUT('/api/projects/{projectId}/collections/{collectionName}', {
            params: { path: { projectId, collectionName: existing.name } },
            body,
          }),
        );
        setSaved(true);
        await queryClient.invalidateQueries({ queryKey: collectionsKey(projectId) });
      } else {
        await call(
          api.POST('/api/projects/{projectId}/collections', {
            params: { path: { projectId } },
            body: { name: draftName, ...body },
          }),
        );
        void queryClient.invalidateQueries({ queryKey: collectionsKey(projectId) });
        navigate(`/projects/${projectId}/collections/${encodeURIComponent(draftName)}`);
      }
    });
  };

  const destroy = () => {
    if (!existing) return;
    void remove.run(async () => {
      await call(
        api.DELETE('/api/projects/{projectId}/collections/{collectionName}', {
          params: { path: { projectId, collectionName: existing.name } },
        }),
      );
      void queryClient.invalidateQueries({ queryKey: collectionsKey(projectId) });
      navigate(`/projects/${projectId}/collections`);
    });
  };

  const isUsers = (existing?.name ?? draftName) === 'users';
  return (
    <>
      <h1>{existing ? `Collection “${existing.name}”` : 'New collection'}</h1>
      <form onSubmit={submit} noValidate className="schema-form">
        {!existing && (
          <Field
            label="Collection name"
            required
            value={draftName}
            onChange={(e) => setName(e.target.value)}
            hint="1 to 64 letters, digits, _ or -, starting with a letter. Fixed once created."
            error={failure?.forField('name')}
          />
        )}
        <fieldset>
          <legend>Mode</legend>
          <label className="check">
            <input
              type="radio"
              name="mode"
              checked={mode === 'schema'}
              onChange={() => chooseMode('schema')}
            />
            Schema: every write is checked against the fields below
          </label>
          <label className="check">
            <input
              type="radio"
              name="mode"
              checked={mode === 'flexible'}
              onChange={() => chooseMode('flexible')}
            />
            Flexible: any JSON is stored as sent (defaults still apply)
          </label>
          <FieldError message={failure?.forField('mode')} />
        </fieldset>
        <h2>Fields</h2>
        {!fields.length && (
          <p className="muted">
            {mode === 'flexible'
              ? 'No declared field: documents are stored as sent. Add one to give it a default, a unique index or an RLS owner.'
              : 'No field yet.'}
          </p>
        )}
        {fields.map((f, i) => (
          <FieldEditor
            key={f.key}
            field={f}
            path={`fields.${i}`}
            level={1}
            targets={targets}
            failure={failure}
            locked={isUsers && USERS_FIXED.has(f.name) && !!existing}
            userField={isUsers && !USERS_FIXED.has(f.name)}
            onChange={(next) => setFields(fields.map((x, j) => (j === i ? next : x)))}
            onRemove={() => setFields(fields.filter((_, j) => j !== i))}
          />
        ))}
        <FieldError message={failure?.forField('fields')} />
        <button type="button" className="secondary" onClick={() => setFields([...fields, newField()])}>
          Add field
        </button>
        <fieldset>
          <legend>Row-level security</legend>
          <label className="check">
            <input
              type="checkbox"
              checked={rls.enabled}
              onChange={(e) => setRls({ ...rls, enabled: e.target.checked })}
            />
            Enabled: end users write only their own documents (publishable key + access token)
          </label>
          {rls.enabled && (
            <div className="row">
              <div className="field">
                <label htmlFor="rls-mode">Reads</label>
                {/* Short options, the meaning under them: a long option was cut off at phone width. */}
                <select
                  id="rls-mode"
                  value={rls.mode}
                  aria-describedby="rls-mode-hint"
                  onChange={(e) => setRls({ ...rls, mode: e.target.value as Rls['mode'] })}
                >
                  <option value="public-read">public-read</option>
                  <option value="private">private</option>
                </select>
                <small className="hint" id="rls-mode-hint">
                  {rls.mode === 'private'
                    ? 'Only the owner reads.'
                    : 'Anyone with the publishable key reads.'}
                </small>
              </div>
              <RlsOwnerField
                value={rls.ownerField}
                choices={ownerChoices}
                onChange={(ownerField) => setRls({ ...rls, ownerField })}
                onAddField={addOwnerField}
                error={failure?.forField('rls.ownerField')}
              />
            </div>
          )}
          <FieldError message={failure?.forField('rls') ?? failure?.forField('rls.mode')} />
        </fieldset>
        {/* A refusal naming fields is shown under them; only one naming none goes here. */}
        <ErrorBox error={failure?.details.length ? undefined : error} />
        {saved && <Notice>Collection saved.</Notice>}
        {restored && !saved && <Notice>Restored what you were typing when your session ended.</Notice>}
        {busy && <Progress label="Saving the collection (indexes are built now)…" />}
        <div className="row">
          <button type="submit" disabled={busy}>
            {existing ? 'Save changes' : 'Create collection'}
          </button>
          {existing && (
            <Confirm
              title={`Delete the collection “${existing.name}”?`}
              action="Delete collection"
              onConfirm={destroy}
              trigger={
                <button type="button" className="danger" disabled={remove.busy}>
                  Delete collection
                </button>
              }
            >
              <p>All its documents go with it. This cannot be undone.</p>
            </Confirm>
          )}
        </div>
        <ErrorBox error={remove.error} />
      </form>
    </>
  );
}
