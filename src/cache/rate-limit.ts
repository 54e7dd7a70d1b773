// Rate-limit buckets on the shared cache: GCRA, a token bucket kept as one number per key (the
// "theoretical arrival time"). A bucket of `limit` requests refills continuously over `periodMs`,
// so there is no window edge where twice the limit gets through, and one key costs O(1) memory.
// Several buckets (the client IP's and the project's) are checked and charged in one atomic step:
// a request is charged to every bucket or to none, so a refused request costs nothing. The
// emission interval is stored with the arrival time, so that when a limit changes (an operator
// override) the requests already in the bucket keep their count, not their duration.
//
// In Redis this is one Lua script, timed by the server's clock so that instances with skewed
// clocks agree. It charges several requests at once (a process's lease of tokens, see
// rate-lease.ts) and takes back the unused ones of an earlier lease. rate-limiter-flexible was
// considered: its stores count fixed windows (the 2x edge burst) and charge one limiter per call
// (two round trips here).

export interface RateBucket {
  key: string;
  /** Requests allowed per period (the bucket's size). */
  limit: number;
  periodMs: number;
}

export interface RateState {
  /** Requests that could still be made now. */
  remaining: number;
  /** Milliseconds until the bucket is full again. */
  resetMs: number;
  /** Milliseconds until the next request fits (0 when one fits now). */
  retryAfterMs: number;
}

export interface RateDecision {
  allowed: boolean;
  /** One per bucket, in the order given, after this request was charged (or refused). */
  states: RateState[];
}

/** Float errors must not turn a whole remaining request into none. */
const EPSILON = 1e-6;

export interface StoredTat {
  tat: number;
  interval: number;
}

/**
 * What one bucket holds (in requests) once `refund` unused requests are given back: the arrival
 * time moves back by refund intervals, never below now (an idle bucket cannot go into credit).
 */
function heldOf(stored: StoredTat | undefined, now: number, limit: number, refund: number): number {
  if (!stored) return 0;
  const tat = stored.tat - refund * stored.interval;
  return tat > now ? Math.min((tat - now) / stored.interval, limit) : 0;
}

function stateOf(tat: number, now: number, bucket: Omit<RateBucket, 'key'>): RateState {
  const interval = bucket.periodMs / bucket.limit;
  const used = Math.max(tat - now, 0);
  return {
    remaining: Math.max(Math.floor((bucket.periodMs - used) / interval + EPSILON), 0),
    resetMs: Math.ceil(used),
    retryAfterMs: Math.max(Math.ceil(used + interval - bucket.periodMs), 0),
  };
}

export interface RateGrant {
  /** Requests charged to every bucket: the most, up to `want`, that fit in all (0 = refused). */
  granted: number;
  /** One per bucket, in the order given, after the grant (or the refusal). */
  states: RateState[];
}

/**
 * The GCRA step for several buckets and `want` requests at once, after giving back `refund`
 * requests leased earlier and not used (src/cache/rate-lease.ts). Mirrored by the Lua script.
 */
export function grant(
  tats: (StoredTat | undefined)[],
  now: number,
  buckets: Omit<RateBucket, 'key'>[],
  want = 1,
  refund = 0,
): RateGrant & { tats: number[] } {
  let granted = want;
  const bases = buckets.map((bucket, i) => {
    const interval = bucket.periodMs / bucket.limit;
    const base = now + heldOf(tats[i], now, bucket.limit, refund) * interval;
    const room = Math.max(Math.floor((bucket.periodMs - (base - now)) / interval + EPSILON), 0);
    granted = Math.min(granted, room);
    return base;
  });
  granted = Math.max(granted, 0);
  const after = bases.map((base, i) => base + granted * (buckets[i]!.periodMs / buckets[i]!.limit));
  return { granted, tats: after, states: buckets.map((bucket, i) => stateOf(after[i]!, now, bucket)) };
}

/** One request: the memory store's step (it needs no leases: it makes no round trip). */
export function decide(
  tats: (StoredTat | undefined)[],
  now: number,
  buckets: Omit<RateBucket, 'key'>[],
): { allowed: boolean; tats: number[]; states: RateState[] } {
  const { granted, tats: after, states } = grant(tats, now, buckets);
  return { allowed: granted === 1, tats: after, states };
}

/**
 * KEYS: one per bucket. ARGV: want, refund, then limit and period (ms) of each bucket in turn.
 * Returns [granted, remaining1, resetMs1, retryAfterMs1, remaining2, ...] (integers: Redis
 * truncates). A refund is written even when nothing is granted.
 */
export const RATE_LIMIT_SCRIPT = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local eps = 1e-6
local want, refund = tonumber(ARGV[1]), tonumber(ARGV[2])
local n = #KEYS
local base, granted = {}, want
for i = 1, n do
  local limit, period = tonumber(ARGV[2 * i + 1]), tonumber(ARGV[2 * i + 2])
  local interval = period / limit
  local tat = now
  local raw = redis.call('GET', KEYS[i])
  if raw then
    local sep = string.find(raw, ':', 1, true)
    local storedInterval = tonumber(string.sub(raw, sep + 1))
    local stored = tonumber(string.sub(raw, 1, sep - 1)) - refund * storedInterval
    if stored > now then tat = now + math.min((stored - now) / storedInterval, limit) * interval end
  end
  base[i] = tat
  local room = math.max(math.floor((period - (tat - now)) / interval + eps), 0)
  if room < granted then granted = room end
end
if granted < 0 then granted = 0 end
local out = { granted }
for i = 1, n do
  local limit, period = tonumber(ARGV[2 * i + 1]), tonumber(ARGV[2 * i + 2])
  local interval = period / limit
  local tat = base[i] + granted * interval
  if granted > 0 or refund > 0 then
    redis.call('SET', KEYS[i], string.format('%.17g:%.17g', tat, interval), 'PX', math.max(math.ceil(tat - now), 1))
  end
  local used = tat - now
  out[#out + 1] = math.max(math.floor((period - used) / interval + eps), 0)
  out[#out + 1] = math.ceil(used)
  out[#out + 1] = math.max(math.ceil(used + interval - period), 0)
end
return out
`;

export function parseScriptReply(reply: number[], count: number): RateGrant {
  const states: RateState[] = [];
  for (let i = 0; i < count; i++) {
    const [remaining, resetMs, retryAfterMs] = reply.slice(1 + i * 3, 4 + i * 3).map(Number);
    states.push({ remaining: remaining!, resetMs: resetMs!, retryAfterMs: retryAfterMs! });
  }
  return { granted: Number(reply[0]), states };
}

export const scriptArguments = (buckets: RateBucket[], want: number, refund: number) => [
  String(want),
  String(refund),
  ...buckets.flatMap((b) => [String(b.limit), String(b.periodMs)]),
];

/** The in-process store: the same algorithm over a map of arrival times (one instance only). */
export function memoryRateLimiter() {
  const tats = new Map<string, StoredTat>();
  const sweep = setInterval(() => {
    const now = Date.now();
    for (const [key, entry] of tats) if (entry.tat <= now) tats.delete(key);
  }, 60_000);
  sweep.unref();
  return {
    consume(buckets: RateBucket[]): RateDecision {
      const now = Date.now();
      const result = decide(
        buckets.map((b) => tats.get(b.key)),
        now,
        buckets,
      );
      if (result.allowed) {
        buckets.forEach((b, i) => tats.set(b.key, { tat: result.tats[i]!, interval: b.periodMs / b.limit }));
      }
      return { allowed: result.allowed, states: result.states };
    },
    close() {
      clearInterval(sweep);
      tats.clear();
    },
  };
}
