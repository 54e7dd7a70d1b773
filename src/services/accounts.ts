// Developer accounts and dashboard sessions: sign-up (limited per client IP; an address that has
// an account gets the same answer, with a cookie that opens nothing, and its owner a mail), login
// (rate-limited per email and per IP, without telling whether the email exists), logout, password
// change (ends the other sessions).
import { randomBytes } from 'node:crypto';
import { tooManyRequests, unauthorized } from '../http/errors.js';
import { dummyHash, hashPassword, verifyPassword } from '../lib/passwords.js';
import { clientIpKey } from '../lib/client-ip.js';
import { randomToken, sha256 } from '../lib/secrets.js';
import type { Cache } from '../cache/index.js';
import type { DevelopersRepo } from '../db/developers.js';
import type { Mailer } from '../mail/sender.js';
import type { Logger } from '../lib/logger.js';
import type { Developer } from './types.js';

export const SESSION_COOKIE = 'baas_session';
export const SESSION_TTL_MS = 7 * 24 * 3600 * 1000;
const LOGIN_WINDOW_SECONDS = 15 * 60;
const MAX_FAILURES_PER_EMAIL = 5;
const MAX_FAILURES_PER_IP = 50;
const SIGNUP_WINDOW_SECONDS = 3600;
/** Mails to the owner of an address someone tried to sign up with, per address and hour. */
const TAKEN_MAILS_PER_HOUR = 3;

export interface AccountsOptions {
  /** Sign-ups per client IP (an IPv6 /64) and hour, over HTTP (DEVELOPER_SIGNUPS_PER_HOUR). */
  signupsPerHour?: number;
  /** Tells the owner of an address that someone tried to sign up with it. */
  mailer?: Mailer;
  dashboardUrl?: string;
  log?: Logger;
}

export const normalizeEmail = (email: string) => email.trim().toLowerCase();

export function accountsService(developers: DevelopersRepo, cache: Cache, options: AccountsOptions = {}) {
  const signupsPerHour = options.signupsPerHour ?? Infinity;
  async function openSession(developer: Developer) {
    const token = randomToken();
    await developers.createSession(sha256(token), developer.id, SESSION_TTL_MS);
    return { developer, sessionToken: token };
  }

  /**
   * The answer to a sign-up with an address that has an account: shaped like a new account's (a
   * fresh id, a token), but nothing is stored and the token opens no session. The owner is told by
   * mail (at most a few times an hour), after the answer.
   */
  async function decoy(email: string, name: string | null) {
    const now = new Date();
    const developer: Developer = {
      id: randomBytes(12).toString('hex'),
      email,
      name,
      plan: 'free',
      isOperator: false,
      hasAiProviderKey: false,
      createdAt: now,
      updatedAt: now,
    };
    void tellOwner(email).catch((err: unknown) =>
      options.log?.error({ err }, 'could not tell an account owner of a sign-up attempt'),
    );
    return { developer, sessionToken: randomToken() };
  }

  async function tellOwner(email: string): Promise<void> {
    if (!options.mailer) return;
    const sent = await cache.incr(`signup:taken:${sha256(email)}`, SIGNUP_WINDOW_SECONDS);
    if (sent > TAKEN_MAILS_PER_HOUR) return;
    const where = options.dashboardUrl ? ` at ${options.dashboardUrl}` : '';
    const text =
      `Someone, perhaps you, tried to create a developer account${where} with this address.\n\n` +
      `You already have an account: log in with your password. Nothing was changed, and if it was ` +
      `not you, you can ignore this message.\n`;
    await options.mailer.sendMail({
      to: email,
      subject: 'Sign-up attempt with your address',
      text,
      html: `<p>${text.replace(/\n\n/g, '</p><p>').replace(/\n/g, '')}</p>`,
    });
  }

  return {
    /** `ip`: the client's address over HTTP, whose sign-ups per hour are limited. */
    async signup(email: string, password: string, name: string | null, ip?: string) {
      if (ip !== undefined) {
        const count = await cache.incr(`signup:ip:${clientIpKey(ip)}`, SIGNUP_WINDOW_SECONDS);
        if (count > signupsPerHour) {
          throw tooManyRequests(
            SIGNUP_WINDOW_SECONDS,
            'Too many sign-ups from this address; try again later',
          );
        }
      }
      const normalized = normalizeEmail(email);
      const developer = await developers.create({
        email: normalized,
        name,
        passwordHash: await hashPassword(password),
      });
      if (!developer) return decoy(normalized, name);
      return openSession(developer);
    },

    async login(email: string, password: string, ip: string) {
      const normalized = normalizeEmail(email);
      const emailKey = `login:fail:email:${sha256(normalized)}`;
      const ipKey = `login:fail:ip:${clientIpKey(ip)}`;
      // The attempt is counted before the password is checked: read-then-record would let many
      // parallel guesses all pass the check before the first failure is written.
      const [byEmail, byIp] = await Promise.all([
        cache.incr(emailKey, LOGIN_WINDOW_SECONDS),
        cache.incr(ipKey, LOGIN_WINDOW_SECONDS),
      ]);
      if (byEmail > MAX_FAILURES_PER_EMAIL || byIp > MAX_FAILURES_PER_IP) {
        throw tooManyRequests(LOGIN_WINDOW_SECONDS, 'Too many failed logins; try again later');
      }
      const found = await developers.credentialsByEmail(normalized);
      const ok = await verifyPassword(found?.passwordHash ?? (await dummyHash()), password);
      if (!found || !ok) throw unauthorized('Invalid email or password', 'INVALID_CREDENTIALS');
      // A success clears the account's failures and does not count against the address.
      await Promise.all([cache.del(emailKey), cache.decr(ipKey)]);
      return openSession(found.developer);
    },

    async logout(sessionToken: string | undefined): Promise<void> {
      if (sessionToken) await developers.deleteSession(sha256(sessionToken));
    },

    /** The developer of a live session cookie, or undefined. */
    async sessionDeveloper(sessionToken: string): Promise<Developer | undefined> {
      return developers.sessionDeveloper(sha256(sessionToken));
    },

    async changePassword(
      developer: Developer,
      current: string,
      next: string,
      sessionToken: string | undefined,
    ) {
      // Per account, counted before the check like login: a stolen session must not become a
      // password oracle (the same password often opens other places).
      const failuresKey = `password:fail:developer:${developer.id}`;
      if ((await cache.incr(failuresKey, LOGIN_WINDOW_SECONDS)) > MAX_FAILURES_PER_EMAIL) {
        throw tooManyRequests(LOGIN_WINDOW_SECONDS, 'Too many wrong passwords; try again later');
      }
      const hash = await developers.passwordHash(developer.id);
      if (!hash || !(await verifyPassword(hash, current))) {
        throw unauthorized('Current password is incorrect', 'INVALID_CREDENTIALS');
      }
      await cache.del(failuresKey);
      await developers.setPasswordHash(developer.id, await hashPassword(next));
      await developers.deleteOtherSessions(developer.id, sessionToken ? sha256(sessionToken) : undefined);
    },
  };
}

export type AccountsService = ReturnType<typeof accountsService>;
