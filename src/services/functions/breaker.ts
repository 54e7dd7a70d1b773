// The circuit breaker of each HTTP hook, kept in the shared cache so every process sees one state:
// after `failures` failed calls in a row it opens (calls are refused at once with 503
// FUNCTION_CIRCUIT_OPEN under either failure policy, without reaching the endpoint); once `cooldownMs` has passed it is half-open and lets one trial
// call through, across every process; a success closes it, a failure opens it again.
import type { Cache } from '../../cache/index.js';
import type { BreakerState } from './types.js';

export interface BreakerSettings {
  failures: number;
  cooldownMs: number;
}

const DAY_SECONDS = 24 * 3600;

export function hookBreakers(cache: Cache, settings: BreakerSettings, now = () => Date.now()) {
  const keys = (id: string) => ({
    failures: `fnbrk:f:${id}`,
    opened: `fnbrk:o:${id}`,
    trial: `fnbrk:t:${id}`,
  });

  async function read(id: string): Promise<{ failures: number; openedAt: number | null }> {
    const k = keys(id);
    const [failures, opened] = await Promise.all([cache.get(k.failures), cache.get(k.opened)]);
    return { failures: Number(failures ?? 0), openedAt: opened ? Number(opened) : null };
  }

  async function state(id: string): Promise<BreakerState> {
    const { failures, openedAt } = await read(id);
    if (openedAt === null)
      return { state: 'closed', consecutiveFailures: failures, openedAt: null, retryAt: null };
    const retryAt = openedAt + settings.cooldownMs;
    const opened = new Date(openedAt).toISOString();
    if (now() >= retryAt)
      return { state: 'halfOpen', consecutiveFailures: failures, openedAt: opened, retryAt: null };
    return {
      state: 'open',
      consecutiveFailures: failures,
      openedAt: opened,
      retryAt: new Date(retryAt).toISOString(),
    };
  }

  return {
    state,
    /**
     * 0 when a call may go out now (closed, or the one trial of a half-open breaker), else the
     * milliseconds until one may try again: the rest of the cool-down, or about a deadline while
     * another call makes the trial.
     */
    async admit(id: string): Promise<number> {
      const { openedAt } = await read(id);
      if (openedAt === null) return 0;
      const left = settings.cooldownMs - (now() - openedAt);
      if (left > 0) return left;
      // One trial across every process: the first to count it goes; it expires with a cool-down.
      const ttl = Math.max(1, Math.ceil(settings.cooldownMs / 1000));
      return (await cache.incr(keys(id).trial, ttl)) === 1 ? 0 : 1000;
    },
    async succeeded(id: string): Promise<void> {
      const k = keys(id);
      await Promise.all([cache.del(k.failures), cache.del(k.opened), cache.del(k.trial)]);
    },
    async failed(id: string): Promise<void> {
      const k = keys(id);
      const failures = await cache.incr(k.failures, DAY_SECONDS);
      if (failures >= settings.failures) {
        await cache.set(k.opened, String(now()), DAY_SECONDS);
        await cache.del(k.trial);
      }
    },
  };
}

export type HookBreakers = ReturnType<typeof hookBreakers>;
