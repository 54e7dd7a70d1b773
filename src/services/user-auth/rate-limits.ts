// Rate limits of end-user auth on the shared cache (Redis when configured, so every process
// counts together): fixed windows keyed by project and by IP or a hashed email.
import type { Cache } from '../../cache/index.js';
import { tooManyRequests } from '../../http/errors.js';
import { clientIpKey } from '../../lib/client-ip.js';
import { sha256 } from '../../lib/secrets.js';

export interface Limit {
  /** Counter name, e.g. `login-fail`. */
  name: string;
  max: number;
  windowSeconds: number;
}

export const emailKey = (email: string) => `e:${sha256(email)}`;
/** An IPv6 client counts by its /64 (src/lib/client-ip.ts). */
export const ipKey = (ip: string) => `ip:${clientIpKey(ip)}`;

export function rateLimiter(cache: Cache) {
  const key = (projectId: string, limit: Limit, subject: string) =>
    `ua:${limit.name}:${projectId}:${subject}`;

  return {
    async record(projectId: string, limit: Limit, subject: string): Promise<number> {
      return cache.incr(key(projectId, limit, subject), limit.windowSeconds);
    },
    /**
     * Counts this request and answers 429 once the maximum is passed. Attempts are counted before
     * the work they guard (a password or code check), so parallel requests cannot all slip under
     * the limit before the first failure is written.
     */
    async take(projectId: string, limit: Limit, subject: string, message: string): Promise<void> {
      const count = await cache.incr(key(projectId, limit, subject), limit.windowSeconds);
      if (count > limit.max) throw tooManyRequests(limit.windowSeconds, message);
    },
    /** Gives back the count of an attempt that turned out not to be a failure. */
    async release(projectId: string, limit: Limit, subject: string): Promise<void> {
      await cache.decr(key(projectId, limit, subject));
    },
    async reset(projectId: string, limit: Limit, subject: string): Promise<void> {
      await cache.del(key(projectId, limit, subject));
    },
  };
}

export type RateLimiter = ReturnType<typeof rateLimiter>;
