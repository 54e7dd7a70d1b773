// Developer sign-up by mail: a sign-up answers the same "check your mail" whatever the address and
// opens no session. A new address gets a link; the account is created, and the first session
// opened, when the link is opened and the chosen password typed again (so whoever started a
// sign-up with someone else's address cannot take the account the owner confirms). An address
// that has an account gets a mail saying so. Mails per address and hour are limited.
import { conflict, notFound, tooManyRequests, unauthorized } from '../http/errors.js';
import { hashPassword, verifyPassword } from '../lib/passwords.js';
import { clientIpKey } from '../lib/client-ip.js';
import { randomToken, sha256 } from '../lib/secrets.js';
import type { Cache } from '../cache/index.js';
import type { DevelopersRepo } from '../db/developers.js';
import type { DeveloperInvitationsRepo } from '../db/developer-invitations.js';
import type { DeveloperSignupsRepo } from '../db/developer-signups.js';
import type { Mailer } from '../mail/sender.js';
import { escapeHtml } from '../mail/escape.js';
import type { Logger } from '../lib/logger.js';
import { normalizeEmail } from './accounts.js';
import type { Developer } from './types.js';

const SIGNUP_WINDOW_SECONDS = 3600;
/** Sign-up mails (confirmation or "you already have an account") per address and hour. */
export const SIGNUP_MAILS_PER_HOUR = 3;
/** How long a confirmation link works. */
export const SIGNUP_LINK_TTL_MS = 24 * 3600 * 1000;
/** Wrong passwords a confirmation link survives. */
const MAX_CONFIRM_ATTEMPTS = 5;

export interface SignupOptions {
  developers: DevelopersRepo;
  pending: DeveloperSignupsRepo;
  /** The operator's invitations: one to an address that now has an account is ended with it. */
  invitations: Pick<DeveloperInvitationsRepo, 'removeEmail'>;
  cache: Cache;
  openSession: (developer: Developer) => Promise<{ developer: Developer; sessionToken: string }>;
  /** Sign-ups per client IP (an IPv6 /64) and hour (DEVELOPER_SIGNUPS_PER_HOUR). */
  signupsPerHour?: number;
  mailer?: Mailer;
  dashboardUrl: string;
  /** Where mail goes: an SMTP server, or the outbox folder when SMTP_URL is unset. */
  delivery?: 'smtp' | 'outbox';
  log?: Logger;
}

const INVALID_LINK =
  'This confirmation link is not valid: it was already used, it expired (links work for 24 hours), ' +
  'or too many wrong passwords were typed. Sign up again.';

export function signupService(options: SignupOptions) {
  const { developers, pending, cache } = options;
  const signupsPerHour = options.signupsPerHour ?? Infinity;
  const where = options.dashboardUrl.replace(/\/$/, '');

  /** Sent after the answer (a slow mail server must not show in it), at most a few an hour per address. */
  function send(email: string, subject: string, paragraphs: string[]): void {
    const mailer = options.mailer;
    if (!mailer) return;
    void (async () => {
      const sent = await cache.incr(`signup:mail:${sha256(email)}`, SIGNUP_WINDOW_SECONDS);
      if (sent > SIGNUP_MAILS_PER_HOUR) return;
      const text = paragraphs.join('\n\n') + '\n';
      const html = paragraphs
        .map((p) =>
          p.startsWith('http')
            ? `<p><a href="${escapeHtml(p)}">${escapeHtml(p)}</a></p>`
            : `<p>${escapeHtml(p)}</p>`,
        )
        .join('');
      await mailer.sendMail({ to: email, subject, text, html });
    })().catch((err: unknown) => options.log?.error({ err }, 'could not send a sign-up mail'));
  }

  return {
    /**
     * Starts a sign-up. The work done is the same for a new and a taken address (the password is
     * hashed either way, the mail goes out after the answer), so neither the answer nor its time
     * tells them apart. `ip`: the client's address, whose sign-ups per hour are limited.
     */
    async request(email: string, password: string, name: string | null, ip: string) {
      // The same for every address (it is the server's setting), so it tells nothing about one.
      const delivery = options.delivery ?? 'smtp';
      const count = await cache.incr(`signup:ip:${clientIpKey(ip)}`, SIGNUP_WINDOW_SECONDS);
      if (count > signupsPerHour) {
        throw tooManyRequests(SIGNUP_WINDOW_SECONDS, 'Too many sign-ups from this address; try again later');
      }
      const normalized = normalizeEmail(email);
      const passwordHash = await hashPassword(password);
      if (await developers.findByEmail(normalized)) {
        send(normalized, 'Sign-up attempt with your address', [
          `Someone, perhaps you, tried to create a developer account at ${where} with this address.`,
          'You already have an account: log in with your password. Nothing was changed, and if it ' +
            'was not you, you can ignore this message.',
        ]);
        return { email: normalized, delivery };
      }
      const token = randomToken();
      await pending.put(sha256(token), { email: normalized, name, passwordHash }, SIGNUP_LINK_TTL_MS);
      const link = `${where}/signup/confirm?token=${token}`;
      send(normalized, 'Confirm your email address', [
        `To finish creating your developer account at ${where}, open this link and type the password you chose:`,
        link,
        'The link works once, for 24 hours. If you did not sign up, ignore this message: no account ' +
          'is created without it.',
      ]);
      return { email: normalized, delivery };
    },

    /** Creates the account of a confirmed sign-up and opens its first session. */
    async confirm(token: string, password: string) {
      const tokenHash = sha256(token);
      const signup = await pending.attempt(tokenHash, MAX_CONFIRM_ATTEMPTS);
      if (!signup) throw notFound(INVALID_LINK, 'SIGNUP_LINK_INVALID');
      if (!(await verifyPassword(signup.passwordHash, password))) {
        throw unauthorized(
          'Wrong password: type the password you chose when you signed up',
          'INVALID_CREDENTIALS',
        );
      }
      const developer = await developers.create({
        email: signup.email,
        name: signup.name,
        passwordHash: signup.passwordHash,
      });
      await pending.removeEmail(signup.email);
      // Invited, but signed up without the link: the invitation is no longer pending.
      await options.invitations.removeEmail(signup.email);
      if (!developer) {
        throw conflict('An account already uses this email address: log in with its password', 'EMAIL_TAKEN');
      }
      return options.openSession(developer);
    },
  };
}

export type SignupService = ReturnType<typeof signupService>;
