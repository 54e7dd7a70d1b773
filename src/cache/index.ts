// The shared cache: Redis when REDIS_URL is set (shared by every process), otherwise an
// in-process map (one instance only; the health check reports `kind: memory`). Used for rate
// limits, counters and short-lived entries, never as the system of record.
import { createClient } from 'redis';

export interface Cache {
  readonly kind: 'redis' | 'memory';
  ping(): Promise<void>;
  get(key: string): Promise<string | null>;
  set(key: string, value: string, ttlSeconds: number): Promise<void>;
  del(key: string): Promise<void>;
  /** Increments a counter that expires ttlSeconds after its first increment; returns the new value. */
  incr(key: string, ttlSeconds: number): Promise<number>;
  /** Gives one count of a live counter back (its expiry unchanged); a counter at zero or gone is removed. */
  decr(key: string): Promise<void>;
  close(): Promise<void>;
}

/** Keys are namespaced by `prefix` (the platform database name), so installations sharing a Redis never collide. */
export async function createCache(redisUrl: string | undefined, prefix: string): Promise<Cache> {
  const cache = redisUrl ? await createRedisCache(redisUrl) : createMemoryCache();
  const k = (key: string) => `${prefix}:${key}`;
  return {
    ...cache,
    get: (key) => cache.get(k(key)),
    set: (key, value, ttl) => cache.set(k(key), value, ttl),
    del: (key) => cache.del(k(key)),
    incr: (key, ttl) => cache.incr(k(key), ttl),
    decr: (key) => cache.decr(k(key)),
  };
}

async function createRedisCache(url: string): Promise<Cache> {
  const client = createClient({
    url,
    socket: { connectTimeout: 5000, reconnectStrategy: (retries) => Math.min(retries * 100, 2000) },
    // Commands fail at once while disconnected instead of queueing until the server is back.
    disableOfflineQueue: true,
  });
  client.on('error', () => {
    // Connection errors surface through the failing command and the health check; the client
    // reconnects by itself.
  });
  await client.connect();
  return {
    kind: 'redis',
    async ping() {
      await client.ping();
    },
    get: (key) => client.get(key),
    async set(key, value, ttlSeconds) {
      await client.set(key, value, { EX: ttlSeconds });
    },
    async del(key) {
      await client.del(key);
    },
    async incr(key, ttlSeconds) {
      const [count] = await client.multi().incr(key).expire(key, ttlSeconds, 'NX').exec();
      return Number(count);
    },
    async decr(key) {
      // DECR keeps the key's expiry; on a counter that expired meanwhile it would start a new
      // one at -1 without expiry, so a result at or below zero removes the key.
      if ((await client.decr(key)) <= 0) await client.del(key);
    },
    async close() {
      await client.close();
    },
  };
}

function createMemoryCache(): Cache {
  const entries = new Map<string, { value: string; expiresAt: number }>();
  const live = (key: string) => {
    const entry = entries.get(key);
    if (entry && entry.expiresAt <= Date.now()) {
      entries.delete(key);
      return undefined;
    }
    return entry;
  };
  const sweep = setInterval(() => {
    const now = Date.now();
    for (const [key, entry] of entries) if (entry.expiresAt <= now) entries.delete(key);
  }, 60_000);
  sweep.unref();
  return {
    kind: 'memory',
    async ping() {},
    async get(key) {
      return live(key)?.value ?? null;
    },
    async set(key, value, ttlSeconds) {
      entries.set(key, { value, expiresAt: Date.now() + ttlSeconds * 1000 });
    },
    async del(key) {
      entries.delete(key);
    },
    async incr(key, ttlSeconds) {
      const entry = live(key);
      const value = String(Number(entry?.value ?? 0) + 1);
      entries.set(key, { value, expiresAt: entry?.expiresAt ?? Date.now() + ttlSeconds * 1000 });
      return Number(value);
    },
    async decr(key) {
      const entry = live(key);
      if (!entry) return;
      const value = Number(entry.value) - 1;
      if (value > 0) entry.value = String(value);
      else entries.delete(key);
    },
    async close() {
      clearInterval(sweep);
      entries.clear();
    },
  };
}
