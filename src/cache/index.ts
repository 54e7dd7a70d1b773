// The shared cache: Redis when REDIS_URL is set (shared by every process), otherwise an
// in-process map (one instance only; the health check reports `kind: memory`). Used for rate
// limits, counters and short-lived entries, never as the system of record. When Redis cannot be
// reached, every method fails at once (no offline queue) or after the command timeout with the
// 503 `Unavailable: cache`, and the client keeps reconnecting in the background.
import { createClient, ErrorReply } from 'redis';
import { dependencyUnavailable } from '../http/errors.js';
import {
  memoryRateLimiter,
  parseScriptReply,
  RATE_LIMIT_SCRIPT,
  scriptArguments,
  type RateBucket,
  type RateDecision,
} from './rate-limit.js';
import { rateLeases } from './rate-lease.js';
import { memoryBus, redisBus, type Bus, type BusHandler, type Subscriber } from './bus.js';
import { memoryEventLog, redisEventLog, type EventLog } from './event-log.js';
import { memoryLeases, redisLeases, type Leases } from './leases.js';

export type { Bus, BusHandler } from './bus.js';
export type { EventLog, LogEntry, LogLimits, OpenedLog } from './event-log.js';
export type { Leases } from './leases.js';
export type { RateBucket, RateDecision, RateState } from './rate-limit.js';

export interface Cache {
  readonly kind: 'redis' | 'memory';
  ping(): Promise<void>;
  get(key: string): Promise<string | null>;
  set(key: string, value: string, ttlSeconds: number): Promise<void>;
  del(key: string): Promise<void>;
  /**
   * Adds `by` (1 unless given; negative gives back) to a counter that expires ttlSeconds after its
   * first increment; returns the new value.
   */
  incr(key: string, ttlSeconds: number, by?: number): Promise<number>;
  /** Gives one count of a live counter back (its expiry unchanged); a counter at zero or gone is removed. */
  decr(key: string): Promise<void>;
  /**
   * Charges one request to every bucket, or to none when one is empty (see rate-limit.ts); with
   * Redis, a busy process takes requests from a short lease of its own (see rate-lease.ts).
   */
  consume(buckets: RateBucket[]): Promise<RateDecision>;
  /** Messages between processes (Redis pub/sub, or in-process); channels are namespaced like keys. */
  publish: Bus['publish'];
  subscribe: Bus['subscribe'];
  /** Replay logs of realtime streams, published on the bus channel of the stream's name. */
  eventLog: EventLog;
  /** Capped counts of things held across processes (open realtime connections). */
  leases: Leases;
  close(): Promise<void>;
}

export interface CacheOptions {
  /** How long a Redis connection attempt or command may take before it fails (503). */
  timeoutMs?: number;
}

/** Keys are namespaced by `prefix` (the platform database name), so installations sharing a Redis never collide. */
export async function createCache(
  redisUrl: string | undefined,
  prefix: string,
  options: CacheOptions = {},
): Promise<Cache> {
  const cache = redisUrl ? await createRedisCache(redisUrl, options.timeoutMs ?? 5000) : createMemoryCache();
  const k = (key: string) => `${prefix}:${key}`;
  const run = <T>(work: () => Promise<T>) => work().catch(unavailable);
  // Callers keep their bucket objects (services/rate-limits.ts): each is prefixed once.
  const prefixed = new WeakMap<RateBucket, RateBucket>();
  const withPrefix = (bucket: RateBucket) => {
    let found = prefixed.get(bucket);
    if (!found) prefixed.set(bucket, (found = { ...bucket, key: k(bucket.key) }));
    return found;
  };
  return {
    ...cache,
    ping: () => run(() => cache.ping()),
    get: (key) => run(() => cache.get(k(key))),
    set: (key, value, ttl) => run(() => cache.set(k(key), value, ttl)),
    del: (key) => run(() => cache.del(k(key))),
    incr: (key, ttl, by) => run(() => cache.incr(k(key), ttl, by)),
    decr: (key) => run(() => cache.decr(k(key))),
    consume: (buckets) => run(() => cache.consume(buckets.map(withPrefix))),
    publish: (channel, message) => run(() => cache.publish(k(channel), message)),
    subscribe: (channel, handler: BusHandler) => run(() => cache.subscribe(k(channel), handler)),
    eventLog: {
      append: (stream, payload, limits) => run(() => cache.eventLog.append(k(stream), payload, limits)),
      open: (stream, limits, after) => run(() => cache.eventLog.open(k(stream), limits, after)),
    },
    leases: {
      acquire: (set, member, limit, ttl) => run(() => cache.leases.acquire(k(set), member, limit, ttl)),
      renew: (set, members, ttl) => run(() => cache.leases.renew(k(set), members, ttl)),
      release: (set, member) => run(() => cache.leases.release(k(set), member)),
    },
  };
}

