// Developer accounts and dashboard sessions: sign-up, login (rate-limited per email and per IP,
// without telling whether the email exists), logout, password change (ends the other sessions).
import { conflict, tooManyRequests, unauthorized } from '../http/errors.js';
import { dummyHash, hashPassword, verifyPassword } from '../lib/passwords.js';
import { randomToken, sha256 } from '../lib/secrets.js';
import type { Cache } from '../cache/index.js';
import type { DevelopersRepo } from '../db/developers.js';
import type { Developer } from './types.js';

export const SESSION_COOKIE = 'baas_session';
export const SESSION_TTL_MS = 7 * 24 * 3600 * 1000;
const LOGIN_WINDOW_SECONDS = 15 * 60;
const MAX_FAILURES_PER_EMAIL = 5;
const MAX_FAILURES_PER_IP = 50;

export const normalizeEmail = (email: string) => email.trim().toLowerCase();

export function accountsService(developers: DevelopersRepo, cache: Cache) {
  async function openSession(developer: Developer) {
    const token = randomToken();
    await developers.createSession(sha256(token), developer.id, SESSION_TTL_MS);
    return { developer, sessionToken: token };
  }

  return {
    async signup(email: string, password: string, name: string | null) {
      const developer = await developers.create({
        email: normalizeEmail(email),
        name,
        passwordHash: await hashPassword(password),
      });
      if (!developer) throw conflict('An account with this email already exists', 'EMAIL_TAKEN');
      return openSession(developer);
    },

    async login(email: string, password: string, ip: string) {
      const normalized = normalizeEmail(email);
      const keys = [`login:fail:email:${sha256(normalized)}`, `login:fail:ip:${ip}`];
      const [byEmail, byIp] = await Promise.all(keys.map((key) => cache.get(key)));
      if (Number(byEmail) >= MAX_FAILURES_PER_EMAIL || Number(byIp) >= MAX_FAILURES_PER_IP) {
        throw tooManyRequests(LOGIN_WINDOW_SECONDS, 'Too many failed logins; try again later');
      }
      const found = await developers.credentialsByEmail(normalized);
      const ok = await verifyPassword(found?.passwordHash ?? (await dummyHash()), password);
      if (!found || !ok) {
        await Promise.all(keys.map((key) => cache.incr(key, LOGIN_WINDOW_SECONDS)));
        throw unauthorized('Invalid email or password', 'INVALID_CREDENTIALS');
      }
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
      const hash = await developers.passwordHash(developer.id);
      if (!hash || !(await verifyPassword(hash, current))) {
        throw unauthorized('Current password is incorrect', 'INVALID_CREDENTIALS');
      }
      await developers.setPasswordHash(developer.id, await hashPassword(next));
      await developers.deleteOtherSessions(developer.id, sessionToken ? sha256(sessionToken) : undefined);
    },
  };
}

export type AccountsService = ReturnType<typeof accountsService>;
