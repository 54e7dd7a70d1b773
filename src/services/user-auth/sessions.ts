// End-user sessions: a short-lived access token (JWT, services/tokens.ts) plus an opaque refresh
// token of 7 days, stored hashed, rotated on every use. Tokens of one login form a family; reuse
// of a spent token revokes the whole family, since either the user or a thief holds a copy.
import { randomUUID } from 'node:crypto';
import { unauthorized } from '../../http/errors.js';
import { randomToken, sha256 } from '../../lib/secrets.js';
import type { AuthTokensRepo } from '../../db/auth-tokens.js';
import type { EndUserTokens } from '../tokens.js';
import type { Logger } from '../../lib/logger.js';
import type { AuthHooks } from '../functions/auth-hooks.js';

export const REFRESH_COOKIE = 'baas_refresh';
/**
 * The refresh cookie of one project, `baas_refresh_<projectId>`: every project's apps share the
 * API host, so one name for all let a login to one project overwrite (log out) the session of
 * another in the same browser, and sent one project's token to every other.
 */
export const refreshCookieName = (projectId: string) => `${REFRESH_COOKIE}_${projectId}`;
/** The cookie reaches only the auth endpoints, not every request to the API. */
export const REFRESH_COOKIE_PATH = '/api/userAuth';
export const REFRESH_TOKEN_TTL_MS = 7 * 24 * 3600 * 1000;
const REFRESH_PREFIX = 'rt_';

export interface SessionTokens {
  accessToken: string;
  /** Deprecated alias of accessToken. */
  token: string;
  refreshToken: string;
  expiresIn: number;
}

export function sessionsService(
  repo: AuthTokensRepo,
  tokens: EndUserTokens,
  claimsFor?: AuthHooks['claims'],
) {
  async function issue(
    projectId: string,
    userId: string,
    familyId: string = randomUUID(),
    reason: 'login' | 'refresh' = 'login',
  ): Promise<SessionTokens> {
    const refreshToken = REFRESH_PREFIX + randomToken(32);
    // Before anything is stored: a refusing or failing hook leaves no refresh token behind.
    const appClaims = await claimsFor?.(projectId, userId, reason);
    const [{ accessToken, expiresIn }] = await Promise.all([
      tokens.issue(projectId, userId, undefined, appClaims),
      repo.insertRefreshToken({
        hash: sha256(refreshToken),
        projectId,
        userId,
        familyId,
        ttlMs: REFRESH_TOKEN_TTL_MS,
      }),
    ]);
    return { accessToken, token: accessToken, refreshToken, expiresIn };
  }

  const invalid = () => unauthorized('Invalid or expired refresh token', 'INVALID_REFRESH_TOKEN');

  return {
    /** A new session (new family) after sign-up, login or social exchange. */
    start: (projectId: string, userId: string) => issue(projectId, userId),

    /** Rotates a refresh token: the presented one is spent, a new one of the same family returned. */
    async refresh(
      projectId: string,
      refreshToken: string,
      log: Logger,
      assertActive?: (userId: string) => Promise<void>,
    ): Promise<SessionTokens & { userId: string }> {
      const used = await repo.useRefreshToken(projectId, sha256(refreshToken));
      if (used.status === 'reused') {
        await repo.revokeFamily(projectId, used.familyId);
        log.warn({ projectId, familyId: used.familyId }, 'refresh token reused; family revoked');
        throw unauthorized(
          'Refresh token already used; every session of this login has been signed out',
          'REFRESH_TOKEN_REUSED',
        );
      }
      if (used.status !== 'ok') throw invalid();
      const { userId, familyId } = used.token;
      // The presented token is spent already: a refused user's family cannot be used again.
      await assertActive?.(userId);
      return { ...(await issue(projectId, userId, familyId, 'refresh')), userId };
    },

    /** Revokes the family of a refresh token; unknown or spent tokens are ignored (idempotent). */
    async logout(projectId: string, refreshToken: string): Promise<void> {
      const live = await repo.findLiveRefreshToken(projectId, sha256(refreshToken));
      if (live) await repo.revokeFamily(projectId, live.familyId);
    },

    /** The family of a live refresh token of this user, to keep it when others are revoked. */
    async familyOf(projectId: string, userId: string, refreshToken: string | undefined) {
      if (!refreshToken) return undefined;
      const live = await repo.findLiveRefreshToken(projectId, sha256(refreshToken));
      return live?.userId === userId ? live.familyId : undefined;
    },

    revokeAll: (projectId: string, userId: string, keepFamilyId?: string) =>
      repo.revokeUserFamilies(projectId, userId, keepFamilyId),
  };
}

export type SessionsService = ReturnType<typeof sessionsService>;
