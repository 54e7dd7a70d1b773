// Project invitations on the dashboard: invite, list, resend and revoke (admins), and accept (the
// invited developer).
import type { operations } from '../../generated/dashboard.js';
import type { Handler } from '../http/types.js';
import type { Services } from '../services/index.js';
import type { Invitation } from '../db/invitations.js';
import { requireDeveloper } from '../services/projects.js';

type Ops = operations;

const view = (i: Invitation) => ({
  id: i.id,
  email: i.email,
  role: i.role,
  status: 'pending' as const,
  invitedBy: i.invitedBy,
  createdAt: i.createdAt.toISOString(),
  sentAt: i.sentAt.toISOString(),
  expiresAt: i.expiresAt.toISOString(),
});

export function invitationHandlers({ projects, invitations }: Services) {
  /** The answer to an invitation (re)sent: the same for every address. */
  const sent = (invitation: Parameters<typeof view>[0]) => ({
    status: 202 as const,
    body: {
      success: true as const,
      data: { invitation: view(invitation) },
      message: `Invitation sent to ${invitation.email}`,
    },
  });

  const inviteProjectMember: Handler<Ops['inviteProjectMember']> = async ({ params, body }, ctx) => {
    const project = await projects.requireAccess(ctx, params.projectId, 'admin');
    const invitation = await invitations.invite(
      project,
      requireDeveloper(ctx),
      body.email,
      body.role ?? 'member',
    );
    return sent(invitation);
  };

  const listProjectInvitations: Handler<Ops['listProjectInvitations']> = async ({ params }, ctx) => {
    const project = await projects.requireAccess(ctx, params.projectId, 'admin');
    const list = await invitations.list(project);
    return { status: 200, body: { success: true, data: { invitations: list.map(view) }, message: '' } };
  };

  const resendProjectInvitation: Handler<Ops['resendProjectInvitation']> = async ({ params }, ctx) => {
    const project = await projects.requireAccess(ctx, params.projectId, 'admin');
    const invitation = await invitations.resend(project, requireDeveloper(ctx), params.invitationId);
    return sent(invitation);
  };

  const revokeProjectInvitation: Handler<Ops['revokeProjectInvitation']> = async ({ params }, ctx) => {
    const project = await projects.requireAccess(ctx, params.projectId, 'admin');
    await invitations.revoke(project, params.invitationId);
    return { status: 200, body: { success: true, data: {}, message: 'Invitation revoked' } };
  };

  const acceptProjectInvitation: Handler<Ops['acceptProjectInvitation']> = async ({ body }, ctx) => {
    const { project, role } = await invitations.accept(requireDeveloper(ctx), body.token);
    return {
      status: 200,
      body: {
        success: true,
        data: { project: { id: project.id, name: project.name, role } },
        message: `You are now ${role === 'admin' ? 'an admin' : 'a member'} of ${project.name}`,
      },
    };
  };

  return {
    inviteProjectMember,
    listProjectInvitations,
    resendProjectInvitation,
    revokeProjectInvitation,
    acceptProjectInvitation,
  };
}
