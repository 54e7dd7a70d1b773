// The project's collections: each with its mode, field count and RLS, links to its documents and
// its schema; the plan's collection limit is shown before it bites.
import { ErrorBox, Link, Progress } from '../components/ui';
import { useCollections } from '../data/collections';
import type { ProjectPageProps } from './project-shell';
import { isLimit } from '../data/plans';

export function CollectionsPage({ project }: ProjectPageProps) {
  const query = useCollections(project.id);
  const list = { value: query.data, error: query.error, loading: query.isPending };
  const base = `/projects/${project.id}`;
  const limit = project.limits.collectionsPerProject;
  const full = isLimit(limit) && list.value !== undefined && list.value.length >= limit;
  return (
    <>
      <div className="heading-row">
        <h1>Collections</h1>
        <Link to={`${base}/collections/new`} className="button">
          New collection
        </Link>
      </div>
      {list.value && isLimit(limit) && (
        <p className={full ? 'warning' : 'muted'} data-testid="collection-limit">
          {list.value.length} of {limit} collections of this project’s plan.
          {full && ' Delete one, or move to a larger plan, to create another.'}
        </p>
      )}
      <ErrorBox error={list.error} />
      {list.loading && !list.value && <Progress label="Loading collections…" />}
      {list.value?.length === 0 && <p>No collections yet.</p>}
      {list.value && list.value.length > 0 && (
        <div className="table-wrap">
          <table>
            <caption className="sr-only">Collections</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Mode</th>
                <th scope="col">Fields</th>
                <th scope="col">Row-level security</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {list.value.map((c) => (
                <tr key={c.name}>
                  <th scope="row">{c.name}</th>
                  <td>{c.mode === 'schema' ? 'Schema' : 'Flexible'}</td>
                  <td>{c.fields.length}</td>
                  <td>{c.rls.enabled ? `${c.rls.mode} on ${c.rls.ownerField}` : 'off'}</td>
                  <td className="actions">
                    {c.name === 'users' ? (
                      <Link to={`${base}/users`}>End users</Link>
                    ) : (
                      <Link to={`${base}/data/${encodeURIComponent(c.name)}`}>Documents</Link>
                    )}
                    <Link to={`${base}/collections/${encodeURIComponent(c.name)}`}>Schema</Link>
                    <Link to={`${base}/collections/${encodeURIComponent(c.name)}/indexes`}>Indexes</Link>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}
