// Values every process must learn as soon as they change (project versions, token revocations).
// A change is written to the shared cache and published on the cache's message bus; each process
// keeps what it learned (pushed, or read from the cache) and trusts it for LOCAL_VERSION_MS, then
// reads the cache again, so a message missed while the bus reconnected heals within that time.
// Until the subscription is confirmed (or after it failed) every read goes to the cache. A change
// returns once this process has its own message back from the bus: the server has then handed it
// to every subscriber, so a client that makes a change and at once calls another process is not
// served the old value by a message still on its way.
import type { Cache } from '../cache/index.js';

/** How long a value learned from the bus or the cache is trusted without asking the cache again. */
export const LOCAL_VERSION_MS = 1000;
const RESUBSCRIBE_MS = 1000;
/** How long a change waits for its own message to come back before it returns anyway. */
export const ECHO_WAIT_MS = 500;

export interface PushedValueOptions<T> {
  channel: string;
  /** The cache key holding a name's value. */
  cacheKey: (name: string) => string;
  /** A stored or published text as a value (null: nothing stored). */
  decode: (text: string | null) => T;
  encode: (value: T) => string;
  /** What a process keeps when it learns `next` while it knew `had` (default: `next`). */
  merge?: (had: T | undefined, next: T) => T;
  /** Called in every process for each value set by any of them. */
  onSet?: (name: string, value: T) => void;
  /** Names remembered at most (the oldest learned is forgotten first). */
  maxNames: number;
  now: () => number;
}

export function pushedValues<T>(cache: Cache, options: PushedValueOptions<T>) {
  const { channel, cacheKey, decode, encode, merge, onSet, maxNames, now } = options;
  /** name -> the value this process knows and when it learned it. */
  const known = new Map<string, { value: T; at: number }>();
  /** Bumped by every message: a cache read that started before one must not overwrite it. */
  let messages = 0;
  let listening = false;
  let subscribing: Promise<void> | undefined;
  let retryAt = 0;
  /** Published messages this process waits to receive back -> who waits. */
  const echoes = new Map<string, () => void>();

  function learn(name: string, value: T): T {
    if (known.size >= maxNames && !known.has(name)) known.delete(known.keys().next().value!);
    const kept = merge ? merge(known.get(name)?.value, value) : value;
    known.set(name, { value: kept, at: now() });
    return kept;
  }

  function onMessage(message: string) {
    const space = message.indexOf(' ');
    if (space <= 0) return;
    const name = message.slice(0, space);
    messages++;
    echoes.get(message)?.();
    // Learned apart from the call: `onSet?.(…)` would skip its arguments when there is no onSet.
    const value = learn(name, decode(message.slice(space + 1)));
    onSet?.(name, value);
  }

  function listen() {
    if (listening || subscribing || now() < retryAt) return;
    subscribing = cache
      .subscribe(channel, onMessage)
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

  return {
    /**
     * The value of a name when this process may use what it knows without asking the cache (the
     * usual case, without a promise); undefined when `get` must read the cache.
     */
    peek(name: string): T | undefined {
      listen();
      const local = known.get(name);
      return listening && local && now() - local.at < LOCAL_VERSION_MS ? local.value : undefined;
    },

    /** The current value of a name, as this process knows it or, when that is too old, from the cache. */
    async get(name: string): Promise<T> {
      listen();
      const local = known.get(name);
      if (listening && local && now() - local.at < LOCAL_VERSION_MS) return local.value;
      const seen = messages;
      const value = decode(await cache.get(cacheKey(name)));
      // A message that arrived during the read is at least as new as what the read returned.
      if (messages !== seen && known.has(name)) return known.get(name)!.value;
      return learn(name, value);
    },

    /** Stores a new value and pushes it to every process (this one at once). */
    async set(name: string, value: T, ttlSeconds: number): Promise<void> {
      const text = encode(value);
      await cache.set(cacheKey(name), text, ttlSeconds);
      messages++;
      const kept = learn(name, value);
      onSet?.(name, kept);
      // After the set: a process that misses the message reads the new value within LOCAL_VERSION_MS.
      const message = `${name} ${text}`;
      if (!listening || echoes.has(message)) {
        await cache.publish(channel, message);
        return;
      }
      let timer: NodeJS.Timeout | undefined;
      const echoed = new Promise<void>((resolve) => {
        echoes.set(message, resolve);
        timer = setTimeout(resolve, ECHO_WAIT_MS);
      });
      try {
        await cache.publish(channel, message);
        await echoed;
      } finally {
        clearTimeout(timer);
        echoes.delete(message);
      }
    },
  };
}
