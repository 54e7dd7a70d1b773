// Project invitations: an admin invites any address (the same answer and the same pending entry
// whether or not an account uses it, or is a member already), the address gets a mail with a
// single-use link, and the developer who uses that address accepts it; admins list, resend
// (counted like invitations) and revoke pending ones.
import { forbidden, notFound, ApiError, tooManyRequests } from '../http/errors.js';
import type { Cache } from '../cache/index.js';
import type { Invitation, InvitationsRepo } from '../db/invitations.js';
import type { ProjectsRepo } from '../db/projects.js';
import type { Mailer } from '../mail/sender.js';
import { paragraphMail } from '../mail/escape.js';
import type { Logger } from '../lib/logger.js';
import { randomToken, sha256 } from '../lib/secrets.js';
import { normalizeEmail } from './accounts.js';
import type { Developer, MemberRole, Project } from './types.js';

/** Invitations (first sends, repeats and resends) one developer may send per hour, over all their projects. */
export const INVITES_PER_HOUR = 20;
/** How long an invitation link works. */
export const INVITATION_TTL_MS = 7 * 24 * 3600 * 1000;
const HOUR_SECONDS = 3600;

export interface InvitationsOptions {
  invitations: InvitationsRepo;
  projects: Pick<ProjectsRepo, 'findById' | 'addMember'>;
  cache: Pick<Cache, 'incr'>;
  mailer?: Mailer;
  dashboardUrl: string;
  log?: Logger;
}

const NOT_VALID =
  'This invitation link is not valid: it was already used, revoked, or replaced by a newer invitation';

export function invitationsService(options: InvitationsOptions) {
  const { invitations, projects, cache } = options;

  async function count(inviterId: string): Promise<void> {
    const sent = await cache.incr(`invites:dev:${inviterId}`, HOUR_SECONDS);
    if (sent > INVITES_PER_HOUR) {
      throw tooManyRequests(HOUR_SECONDS, `At most ${INVITES_PER_HOUR} invitations an hour; try again later`);
    }
  }

  /** Sent after the answer, so that a slow or failing mail server neither delays nor shows in it. */
  function mail(project: Project, inviter: Developer, invitation: Invitation, token: string): void {
    const mailer = options.mailer;
    if (!mailer) return;
    // The address rides along so that a sign-up or log-in from the link starts with it filled in.
    const link = `${options.dashboardUrl.replace(/\/$/, '')}/invitations/accept?token=${token}&email=${encodeURIComponent(invitation.email)}`;
    const days = Math.round(INVITATION_TTL_MS / (24 * 3600 * 1000));
    const role = invitation.role === 'admin' ? 'an admin' : 'a member';
    const lines = [
      `${inviter.email} invited you to join the project "${project.name}" as ${role}.`,
      `To accept, open this link while logged in to the dashboard with this email address (or sign up with it first):`,
      link,
      `The link works once and for ${days} days. If you did not expect this, ignore this message.`,
    ];
    // The subject is ours alone: the project name, chosen by whoever invites, stays in the body.
    void mailer
      .sendMail({
        to: invitation.email,
        subject: 'Invitation to a project',
        ...paragraphMail(lines, link),
      })
      .catch((err: unknown) => options.log?.error({ err }, 'could not send a project invitation'));
  }

  return {
    /**
     * Records (or renews) the pending invitation of `email` and mails it a link. Nothing here
     * depends on whether an account uses the address, so the answer and the list entry cannot
     * tell.
     */
    async invite(project: Project, inviter: Developer, email: string, role: MemberRole): Promise<Invitation> {
      await count(inviter.id);
      const token = randomToken();
      const invitation = await invitations.put({
        projectId: project.id,
        email: normalizeEmail(email),
        role,
        tokenHash: sha256(token),
        invitedBy: inviter.id,
        ttlMs: INVITATION_TTL_MS,
      });
      mail(project, inviter, invitation, token);
      return invitation;
    },

    list: (project: Project) => invitations.list(project.id),

    /** A new link (the old one stops working) and a new expiry, counted like an invitation. */
    async resend(project: Project, inviter: Developer, invitationId: string): Promise<Invitation> {
      await count(inviter.id);
      const token = randomToken();
      const renewed = await invitations.renew(project.id, invitationId, sha256(token), INVITATION_TTL_MS);
      if (!renewed) throw notFound('Invitation not found', 'INVITATION_NOT_FOUND');
      mail(project, inviter, renewed, token);
      return renewed;
    },

    async revoke(project: Project, invitationId: string): Promise<void> {
      if (!(await invitations.remove(project.id, invitationId))) {
        throw notFound('Invitation not found', 'INVITATION_NOT_FOUND');
      }
    },

    /**
     * Makes `developer` a member with the invited role when the invitation was sent to their
     * address (a member already keeps their role). The member is added before the token is spent,
     * so a crash between the two leaves a link that still works rather than a lost invitation.
     */
    async accept(developer: Developer, token: string): Promise<{ project: Project; role: MemberRole }> {
      const tokenHash = sha256(token);
      const invitation = await invitations.findByToken(tokenHash);
      if (!invitation) throw notFound(NOT_VALID, 'INVITATION_NOT_FOUND');
      if (invitation.expiresAt <= new Date()) {
        throw new ApiError(
          410,
          'INVITATION_EXPIRED',
          'This invitation expired; ask an admin of the project to send it again',
        );
      }
      if (normalizeEmail(developer.email) !== invitation.email) {
        throw forbidden(
          'This invitation was sent to another email address: log in as the developer who uses it, ' +
            'or sign up with it, then open the link again',
          'INVITATION_FOR_ANOTHER_EMAIL',
        );
      }
      const project = await projects.findById(invitation.projectId);
      if (!project) {
        await invitations.consume(invitation.id, tokenHash);
        throw notFound('The project of this invitation no longer exists', 'INVITATION_NOT_FOUND');
      }
      const added = await projects.addMember(project.id, developer.id, invitation.role);
      // Spent meanwhile by a concurrent accept of the same link: that one answered.
      if (!(await invitations.consume(invitation.id, tokenHash)) && !added) {
        throw notFound(NOT_VALID, 'INVITATION_NOT_FOUND');
      }
      const current = added ?? project;
      const role = current.members.find((m) => m.developerId === developer.id)?.role ?? invitation.role;
      return { project: current, role };
    },
  };
}

export type InvitationsService = ReturnType<typeof invitationsService>;
