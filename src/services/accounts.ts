// Developer accounts and dashboard sessions: login (rate-limited per email and client address,
// per email, and per address, without telling whether the email exists), logout, password change (ends the other sessions, revokes the access tokens). Sign-up
// over HTTP confirms the address by mail first (./signup.ts); `signup` here is the direct way
// for fixtures and tools.
import { forbidden, tooManyRequests, unauthorized } from '../http/errors.js';
import { dummyHash, hashPassword, verifyPassword } from '../lib/passwords.js';
import { clientIpKey } from '../lib/client-ip.js';
import { randomToken, sha256 } from '../lib/secrets.js';
import type { Cache } from '../cache/index.js';
import type { DevelopersRepo } from '../db/developers.js';
import type { AccessTokensRepo } from '../db/access-tokens.js';
import type { Developer } from './types.js';

export const SESSION_COOKIE = 'baas_session';
export const SESSION_TTL_MS = 7 * 24 * 3600 * 1000;
const LOGIN_WINDOW_SECONDS = 15 * 60;
// Wrong guesses lock an account for the address that made them only, so a guesser elsewhere
// cannot lock the owner out; the much higher per-account ceiling slows a guesser spread over
// many addresses.
const MAX_FAILURES_PER_EMAIL_AND_IP = 5;
const MAX_FAILURES_PER_EMAIL = 100;
const MAX_FAILURES_PER_IP = 50;
const MAX_WRONG_PASSWORDS = 5;

export const DISABLED_MESSAGE =
  'This account is disabled by the operator of this installation; the operator can enable it again on the Operator › Developers page';

export const normalizeEmail = (email: string) => email.trim().toLowerCase();

export function accountsService(
  developers: DevelopersRepo,
  cache: Cache,
  tokens?: Pick<AccessTokensRepo, 'revokeAll'>,
) {
  async function openSession(developer: Developer) {
    const token = randomToken();
    await developers.createSession(sha256(token), developer.id, SESSION_TTL_MS);
    return { developer, sessionToken: token };
  }

  /**
   * Checks the current password of a signed-in developer (a password change, a new access token).
   * Per account, counted before the check like login: a stolen session must not become a password
   * oracle (the same password often opens other places); both operations share the count.
   */
  async function confirmPassword(developer: Developer, password: string): Promise<void> {
    const failuresKey = `password:fail:developer:${developer.id}`;
    if ((await cache.incr(failuresKey, LOGIN_WINDOW_SECONDS)) > MAX_WRONG_PASSWORDS) {
      throw tooManyRequests(LOGIN_WINDOW_SECONDS, 'Too many wrong passwords; try again later');
    }
    const hash = await developers.passwordHash(developer.id);
    if (!hash || !(await verifyPassword(hash, password))) {
      throw unauthorized('Current password is incorrect', 'INVALID_CREDENTIALS');
    }
    await cache.del(failuresKey);
  }

  return {
    openSession,

    /**
     * Creates an account without a mail round trip and opens a session (a taken address throws).
     * Not reachable over HTTP (sign-up there confirms the address
     * first): for test fixtures and tools acting for the installation.
     */
    async signup(email: string, password: string, name: string | null) {
      const developer = await developers.create({
        email: normalizeEmail(email),
        name,
        passwordHash: await hashPassword(password),
      });
      if (!developer) throw new Error(`an account already uses ${email}`);
      return openSession(developer);
    },

    async login(email: string, password: string, ip: string) {
      const normalized = normalizeEmail(email);
      const client = clientIpKey(ip);
      const emailKey = `login:fail:email:${sha256(normalized)}`;
      const pairKey = `login:fail:email-ip:${sha256(normalized)}:${client}`;
      const ipKey = `login:fail:ip:${client}`;
      // The attempt is counted before the password is checked: read-then-record would let many
      // parallel guesses all pass the check before the first failure is written.
      const [byPair, byEmail, byIp] = await Promise.all([
        cache.incr(pairKey, LOGIN_WINDOW_SECONDS),
        cache.incr(emailKey, LOGIN_WINDOW_SECONDS),
        cache.incr(ipKey, LOGIN_WINDOW_SECONDS),
      ]);
      if (
        byPair > MAX_FAILURES_PER_EMAIL_AND_IP ||
        byEmail > MAX_FAILURES_PER_EMAIL ||
        byIp > MAX_FAILURES_PER_IP
      ) {
        throw tooManyRequests(LOGIN_WINDOW_SECONDS, 'Too many failed logins; try again later');
      }
      const found = await developers.credentialsByEmail(normalized);
      const ok = await verifyPassword(found?.passwordHash ?? (await dummyHash()), password);
      if (!found || !ok) throw unauthorized('Invalid email or password', 'INVALID_CREDENTIALS');
      if (found.developer.disabled) throw forbidden(DISABLED_MESSAGE, 'ACCOUNT_DISABLED');
      // A success clears this client's failures on the account and does not count against the
      // account's ceiling or the address.
      await Promise.all([cache.del(pairKey), cache.decr(emailKey), cache.decr(ipKey)]);
      return openSession(found.developer);
    },

    async logout(sessionToken: string | undefined): Promise<void> {
      if (sessionToken) await developers.deleteSession(sha256(sessionToken));
    },

    /** The developer of a live session cookie, or undefined. */
    async sessionDeveloper(sessionToken: string): Promise<Developer | undefined> {
      return developers.sessionDeveloper(sha256(sessionToken));
    },

    confirmPassword,

    /**
     * Sets a new password: every other session ends and every access token of the account is
     * revoked (a token minted by whoever held the old password must not outlive it). Answers how
     * many tokens were revoked.
     */
    async changePassword(
      developer: Developer,
      current: string,
      next: string,
      sessionToken: string | undefined,
    ): Promise<{ revokedTokens: number }> {
      await confirmPassword(developer, current);
      await developers.setPasswordHash(developer.id, await hashPassword(next));
      await developers.deleteOtherSessions(developer.id, sessionToken ? sha256(sessionToken) : undefined);
      return { revokedTokens: tokens ? await tokens.revokeAll(developer.id) : 0 };
    },
  };
}

export type AccountsService = ReturnType<typeof accountsService>;
