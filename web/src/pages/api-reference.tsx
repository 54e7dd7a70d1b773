// The project's own API reference: its OpenAPI document (GET /api/projects/{id}/openapi.json) shown
// as the server, the keys, the operations by collection and each collection's fields, with the
// document itself to download and the command that generates a typed client from it.
import { useMemo } from 'react';
import { useQuery } from '@tanstack/react-query';
import { api, call } from '../api';
import { CopyButton, ErrorBox, Link, Progress } from '../components/ui';
import { readReference, type CollectionView, type TagGroup } from '../openapi-view';
import type { ProjectPageProps } from './project-shell';

/** The exact bytes the API served (for the download) and the document they hold. */
async function loadDocument(projectId: string, signal?: AbortSignal) {
  const bytes = await call(
    api.GET('/api/projects/{projectId}/openapi.json', {
      params: { path: { projectId } },
      parseAs: 'arrayBuffer',
      signal,
    }),
  );
  const document = JSON.parse(new TextDecoder().decode(bytes)) as Record<string, unknown>;
  return { bytes, document };
}

/** Text with `code` spans, as the document's descriptions write them (plain text, never HTML). */
function Described({ text }: { text: string }) {
  return <>{text.split(/`([^`]+)`/).map((part, i) => (i % 2 ? <code key={i}>{part}</code> : part))}</>;
}

/** A file name from the project's name, kept to characters every file system accepts. */
const fileName = (name: string) =>
  `${name.replace(/[^\w.-]+/g, '-').replace(/^-+|-+$/g, '') || 'project'}-openapi.json`;

function download(bytes: ArrayBuffer, name: string) {
  const url = URL.createObjectURL(new Blob([bytes], { type: 'application/json' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  // The browser has taken the file by the next tick; the URL is not needed after that.
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

function Operations({ group }: { group: TagGroup }) {
  return (
    <div className="table-wrap">
      <table className="operations stacked">
        <caption className="sr-only">Operations of {group.name}</caption>
        <thead>
          <tr>
            <th scope="col">Operation</th>
            <th scope="col">Summary</th>
            <th scope="col">Keys accepted</th>
            <th scope="col">403 when</th>
          </tr>
        </thead>
        <tbody>
          {group.operations.map((op) => (
            <tr key={`${op.method} ${op.path}`}>
              <th scope="row">
                <code>
                  <span className={`method method-${op.method.toLowerCase()}`}>{op.method}</span> {op.path}
                </code>
              </th>
              <td data-label="Summary">{op.summary}</td>
              <td data-label="Keys accepted">
                {op.keys.length ? (
                  <ul className="plain">
                    {op.keys.map((k) => (
                      <li key={k}>
                        <code>{k}</code>
                      </li>
                    ))}
                  </ul>
                ) : (
                  'No key'
                )}
              </td>
              <td data-label="403 when">
                {op.forbidden ? (
                  <details>
                    <summary>{op.forbiddenCodes.join(', ') || 'Refused'}</summary>
                    <p className="muted">
                      <Described text={op.forbidden} />
                    </p>
                  </details>
                ) : (
                  '—'
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function Fields({ collection }: { collection: CollectionView }) {
  if (!collection.fields.length)
    return <p>No declared fields{collection.closed ? '' : ': any field may be stored (flexible)'}.</p>;
  return (
    <div className="table-wrap">
      <table>
        <caption className="sr-only">Fields of {collection.name}</caption>
        <thead>
          <tr>
            <th scope="col">Field</th>
            <th scope="col">Type</th>
            <th scope="col">Required</th>
            <th scope="col">Default</th>
            <th scope="col">Unique</th>
            <th scope="col">Ref</th>
          </tr>
        </thead>
        <tbody>
          {collection.fields.map((f) => (
            <tr key={f.name}>
              <th scope="row" title={f.description || undefined}>
                <code>{f.name}</code>
              </th>
              <td>{f.type}</td>
              <td>{f.required ? 'Yes' : 'No'}</td>
              <td>{f.default === undefined ? '—' : <code>{f.default}</code>}</td>
              <td>{f.unique ? 'Yes' : 'No'}</td>
              <td>{f.ref ?? '—'}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function ApiReferencePage({ project }: ProjectPageProps) {
  // Asked again on every visit (no stale time): the document follows the collections.
  const loaded = useQuery({
    queryKey: ['project-api-document', project.id],
    queryFn: ({ signal }) => loadDocument(project.id, signal),
    staleTime: 0,
  });
  const view = useMemo(() => loaded.data && readReference(loaded.data.document), [loaded.data]);
  const name = fileName(project.name);
  const command = view
    ? `npx openapi-typescript "${view.serverUrl}/api/openapi.json?key=<publishable key>" -o ./api.d.ts`
    : '';

  return (
    <>
      <div className="heading-row">
        <h1>API reference</h1>
        {loaded.data && (
          <button type="button" onClick={() => download(loaded.data!.bytes, name)}>
            Download openapi.json
          </button>
        )}
      </div>
      <ErrorBox error={loaded.error} />
      {loaded.isPending && !view && <Progress label="Loading the project’s API document…" />}
      {view && (
        <>
          <p>
            This project’s own OpenAPI document (version <code>{view.version}</code>): its collections as
            typed operations. It changes when a collection does.
          </p>
          <dl className="facts">
            <dt>Server</dt>
            <dd>
              <code>{view.serverUrl}</code>
            </dd>
          </dl>

          <h2>Typed client</h2>
          <p>
            Generate TypeScript types from the published document with your publishable key (it ends in …
            {project.keys.publishable.last4}; it is shown once, when created or rotated on{' '}
            {project.role === 'admin' ? (
              <Link to={`/projects/${project.id}/keys`}>API keys</Link>
            ) : (
              'API keys'
            )}
            ), then call the API with <code>openapi-fetch</code>:
          </p>
          <div className="key-value command">
            <input
              readOnly
              className="mono"
              aria-label="Command"
              value={command}
              data-testid="client-command"
            />
            <CopyButton text={command} label="Copy command" />
          </div>

          <h2>Keys</h2>
          <div className="table-wrap">
            <table className="stacked">
              <caption className="sr-only">Security schemes</caption>
              <thead>
                <tr>
                  <th scope="col">Scheme</th>
                  <th scope="col">Sent as</th>
                  <th scope="col">What it is</th>
                </tr>
              </thead>
              <tbody>
                {view.schemes.map((s) => (
                  <tr key={s.name}>
                    <th scope="row">
                      <code>{s.name}</code>
                    </th>
                    <td data-label="Sent as">
                      <code>{s.how}</code>
                    </td>
                    <td data-label="What it is">
                      <Described text={s.description} />
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>

          {view.groups.length === 0 && <p>No collections yet: create one to see its operations here.</p>}
          {view.groups.map((group) => {
            const collection = view.collections.find((c) => c.name === group.name);
            return (
              <section key={group.name} className="card" aria-labelledby={`tag-${group.name}`}>
                <h2 id={`tag-${group.name}`}>{group.name}</h2>
                {group.description && (
                  <p className="muted">
                    <Described text={group.description} />
                  </p>
                )}
                {collection && (
                  <>
                    <h3>Fields</h3>
                    <Fields collection={collection} />
                  </>
                )}
                <h3>Operations</h3>
                <Operations group={group} />
              </section>
            );
          })}
        </>
      )}
    </>
  );
}
