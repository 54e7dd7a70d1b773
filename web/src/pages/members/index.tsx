// Members and roles: admins invite by email (a pending invitation until its addressee accepts;
// resend, revoke), change roles and remove members; anyone may leave. One message at a time: a
// refusal replaces the last success.
import { useState } from 'react';
import { useForm } from 'react-hook-form';
import { errorText } from '../../api';
import { navigate } from '../../router';
import { useSession } from '../../session';
import { useInvitations, useMemberActions, useMembers, type Invitation, type Role } from '../../data/members';
import { ErrorBox, Field, Notice, Progress } from '../../components/ui';
import { ConfirmDialog } from '../../components/confirm';
import { apiResolver, FormMessage, showFailure } from '../../forms/form';
import type { ProjectPageProps } from '../project-shell';

export function MembersPage({ project }: ProjectPageProps) {
  const { developer } = useSession();
  const members = useMembers(project.id);
  const actions = useMemberActions(project.id);
  const [notice, setNotice] = useState<{ text: string; error?: boolean }>();
  const [leaving, setLeaving] = useState<{ developerId: string; email: string } | null>(null);
  const isAdmin = project.role === 'admin';
  const invitations = useInvitations(project.id, isAdmin);
  const [revoking, setRevoking] = useState<Invitation | null>(null);
  const form = useForm<{ email: string; role: Role }>({
    defaultValues: { email: '', role: 'member' },
    resolver: apiResolver<{ email: string; role: Role }>('inviteProjectMember', (v) => ({
      ...v,
      email: v.email.trim(),
    })),
  });
  const { errors, isSubmitting } = form.formState;

  const invite = form.handleSubmit(async (values) => {
    setNotice(undefined);
    try {
      const res = await actions.invite.mutateAsync({ ...values, email: values.email.trim() });
      setNotice({ text: res.message || 'Invitation sent.' });
      form.reset();
    } catch (err) {
      showFailure(form, err, ['email', 'role']);
    }
  });
  const fail = (err: unknown) => setNotice({ text: errorText(err), error: true });
  const change = (developerId: string, role: Role, email: string) => {
    setNotice(undefined);
    actions.changeRole.mutate(
      { developerId, role },
      {
        onSuccess: () =>
          setNotice({ text: `${email} is now ${role === 'admin' ? 'an admin' : 'a member'}.` }),
        onError: fail,
      },
    );
  };
  const remove = ({ developerId, email }: { developerId: string; email: string }) => {
    setNotice(undefined);
    const self = developerId === developer?.id;
    actions.remove.mutate(developerId, {
      onSuccess: () => (self ? navigate('/') : setNotice({ text: `${email} removed.` })),
      onError: fail,
    });
  };
  const resend = (invitation: Invitation) => {
    setNotice(undefined);
    actions.resend.mutate(invitation.id, {
      onSuccess: () => setNotice({ text: `A new link was sent to ${invitation.email}.` }),
      onError: fail,
    });
  };
  const revoke = (invitation: Invitation) => {
    setNotice(undefined);
    actions.revoke.mutate(invitation.id, {
      onSuccess: () => setNotice({ text: `The invitation of ${invitation.email} was revoked.` }),
      onError: fail,
    });
  };
  const self = leaving?.developerId === developer?.id;

  return (
    <>
      <h1>Members</h1>
      <p className="muted">
        Admins manage settings, keys, functions and members. Members manage collections, documents and files,
        and read end users and functions.
      </p>
      <ErrorBox error={members.error} />
      {members.isPending && <Progress label="Loading members…" />}
      {notice &&
        (notice.error ? (
          <div className="error" role="alert">
            {notice.text}
          </div>
        ) : (
          <Notice>{notice.text}</Notice>
        ))}
      {members.data && (
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
              {members.data.map((m) => (
                <tr key={m.developerId}>
                  <th scope="row">
                    {m.email} {m.name ? <span className="muted">({m.name})</span> : null}
                  </th>
                  <td>
                    {isAdmin ? (
                      <select
                        aria-label={`Role of ${m.email}`}
                        value={m.role}
                        onChange={(e) => change(m.developerId, e.target.value as Role, m.email)}
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
                        onClick={() => setLeaving({ developerId: m.developerId, email: m.email })}
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
      <ConfirmDialog
        open={leaving !== null}
        onOpenChange={(open) => !open && setLeaving(null)}
        title={self ? 'Leave this project?' : `Remove ${leaving?.email ?? ''} from the project?`}
        action={self ? 'Leave project' : 'Remove member'}
        onConfirm={() => leaving && remove(leaving)}
      >
        <p>
          {self
            ? 'You lose access to the project until an admin invites you again.'
            : 'They lose access to the project until invited again.'}
        </p>
      </ConfirmDialog>
      {isAdmin && (
        <section aria-labelledby="invitations-heading">
          <h2 id="invitations-heading">Pending invitations</h2>
          <ErrorBox error={invitations.error} />
          {invitations.data?.length === 0 && <p className="muted">No pending invitations.</p>}
          {invitations.data && invitations.data.length > 0 && (
            <div className="table-wrap">
              <table>
                <caption className="sr-only">Pending invitations</caption>
                <thead>
                  <tr>
                    <th scope="col">Email</th>
                    <th scope="col">Role</th>
                    <th scope="col">Status</th>
                    <th scope="col">Actions</th>
                  </tr>
                </thead>
                <tbody>
                  {invitations.data.map((i) => (
                    <tr key={i.id}>
                      <th scope="row">{i.email}</th>
                      <td>{i.role}</td>
                      <td>
                        invited, pending{' '}
                        <span className="muted">(expires {new Date(i.expiresAt).toLocaleDateString()})</span>
                      </td>
                      <td className="actions">
                        <button
                          type="button"
                          className="secondary"
                          aria-label={`Resend the invitation of ${i.email}`}
                          onClick={() => resend(i)}
                        >
                          Resend
                        </button>
                        <button
                          type="button"
                          className="secondary danger"
                          aria-label={`Revoke the invitation of ${i.email}`}
                          onClick={() => setRevoking(i)}
                        >
                          Revoke
                        </button>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
        </section>
      )}
      <ConfirmDialog
        open={revoking !== null}
        onOpenChange={(open) => !open && setRevoking(null)}
        title={`Revoke the invitation of ${revoking?.email ?? ''}?`}
        action="Revoke invitation"
        onConfirm={() => revoking && revoke(revoking)}
      >
        <p>The link in their mail stops working. You can invite the address again later.</p>
      </ConfirmDialog>
      {isAdmin && (
        <section className="card" aria-labelledby="invite-heading">
          <h2 id="invite-heading">Invite a developer</h2>
          <p className="muted">
            We mail the address a link that works once, for 7 days. They accept it logged in with this address
            (or after signing up with it); until then the invitation is listed as pending.
          </p>
          <form onSubmit={invite} onChange={() => form.clearErrors('root')} className="inline" noValidate>
            <Field label="Email" type="email" {...form.register('email')} error={errors.email?.message} />
            <div className="field">
              <label htmlFor="invite-role">Role</label>
              <select id="invite-role" {...form.register('role')}>
                <option value="member">member</option>
                <option value="admin">admin</option>
              </select>
            </div>
            <button type="submit" disabled={isSubmitting}>
              Invite
            </button>
          </form>
          <FormMessage errors={errors} />
        </section>
      )}
    </>
  );
}
