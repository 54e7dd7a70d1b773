// Access tokens refused before they expire: disabling a user, revoking their sessions or deleting
// them writes "tokens issued before now are void" to the shared cache (Redis when configured, so
// every process sees it) for one access-token lifetime, and pushes it to every process over the
// cache's message bus. The Bearer check uses what its process learned (pushed, or read from the
// cache less than a second ago, so a missed message heals within that time: pushed-values.ts)
// and reads the cache otherwise. Should the entry be lost (cache restart), the tokens still expire within
// 15 minutes, and refresh and login refuse a disabled user from the database anyway.
import type { Cache } from '../../cache/index.js';
import { ACCESS_TOKEN_TTL_SECONDS } from '../tokens.js';
import { pushedValues } from '../pushed-values.js';

const MAX_KNOWN = 100_000;

export function tokenRevocations(cache: Cache, now: () => number = Date.now) {
  /** `<projectId>:<userId>` -> tokens issued before this time (seconds) are void; null: none. */
  const revokedBefore = pushedValues<number | null>(cache, {
    channel: 'token-revoked',
    cacheKey: (name) => `ua:revoked:${name}`,
    decode: (text) => (text === null ? null : Number(text)),
    encode: String,
    // The later of two revocations holds; a read that found none does not undo one pushed meanwhile.
    merge: (had, next) => (had != null && next !== null ? Math.max(had, next) : (next ?? had ?? null)),
    maxNames: MAX_KNOWN,
    now,
  });

  return {
    /**
     * Voids the user's tokens issued so far. `iat` has a one-second resolution, so the current
     * second is voided whole: a token issued in the same second after the call is refused too.
     */
    async revoke(projectId: string, userId: string): Promise<void> {
      const before = Math.floor(Date.now() / 1000) + 1;
      await revokedBefore.set(`${projectId}:${userId}`, before, ACCESS_TOKEN_TTL_SECONDS + 60);
    },

    /** Whether a token of this user issued at `issuedAt` (seconds) has been voided. */
    async isRevoked(projectId: string, userId: string, issuedAt: number | undefined): Promise<boolean> {
      const before = await revokedBefore.get(`${projectId}:${userId}`);
      return before !== null && (issuedAt === undefined || issuedAt < before);
    },
  };
}

export type TokenRevocations = ReturnType<typeof tokenRevocations>;
