// Access tokens refused before they expire: disabling a user, revoking their sessions or deleting
// them writes "tokens issued before now are void" to the shared cache (Redis when configured, so
// every process sees it) for one access-token lifetime; the Bearer check reads it (one cache read
// per Bearer request). Should the entry be lost (cache restart), the tokens still expire within
// 15 minutes, and refresh and login refuse a disabled user from the database anyway.
import type { Cache } from '../../cache/index.js';
import { ACCESS_TOKEN_TTL_SECONDS } from '../tokens.js';

const key = (projectId: string, userId: string) => `ua:revoked:${projectId}:${userId}`;

export function tokenRevocations(cache: Cache) {
  return {
    /**
     * Voids the user's tokens issued so far. `iat` has a one-second resolution, so the current
     * second is voided whole: a token issued in the same second after the call is refused too.
     */
    async revoke(projectId: string, userId: string): Promise<void> {
      const before = Math.floor(Date.now() / 1000) + 1;
      await cache.set(key(projectId, userId), String(before), ACCESS_TOKEN_TTL_SECONDS + 60);
    },

    /** Whether a token of this user issued at `issuedAt` (seconds) has been voided. */
    async isRevoked(projectId: string, userId: string, issuedAt: number | undefined): Promise<boolean> {
      const before = await cache.get(key(projectId, userId));
      return before !== null && (issuedAt === undefined || issuedAt < Number(before));
    },
  };
}

export type TokenRevocations = ReturnType<typeof tokenRevocations>;
