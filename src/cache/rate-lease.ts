// Token leases over the shared rate-limit buckets, so that a busy process does not pay one Redis
// round trip per request. Per bucket set (the same keys), a process takes a small batch of
// requests from Redis at once (charged there to every bucket, like single requests) and hands
// them out locally until they run out or the lease expires. Concurrent requests that find the
// lease empty wait for the one fetch in flight instead of sending their own.
//
// The trade-off, and its bounds: a process holds at most 1/REMAINING_SHARE of what Redis last
// said remains (and at most MAX_LEASE requests) for at most LEASE_MS; another process may be
// refused meanwhile although those requests are not used yet. Unused ones are given back with
// the next fetch of the bucket set. When the batch would be a single request (little traffic, or
// a bucket close to its limit) every request makes its own round trip, as without leases, so the
// limit is exact where it matters and quiet clients see exact headers.
import { recentCount, type RecentCount } from '../lib/recent-count.js';
import type { RateBucket, RateDecision, RateGrant, RateState } from './rate-limit.js';

/** Charges up to `want` requests to every bucket after giving back `refund` (the Lua script). */
export type FetchGrant = (buckets: RateBucket[], want: number, refund: number) => Promise<RateGrant>;

/** How long leased requests may be used; unused ones are given back afterwards. */
export const LEASE_MS = 1000;
/** A lease takes at most this fraction (1/n) of what the most used bucket has left. */
export const REMAINING_SHARE = 16;
export const MAX_LEASE = 256;
/** Traffic is counted over the current and the previous window: the last 100 to 200 ms. */
const RATE_WINDOW_MS = 100;
/** Leases idle this long are forgotten (their unused requests then refill in Redis by themselves). */
const IDLE_MS = 10_000;

/**
 * How many requests one fetch asks for: about as many as this process saw in the last 100-200
 * ms, capped by the share of the remaining allowance and by MAX_LEASE. 1 (no lease) until Redis
 * has told what remains.
 */
export function leaseSize(seen: number, remaining: number | undefined): number {
  if (remaining === undefined) return 1;
  return Math.max(1, Math.min(seen, Math.floor(remaining / REMAINING_SHARE), MAX_LEASE));
}

/** What a request served from a lease reports: Redis's answer plus what this process still holds. */
export function leasedStates(states: RateState[], held: number, elapsedMs: number): RateState[] {
  return states.map((s) => ({
    remaining: s.remaining + held,
    resetMs: Math.max(s.resetMs - elapsedMs, 0),
    retryAfterMs: 0,
  }));
}

interface Lease {
  /** Requests left to hand out, valid until expiresAt (this process's clock). */
  tokens: number;
  expiresAt: number;
  grantedAt: number;
  /** Redis's answer to the fetch that granted the tokens. */
  states: RateState[];
  /** Unused requests of expired leases, given back with the next fetch. */
  refund: number;
  /** The least remaining over the buckets, as Redis last said; undefined before any answer. */
  remaining?: number;
  inflight?: Promise<RateGrant>;
  /** Requests of this bucket set seen lately (sizes the next lease). */
  seen: RecentCount;
  lastSeen: number;
}

export function rateLeases(fetchGrant: FetchGrant) {
  const leases = new Map<string, Lease>();
  const sweep = setInterval(() => {
    const now = Date.now();
    for (const [id, lease] of leases) {
      if (!lease.inflight && lease.lastSeen + IDLE_MS < now && lease.expiresAt < now) leases.delete(id);
    }
  }, IDLE_MS);
  sweep.unref();

  /** Counts one arrival; returns the arrivals of the last 100-200 ms, this one included. */
  function observe(lease: Lease, now: number): number {
    lease.seen.add(1, now);
    lease.lastSeen = now;
    return lease.seen.total();
  }

  const least = (states: RateState[]) => Math.min(...states.map((s) => s.remaining));

  /** Takes the refund along: if the call fails it is dropped (the limit errs on the strict side). */
  function send(lease: Lease, buckets: RateBucket[], want: number): Promise<RateGrant> {
    const refund = lease.refund;
    lease.refund = 0;
    return fetchGrant(buckets, want, refund).then((grant) => {
      lease.remaining = least(grant.states);
      return grant;
    });
  }

  /** The one fetch of a bucket set in flight; every waiter gets its answer or its error. */
  function fetchLease(lease: Lease, buckets: RateBucket[], size: number): Promise<RateGrant> {
    const inflight = send(lease, buckets, size)
      .then((grant) => {
        lease.tokens = grant.granted;
        lease.states = grant.states;
        lease.grantedAt = Date.now();
        lease.expiresAt = lease.grantedAt + LEASE_MS;
        return grant;
      })
      .finally(() => {
        if (lease.inflight === inflight) lease.inflight = undefined;
      });
    lease.inflight = inflight;
    return inflight;
  }

  return {
    async consume(buckets: RateBucket[]): Promise<RateDecision> {
      const id = buckets.length === 1 ? buckets[0]!.key : buckets.map((b) => b.key).join(' ');
      let lease = leases.get(id);
      if (!lease) {
        lease = {
          tokens: 0,
          expiresAt: 0,
          grantedAt: 0,
          states: [],
          refund: 0,
          seen: recentCount(RATE_WINDOW_MS),
          lastSeen: 0,
        };
        leases.set(id, lease);
      }
      const seen = observe(lease, Date.now());
      for (;;) {
        const now = Date.now();
        if (lease.tokens > 0) {
          if (lease.expiresAt > now) {
            lease.tokens--;
            return { allowed: true, states: leasedStates(lease.states, lease.tokens, now - lease.grantedAt) };
          }
          lease.refund += lease.tokens;
          lease.tokens = 0;
        }
        const size = leaseSize(seen, lease.remaining);
        if (size === 1) {
          // As without leases: one round trip of its own, never queued behind another fetch.
          const grant = await send(lease, buckets, 1);
          return { allowed: grant.granted > 0, states: grant.states };
        }
        const grant = await (lease.inflight ?? fetchLease(lease, buckets, size));
        // Refused while this request waited: the same answer holds for it.
        if (grant.granted === 0) return { allowed: false, states: grant.states };
        // Otherwise take from the lease, or fetch again if the others emptied it first.
      }
    },
    close() {
      clearInterval(sweep);
      leases.clear();
    },
  };
}
