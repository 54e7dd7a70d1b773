// Access tokens refused before they expire: disabling a user, revoking their sessions or deleting
// them writes "tokens issued before now are void" to the shared cache (Redis when configured, so
// every process sees it) for one access-token lifetime, and pushes it to every process over the
// cache's message bus. The Bearer check uses what its process learned (pushed, or read from the
// cache less than LOCAL_VERSION_MS ago, so a missed message heals within that time) and reads
// the cache otherwise. Should the entry be lost (cache restart), the tokens still expire within
// 15 minutes, and refresh and login refuse a disabled user from the database anyway.
import type { Cache } from '../../cache/index.js';
import { ACCESS_TOKEN_TTL_SECONDS } from '../tokens.js';
import { LOCAL_VERSION_MS } from '../project-cache.js';

const key = (projectId: string, userId: string) => `ua:revoked:${projectId}:${userId}`;
const CHANNEL = 'token-revoked';
const MAX_KNOWN = 100_000;
const RESUBSCRIBE_MS = 1000;

export function tokenRevocations(cache: Cache, now: () => number = Date.now) {
  /** cache key -> the revocation time this process knows (null: none) and when it learned it. */
  const known = new Map<string, { before: number | null; at: number }>();
  let messages = 0;
  let listening = false;
  let subscribing: Promise<void> | undefined;
  let retryAt = 0;

  function learn(k: string, before: number | null) {
    if (known.size >= MAX_KNOWN && !known.has(k)) known.delete(known.keys().next().value!);
    const had = known.get(k)?.before ?? null;
    known.set(k, {
      before: had !== null && before !== null ? Math.max(had, before) : (before ?? had),
      at: now(),
    });
  }

  function listen() {
    if (listening || subscribing || now() < retryAt) return;
    subscribing = cache
      .subscribe(CHANNEL, (message) => {
        const [k, before] = message.split(' ');
        if (!k || !before) return;
        messages++;
        learn(k, Number(before));
      })
      .then(() => {
        listening = true;
      })
      .catch(() => {
        retryAt = now() + RESUBSCRIBE_MS;
      })
      .finally(() => {
        subscribing = undefined;
      });
  }

  async function revokedBefore(k: string): Promise<number | null> {
    listen();
    const local = known.get(k);
    if (listening && local && now() - local.at < LOCAL_VERSION_MS) return local.before;
    const seen = messages;
    const stored = await cache.get(k);
    const before = stored === null ? null : Number(stored);
    if (messages !== seen && known.has(k)) return known.get(k)!.before;
    learn(k, before);
    return before;
  }

  return {
    /**
     * Voids the user's tokens issued so far. `iat` has a one-second resolution, so the current
     * second is voided whole: a token issued in the same second after the call is refused too.
     */
    async revoke(projectId: string, userId: string): Promise<void> {
      const k = key(projectId, userId);
      const before = Math.floor(Date.now() / 1000) + 1;
      await cache.set(k, String(before), ACCESS_TOKEN_TTL_SECONDS + 60);
      messages++;
      learn(k, before);
      await cache.publish(CHANNEL, `${k} ${before}`);
    },

    /** Whether a token of this user issued at `issuedAt` (seconds) has been voided. */
    async isRevoked(projectId: string, userId: string, issuedAt: number | undefined): Promise<boolean> {
      const before = await revokedBefore(key(projectId, userId));
      return before !== null && (issuedAt === undefined || issuedAt < before);
    },
  };
}

export type TokenRevocations = ReturnType<typeof tokenRevocations>;
