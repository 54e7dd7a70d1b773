// The project's end users, read through the dashboard's user-management endpoint: never their
// password hashes or other secrets.
import { useState, type FormEvent } from 'react';
import { api, ApiFailure, call } from '../api';
import { ErrorBox, Progress } from '../components/ui';
import { useLoad } from '../hooks';
import type { ProjectPageProps } from './project-shell';

export function EndUsersPage({ project }: ProjectPageProps) {
  const [search, setSearch] = useState('');
  const [email, setEmail] = useState('');
  const [page, setPage] = useState(1);
  const users = useLoad(
    async () =>
      call(
        api.GET('/api/projects/{projectId}/users', {
          params: {
            path: { projectId: project.id },
            query: { page, limit: 50, total: true, ...(email ? { email } : {}) },
          },
        }),
      ),
    [project.id, page, email],
  );
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setPage(1);
    setEmail(search.trim());
  };
  const missing = users.error instanceof ApiFailure && users.error.code === 'USERS_COLLECTION_MISSING';
  const rows = users.value?.data ?? [];
  const extraColumns = [...new Set(rows.flatMap((u) => Object.keys(u)))]
    .filter(
      (k) =>
        ![
          '_id',
          'email',
          'createdAt',
          'updatedAt',
          'isDeleted',
          'deletedAt',
          'disabled',
          'emailVerified',
        ].includes(k),
    )
    .slice(0, 3);
  return (
    <>
      <h1>End users</h1>
      {missing ? (
        <p>
          This project has no <code>users</code> collection yet. Create a collection named <code>users</code>{' '}
          to let your app sign end users up.
        </p>
      ) : (
        <>
          <form className="inline" onSubmit={submit} role="search">
            <label htmlFor="user-search">Email starts with</label>
            <input
              id="user-search"
              type="search"
              value={search}
              onChange={(e) => setSearch(e.target.value)}
            />
            <button type="submit">Search</button>
          </form>
          <ErrorBox error={users.error} />
          {users.loading && <Progress label="Loading end users…" />}
          {users.value && rows.length === 0 && <p>No end users yet.</p>}
          {rows.length > 0 && (
            <div className="table-wrap">
              <table>
                <caption className="sr-only">End users</caption>
                <thead>
                  <tr>
                    <th scope="col">Email</th>
                    {extraColumns.map((c) => (
                      <th scope="col" key={c}>
                        {c}
                      </th>
                    ))}
                    <th scope="col">State</th>
                    <th scope="col">Signed up</th>
                  </tr>
                </thead>
                <tbody>
                  {rows.map((u) => (
                    <tr key={String(u._id)}>
                      <th scope="row">{String(u.email ?? '')}</th>
                      {extraColumns.map((c) => (
                        <td key={c}>
                          {typeof u[c] === 'object' ? JSON.stringify(u[c]) : String(u[c] ?? '')}
                        </td>
                      ))}
                      <td>{u.disabled ? 'Disabled' : 'Active'}</td>
                      <td>{u.createdAt ? new Date(String(u.createdAt)).toLocaleDateString() : '—'}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
          {users.value && (
            <nav className="pager" aria-label="Pages">
              <button
                type="button"
                className="secondary"
                disabled={page <= 1}
                onClick={() => setPage(page - 1)}
              >
                Previous
              </button>
              <span>Page {page}</span>
              <button
                type="button"
                className="secondary"
                disabled={!users.value.pagination.hasMore}
                onClick={() => setPage(page + 1)}
              >
                Next
              </button>
            </nav>
          )}
        </>
      )}
    </>
  );
}
