// The project's end users, read through the dashboard's user management (never their password
// hashes): search by a text in the email or name, and by state, and for admins the actions on each user (user-actions.tsx).
import { useState, type FormEvent } from 'react';
import { ApiFailure } from '../../api';
import { useEndUsers, type UserSearch } from '../../data/end-users';
import { ErrorBox, Notice, Progress } from '../../components/ui';
import { UserActions } from './user-actions';
import { CreateUsersCollection } from './create-users';
import type { ProjectPageProps } from '../project-shell';

const STATES: { value: UserSearch['state']; label: string }[] = [
  { value: 'all', label: 'All' },
  { value: 'active', label: 'Active' },
  { value: 'disabled', label: 'Disabled' },
];

/** The search in the address (`?search=&state=&page=`), so a reload, Back or a shared link keeps it. */
function searchFromUrl(): UserSearch {
  const q = new URLSearchParams(location.search);
  const state = q.get('state');
  const page = Number(q.get('page'));
  return {
    // `email` was the parameter's name when the search was an email prefix: old links still work.
    text: q.get('search') ?? q.get('email') ?? '',
    state: state === 'active' || state === 'disabled' ? state : 'all',
    page: Number.isInteger(page) && page > 1 ? page : 1,
  };
}

function searchToUrl(search: UserSearch): void {
  const q = new URLSearchParams();
  if (search.text) q.set('search', search.text);
  if (search.state !== 'all') q.set('state', search.state);
  if (search.page > 1) q.set('page', String(search.page));
  const query = q.toString();
  history.replaceState(history.state, '', location.pathname + (query ? `?${query}` : ''));
}

export function EndUsersPage({ project }: ProjectPageProps) {
  const [search, setSearchState] = useState<UserSearch>(searchFromUrl);
  const setSearch = (next: UserSearch) => {
    searchToUrl(next);
    setSearchState(next);
  };
  const [typed, setTyped] = useState(search.text);
  const [notice, setNotice] = useState<{ text: string; error?: boolean }>();
  const users = useEndUsers(project.id, search);
  const admin = project.role === 'admin';

  const submit = (e: FormEvent) => {
    e.preventDefault();
    setSearch({ ...search, text: typed.trim(), page: 1 });
  };
  const missing = users.error instanceof ApiFailure && users.error.code === 'USERS_COLLECTION_MISSING';
  const rows = users.data?.data ?? [];
  const filtered = search.text !== '' || search.state !== 'all';
  const total = users.data?.pagination.total;

  if (missing) return <CreateUsersCollection projectId={project.id} admin={admin} />;
  return (
    <>
      <h1>End users</h1>
      <form className="inline" onSubmit={submit} role="search" aria-label="End users">
        <div className="field">
          <label htmlFor="user-search">Email or name contains</label>
          <input
            id="user-search"
            type="search"
            maxLength={100}
            value={typed}
            onChange={(e) => setTyped(e.target.value)}
          />
        </div>
        <div className="field">
          <label htmlFor="user-state">State</label>
          <select
            id="user-state"
            value={search.state}
            onChange={(e) => setSearch({ ...search, state: e.target.value as UserSearch['state'], page: 1 })}
          >
            {STATES.map((s) => (
              <option key={s.value} value={s.value}>
                {s.label}
              </option>
            ))}
          </select>
        </div>
        <button type="submit">Search</button>
      </form>
      {notice &&
        (notice.error ? (
          <div className="error" role="alert">
            {notice.text}
          </div>
        ) : (
          <Notice>{notice.text}</Notice>
        ))}
      <ErrorBox error={users.error} />
      {users.isFetching && <Progress label="Loading end users…" />}
      {users.data && rows.length === 0 && !users.isPlaceholderData && (
        <p>
          {filtered ? (
            <>
              No end users match.{' '}
              <button
                type="button"
                className="link"
                onClick={() => {
                  setTyped('');
                  setSearch({ text: '', state: 'all', page: 1 });
                }}
              >
                Clear the search
              </button>
            </>
          ) : (
            'No end users yet. They appear here once your app signs them up.'
          )}
        </p>
      )}
      {rows.length > 0 && (
        <>
          {total !== undefined && (
            <p className="muted">
              {total} end user{total === 1 ? '' : 's'}
              {filtered ? ' match' : ''}
            </p>
          )}
          <div className="table-wrap">
            <table>
              <caption className="sr-only">End users</caption>
              <thead>
                <tr>
                  <th scope="col">Email</th>
                  <th scope="col">Name</th>
                  <th scope="col">Email verified</th>
                  <th scope="col">State</th>
                  <th scope="col">Signed up</th>
                  {admin && (
                    <th scope="col">
                      <span className="sr-only">Actions</span>
                    </th>
                  )}
                </tr>
              </thead>
              <tbody>
                {rows.map((u) => (
                  <tr key={String(u._id)}>
                    <th scope="row">{String(u.email ?? '')}</th>
                    <td>{typeof u.name === 'string' ? u.name : u.name ? JSON.stringify(u.name) : '—'}</td>
                    <td>{u.emailVerified ? 'Yes' : 'No'}</td>
                    <td>{u.disabled ? 'Disabled' : 'Active'}</td>
                    <td>{u.createdAt ? new Date(String(u.createdAt)).toLocaleDateString() : '—'}</td>
                    {admin && (
                      <td>
                        <UserActions projectId={project.id} user={u} onDone={setNotice} />
                      </td>
                    )}
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </>
      )}
      {users.data && (search.page > 1 || users.data.pagination.hasMore) && (
        <nav className="pager" aria-label="Pages">
          <button
            type="button"
            className="secondary"
            disabled={search.page <= 1}
            onClick={() => setSearch({ ...search, page: search.page - 1 })}
          >
            Previous
          </button>
          <span>Page {search.page}</span>
          <button
            type="button"
            className="secondary"
            disabled={!users.data.pagination.hasMore}
            onClick={() => setSearch({ ...search, page: search.page + 1 })}
          >
            Next
          </button>
        </nav>
      )}
    </>
  );
}
