// The project's invocations per month (functionInvocationsPerMonth), counted across every process
// in the shared cache without one round trip per call. As the rate limits do (cache/rate-lease.ts),
// a busy process charges a small batch of invocations to the month's counter at once and hands
// them out locally until they run out or LEASE_MS passes; concurrent calls that find the batch
// empty wait for the one charge in flight. What a batch leaves unused is given back when it
// expires, and on close.
//
// Bounds: a charge happens before the calls it admits, so the limit is never passed; a process
// holds at most 1/REMAINING_SHARE of what the counter last left (and MAX_LEASE) for LEASE_MS, so
// another process may be refused meanwhile although those invocations are not used yet, and the
// counter reads high by that much until they are given back (for good if the process dies before
// that). A batch is one invocation (a round trip per call, exact, as before) while the project's
// calls are few or its month is nearly used up.
import type { Cache } from '../../cache/index.js';
import { recentCount, type RecentCount } from '../../lib/recent-count.js';
import type { Logger } from '../../lib/logger.js';

export const LEASE_MS = 1000;
export const REMAINING_SHARE = 16;
export const MAX_LEASE = 128;
/** Calls are counted over the current and the previous window: the last 100 to 200 ms. */
const RATE_WINDOW_MS = 100;
/** Longer than any month: the counter of a month outlives it a little, then expires. */
export const MONTH_SECONDS = 32 * 24 * 3600;

/** The shared counter of a project's invocations in a UTC month (`YYYY-MM`). */
export const monthKey = (projectId: string, month: string) => `fninv:${projectId}:${month}`;

/** Seconds from `at` until the first of the next month, 00:00 UTC (when the month's count starts again). */
export function secondsToNextMonth(at: number): number {
  const date = new Date(at);
  return Math.ceil((Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1) - at) / 1000);
}

/** Told what the counter reads after each charge (the quota warnings, quota-warnings.ts). */
export type MonthObserver = (projectId: string, month: string, used: number, limit: number) => void;

interface Lease {
  key: string;
  projectId: string;
  month: string;
  tokens: number;
  expiresAt: number;
  /** The limit minus the counter, as the last charge left it; undefined before any. */
  remaining?: number;
  recent: RecentCount;
  charging?: Promise<void>;
  giveBack?: NodeJS.Timeout;
}

/** How many invocations one charge takes: the recent calls, bounded by the share and MAX_LEASE. */
export function chargeSize(recent: number, remaining: number | undefined): number {
  if (remaining === undefined) return 1;
  return Math.max(1, Math.min(recent, Math.floor(remaining / REMAINING_SHARE), MAX_LEASE));
}

/** The UTC month of a time as `YYYY-MM`, remembered until the month ends (a call needs it each time). */
function monthNamer() {
  let name = '';
  let from = 0;
  let until = 0;
  return (at: number): string => {
    if (at < from || at >= until) {
      const date = new Date(at);
      from = Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1);
      until = Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + 1, 1);
      name = date.toISOString().slice(0, 7);
    }
    return name;
  };
}

export function monthAllowance(
  cache: Pick<Cache, 'incr'>,
  log: Logger,
  now = () => Date.now(),
  observe: MonthObserver = () => undefined,
) {
  const leases = new Map<string, Lease>();
  const monthOf = monthNamer();
  let closed = false;

  /** Unused invocations of an expired batch go back to the counter (in the background). */
  function giveBack(lease: Lease): Promise<void> {
    clearTimeout(lease.giveBack);
    lease.giveBack = undefined;
    const unused = lease.tokens;
    lease.tokens = 0;
    if (unused <= 0) return Promise.resolve();
    return cache
      .incr(lease.key, MONTH_SECONDS, -unused)
      .then(() => undefined)
      .catch((err: unknown) =>
        log.warn({ err, key: lease.key, unused }, 'function invocations: giving back a batch failed'),
      );
  }

  async function charge(lease: Lease, limit: number): Promise<void> {
    const want = closed ? 1 : chargeSize(lease.recent.total(), lease.remaining);
    const total = await cache.incr(lease.key, MONTH_SECONDS, want);
    // Only what fits under the limit is usable; the rest goes back at once.
    const usable = Math.max(0, Math.min(want, limit - (total - want)));
    observe(lease.projectId, lease.month, total - want + usable, limit);
    lease.remaining = Math.max(0, limit - total);
    if (usable < want) {
      cache
        .incr(lease.key, MONTH_SECONDS, usable - want)
        .catch((err: unknown) => log.warn({ err }, 'function invocations: giving back failed'));
    }
    lease.tokens = usable;
    lease.expiresAt = now() + LEASE_MS;
    clearTimeout(lease.giveBack);
    if (usable > 1) {
      lease.giveBack = setTimeout(() => void giveBack(lease), LEASE_MS);
      lease.giveBack.unref();
    }
  }

  const take = (lease: Lease) => {
    if (lease.tokens <= 0 || now() >= lease.expiresAt) return false;
    lease.tokens--;
    return true;
  };

  /** Leases of other months, and leases idle for a while, are given back and forgotten. */
  function forget(projectPrefix: string): void {
    const idleBefore = now() - 10 * LEASE_MS;
    for (const [key, lease] of leases) {
      if (lease.charging) continue;
      if (key.startsWith(projectPrefix) || (leases.size > 1000 && lease.expiresAt < idleBefore)) {
        void giveBack(lease);
        leases.delete(key);
      }
    }
  }

  return {
    /** Takes one invocation of the project's month (UTC); false once `limit` are used. */
    async admit(projectId: string, limit: number): Promise<boolean> {
      const at = now();
      const month = monthOf(at);
      const key = monthKey(projectId, month);
      let lease = leases.get(key);
      if (!lease) {
        forget(monthKey(projectId, ''));
        lease = { key, projectId, month, tokens: 0, expiresAt: 0, recent: recentCount(RATE_WINDOW_MS, at) };
        leases.set(key, lease);
      }
      lease.recent.add(1, at);
      if (take(lease)) return true;
      // One charge at a time per project: calls that find the batch empty share it.
      if (!lease.charging) {
        if (lease.tokens > 0) void giveBack(lease);
        const charging = charge(lease, limit).finally(() => {
          if (lease.charging === charging) lease.charging = undefined;
        });
        lease.charging = charging;
      }
      await lease.charging;
      if (take(lease)) return true;
      if (lease.remaining === 0) return false;
      // The shared batch went to others first: this call is charged on its own.
      const total = await cache.incr(key, MONTH_SECONDS);
      lease.remaining = Math.max(0, limit - total);
      observe(projectId, month, Math.min(total, limit), limit);
      return total <= limit;
    },

    /** Gives back every unused invocation (the process is stopping); later calls charge one by one. */
    async close(): Promise<void> {
      closed = true;
      await Promise.all([...leases.values()].map((lease) => giveBack(lease)));
      leases.clear();
    },
  };
}

export type MonthAllowance = ReturnType<typeof monthAllowance>;