/**
 * The one translation of Redis failures: anything but an error reply of the server (a refused
 * command, a bug of ours) means the cache cannot be reached: closed or reconnecting client,
 * refused connection, command timeout.
 */
function unavailable(err: unknown): never {
  if (err instanceof ErrorReply) throw err;
  throw dependencyUnavailable('cache', err);
}

async function createRedisCache(url: string, timeoutMs: number): Promise<Cache> {
  const client = createClient({
    url,
    socket: {
      connectTimeout: timeoutMs,
      reconnectStrategy: (retries) => Math.min(retries * 100, 2000),
    },
    // Commands fail at once while disconnected instead of queueing until the server is back, and
    // a command on a connection that stopped answering (no reset, a dropped network) fails after
    // the timeout instead of waiting for TCP to give up.
    disableOfflineQueue: true,
    commandOptions: { timeout: timeoutMs },
  });
  client.on('error', () => {
    // Connection errors surface through the failing command and the health check; the client
    // reconnects by itself.
  });
  await client.connect();
  const bus = redisBus(
    (channel, message) => client.publish(channel, message),
    () => {
      const subscriber = client.duplicate();
      subscriber.on('error', () => {
        // Reconnects by itself and subscribes again; messages published meanwhile are missed.
      });
      return { subscriber: subscriber as unknown as Subscriber, connected: subscriber.connect() };
    },
  );
  // Scripts go by digest (EVALSHA); a server that lost them (restart) gets them again once.
  const shas = new Map<string, string>();
  const runScript = async (script: string, keys: string[], args: string[]) => {
    const options = { keys, arguments: args };
    const sha = shas.get(script);
    if (sha) {
      try {
        return await client.evalSha(sha, options);
      } catch (err) {
        if (!(err instanceof ErrorReply && err.message.startsWith('NOSCRIPT'))) throw err;
      }
    }
    shas.set(script, await client.scriptLoad(script));
    return client.eval(script, options);
  };
  const rateLimits = rateLeases(async (buckets, want, refund) => {
    const keys = buckets.map((b) => b.key);
    const reply = await runScript(RATE_LIMIT_SCRIPT, keys, scriptArguments(buckets, want, refund));
    return parseScriptReply(reply as number[], buckets.length);
  });
  return {
    kind: 'redis',
    publish: bus.publish,
    subscribe: bus.subscribe,
    eventLog: redisEventLog({ run: runScript }),
    leases: redisLeases({ run: runScript, zrem: (key, member) => client.zRem(key, member) }),
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
    async incr(key, ttlSeconds, by = 1) {
      const [count] = await client.multi().incrBy(key, by).expire(key, ttlSeconds, 'NX').exec();
      return Number(count);
    },
    async decr(key) {
      // DECR keeps the key's expiry; on a counter that expired meanwhile it would start a new
      // one at -1 without expiry, so a result at or below zero removes the key.
      if ((await client.decr(key)) <= 0) await client.del(key);
    },
    consume: rateLimits.consume,
    async close() {
      rateLimits.close();
      await bus.close();
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
  const limiter = memoryRateLimiter();
  const bus = memoryBus();
  const eventLog = memoryEventLog(bus);
  const leases = memoryLeases();
  return {
    kind: 'memory',
    publish: bus.publish,
    subscribe: bus.subscribe,
    eventLog,
    leases,
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
    async incr(key, ttlSeconds, by = 1) {
      const entry = live(key);
      const value = String(Number(entry?.value ?? 0) + by);
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
    async consume(buckets) {
      return limiter.consume(buckets);
    },
    async close() {
      clearInterval(sweep);
      limiter.close();
      eventLog.close();
      leases.close();
      await bus.close();
      entries.clear();
    },
  };
}
