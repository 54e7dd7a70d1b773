// Members and roles: admins invite existing developers by email, change roles and remove
// members; anyone may leave.
import { useState, type FormEvent } from 'react';
import { api, ApiFailure, call } from '../api';
import { navigate } from '../router';
import { useSession } from '../session';
import { ErrorBox, Field, Notice, Progress } from '../components/ui';
import { useAction, useLoad } from '../hooks';
import type { ProjectPageProps } from './project-shell';

type Role = 'admin' | 'member';

export function MembersPage({ project }: ProjectPageProps) {
  const { developer } = useSession();
  const params = { path: { projectId: project.id } };
  const members = useLoad(
    async () => (await call(api.GET('/api/projects/{projectId}/members', { params }))).data.members,
    [project.id],
  );
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<Role>('member');
  const [notice, setNotice] = useState('');
  const action = useAction();
  const failure = action.error instanceof ApiFailure ? action.error : undefined;
  const isAdmin = project.role === 'admin';

  const invite = (e: FormEvent) => {
    e.preventDefault();
    setNotice('');
    void action.run(async () => {
      const res = await call(
        api.POST('/api/projects/{projectId}/members', { params, body: { email, role } }),
      );
      setNotice(res.message || 'Invitation sent.');
      setEmail('');
      await members.reload();
    });
  };
  const change = (developerId: string, next: Role) =>
    action.run(async () => {
      await call(
        api.PATCH('/api/projects/{projectId}/members/{developerId}', {
          params: { path: { projectId: project.id, developerId } },
          body: { role: next },
        }),
      );
      setNotice('Role changed.');
      await members.reload();
    });
  const remove = (developerId: string, label: string) => {
    const self = developerId === developer?.id;
    if (!confirm(self ? 'Leave this project?' : `Remove ${label} from the project?`)) return;
    void action.run(async () => {
      await call(
        api.DELETE('/api/projects/{projectId}/members/{developerId}', {
          params: { path: { projectId: project.id, developerId } },
        }),
      );
      if (self) navigate('/');
      else {
        setNotice(`${label} removed.`);
        await members.reload();
      }
    });
  };

  return (
    <>
      <h1>Members</h1>
      <p className="muted">
        Admins manage settings, keys and members. Members manage collections, documents and files, and read
        end users.
      </p>
      <ErrorBox error={members.error} />
      {members.loading && !members.value && <Progress label="Loading members…" />}
      {members.value && (
        <div className="table-wrap">
          <table>
            <caption className="sr-only">Members</caption>
            <thead>
              <tr>
                <th scope="col">Email</th>
                <th scope="col">Role</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {members.value.map((m) => (
                <tr key={m.developerId}>
                  <th scope="row">
                    {m.email} {m.name ? <span className="muted">({m.name})</span> : null}
                  </th>
                  <td>
                    {isAdmin ? (
                      <select
                        aria-label={`Role of ${m.email}`}
                        value={m.role}
                        onChange={(e) => void change(m.developerId, e.target.value as Role)}
                      >
                        <option value="admin">admin</option>
                        <option value="member">member</option>
                      </select>
                    ) : (
                      m.role
                    )}
                  </td>
                  <td className="actions">
                    {(isAdmin || m.developerId === developer?.id) && (
                      <button
                        type="button"
                        className="secondary danger"
                        onClick={() => remove(m.developerId, m.email)}
                      >
                        {m.developerId === developer?.id ? 'Leave' : 'Remove'}
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {isAdmin && (
        <section className="card" aria-labelledby="invite-heading">
          <h2 id="invite-heading">Invite a developer</h2>
          <p className="muted">They need a dashboard account with this email address.</p>
          <form onSubmit={invite} className="inline" noValidate>
            <Field
              label="Email"
              type="email"
              value={email}
              onChange={(e) => setEmail(e.target.value)}
              error={failure?.forField('email')}
            />
            <div className="field">
              <label htmlFor="invite-role">Role</label>
              <select id="invite-role" value={role} onChange={(e) => setRole(e.target.value as Role)}>
                <option value="member">member</option>
                <option value="admin">admin</option>
              </select>
            </div>
            <button type="submit" disabled={action.busy}>
              Invite
            </button>
          </form>
        </section>
      )}
      <ErrorBox error={action.error} />
      {notice && <Notice>{notice}</Notice>}
    </>
  );
}
