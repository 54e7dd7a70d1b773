// The operator invites a developer: a mail with a sign-up link (single use, 7 days, its token
// stored only as a hash) that opens the dashboard's sign-up with the address filled in. Signing
// up through it creates the account at once, on the plan the operator chose: the link, mailed to
// that address, already proves it. Pending invitations are listed and revoked by the operator.
import { ApiError, badRequest, conflict, notFound, tooManyRequests } from '../http/errors.js';
import type { Cache } from '../cache/index.js';
import type { DeveloperInvitation, DeveloperInvitationsRepo } from '../db/developer-invitations.js';
import type { DevelopersRepo } from '../db/developers.js';
import type { DeveloperSignupsRepo } from '../db/developer-signups.js';
import type { Mailer } from '../mail/sender.js';
import { paragraphMail } from '../mail/escape.js';
import type { Logger } from '../lib/logger.js';
import type { PlanTable } from '../lib/plan-table.js';
import { hashPassword } from '../lib/passwords.js';
import { randomToken, sha256 } from '../lib/secrets.js';
import { normalizeEmail } from './accounts.js';
import { requireOperator } from './operator.js';
import type { RequestContext } from './context.js';
import type { Developer } from './types.js';

/** Developer invitations one operator may send per hour: the mail server is not a spam cannon. */
export const DEVELOPER_INVITES_PER_HOUR = 20;
/** How long a developer invitation's link works. */
export const DEVELOPER_INVITATION_TTL_MS = 7 * 24 * 3600_000;
/** Pending invitations the operator's list shows at most. */
const LIST_LIMIT = 200;
const HOUR_SECONDS = 3600;

const NOT_VALID =
  'This invitation link is not valid: it was already used, revoked, or replaced by a newer invitation. ' +
  'Sign up without it, or ask the operator to invite you again.';

export interface DeveloperInvitationsOptions {
  invitations: DeveloperInvitationsRepo;
  developers: Pick<DevelopersRepo, 'findByEmail' | 'create'>;
  pendingSignups: Pick<DeveloperSignupsRepo, 'removeEmail'>;
  cache: Pick<Cache, 'incr'>;
  plans: PlanTable;
  openSession: (developer: Developer) => Promise<{ developer: Developer; sessionToken: string }>;
  mailer?: Mailer;
  dashboardUrl: string;
  log?: Logger;
}

export function developerInvitationsService(options: DeveloperInvitationsOptions) {
  const { invitations, developers, plans } = options;
  const where = options.dashboardUrl.replace(/\/$/, '');

  /** Sent after the answer, so that a slow or failing mail server neither delays nor shows in it. */
  function mail(inviter: Developer, invitation: DeveloperInvitation, token: string): void {
    const mailer = options.mailer;
    if (!mailer) return;
    const link = `${where}/signup?invitation=${token}&email=${encodeURIComponent(invitation.email)}`;
    const plan = invitation.plan ? ` on the ${plans.get(invitation.plan).label} plan` : '';
    const days = Math.round(DEVELOPER_INVITATION_TTL_MS / (24 * 3600_000));
    const lines = [
      `${inviter.email}, who runs the service at ${where}, invited you to create a developer account${plan}.`,
      'To accept, open this link and choose a password:',
      link,
      `The link works once and for ${days} days. If you did not expect this, ignore this message.`,
    ];
    void mailer
      .sendMail({
        to: invitation.email,
        subject: 'Invitation to create a developer account',
        ...paragraphMail(lines, link),
      })
      .catch((err: unknown) => options.log?.error({ err }, 'could not send a developer invitation'));
  }

  return {
    /**
     * Records (or renews) the invitation of `email`, with the plan the account will get, and
     * mails it a link. An address that has an account is a 409: the operator sees the accounts.
     */
    async invite(ctx: RequestContext, email: string, plan: string | undefined) {
      const operator = requireOperator(ctx);
      if (plan !== undefined && !plans.has(plan)) {
        const names = plans.plans.map((p) => p.name).join(', ');
        throw badRequest(
          `Unknown plan "${plan}": this installation's plans are ${names}`,
          [{ path: 'plan', message: `must be one of ${names}` }],
          'UNKNOWN_PLAN',
        );
      }
      const address = normalizeEmail(email);
      if (await developers.findByEmail(address)) {
        throw conflict(
          `An account already uses ${address}: find it in the list of developers`,
          'EMAIL_TAKEN',
          [{ path: 'email', message: 'has an account already' }],
        );
      }
      const sent = await options.cache.incr(`devinvites:${operator.id}`, HOUR_SECONDS);
      if (sent > DEVELOPER_INVITES_PER_HOUR) {
        throw tooManyRequests(
          HOUR_SECONDS,
          `At most ${DEVELOPER_INVITES_PER_HOUR} developer invitations an hour; try again later`,
        );
      }
      const token = randomToken();
      const invitation = await invitations.put({
        email: address,
        plan: plan ?? null,
        tokenHash: sha256(token),
        invitedBy: operator.id,
        ttlMs: DEVELOPER_INVITATION_TTL_MS,
      });
      mail(operator, invitation, token);
      return invitation;
    },

    async list(ctx: RequestContext) {
      requireOperator(ctx);
      return invitations.list(LIST_LIMIT);
    },

    async revoke(ctx: RequestContext, id: string) {
      requireOperator(ctx);
      if (!(await invitations.remove(id))) throw notFound('Invitation not found', 'INVITATION_NOT_FOUND');
    },

    /**
     * Creates the invited account (the invited address, the chosen plan) and opens its first
     * session. The account is made before the token is spent: a second use of the link then
     * meets the taken address, and a crash between the two leaves a link that still works.
     */
    async signUp(token: string, password: string, name: string | null) {
      const tokenHash = sha256(token);
      const invitation = await invitations.findByToken(tokenHash);
      if (!invitation) throw notFound(NOT_VALID, 'INVITATION_NOT_FOUND');
      if (invitation.expiresAt <= new Date()) {
        throw new ApiError(
          410,
          'INVITATION_EXPIRED',
          'This invitation expired (links work for 7 days): ask the operator to invite you again, or sign up without it',
        );
      }
      // A plan removed from PLANS_FILE since the invitation: the default plan, as any sign-up.
      const plan = invitation.plan && plans.has(invitation.plan) ? invitation.plan : undefined;
      const developer = await developers.create({
        email: invitation.email,
        name,
        passwordHash: await hashPassword(password),
        plan,
      });
      await invitations.consume(invitation.id, tokenHash);
      if (!developer) {
        throw conflict(
          `An account already uses ${invitation.email}: log in with its password`,
          'EMAIL_TAKEN',
        );
      }
      await options.pendingSignups.removeEmail(invitation.email);
      return options.openSession(developer);
    },
  };
}

export type DeveloperInvitationsService = ReturnType<typeof developerInvitationsService>;
