// Rate-limit buckets on the shared cache: GCRA, a token bucket kept as one number per key (the
// "theoretical arrival time"). A bucket of `limit` requests refills continuously over `periodMs`,
// so there is no window edge where twice the limit gets through, and one key costs O(1) memory.
// Several buckets (the client IP's and the project's) are checked and charged in one atomic step:
// a request is charged to every bucket or to none, so a refused request costs nothing. The
// emission interval is stored with the arrival time, so that when a limit changes (an operator
// override) the requests already in the bucket keep their count, not their duration.
//
// In Redis this is one Lua script, one round trip per request, timed by the server's clock so
// that instances with skewed clocks agree. rate-limiter-flexible was considered: its stores count
// fixed windows (the 2x edge burst) and charge one limiter per call (two round trips here).

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

/** The GCRA step for one bucket, shared by the memory store and mirrored by the Lua script. */
function step(stored: StoredTat | undefined, now: number, bucket: Omit<RateBucket, 'key'>) {
  const interval = bucket.periodMs / bucket.limit;
  const held = stored && stored.tat > now ? Math.min((stored.tat - now) / stored.interval, bucket.limit) : 0;
  const base = now + held * interval;
  const next = base + interval;
  return { base, next, fits: next - now <= bucket.periodMs + EPSILON, interval };
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

export function decide(
  tats: (StoredTat | undefined)[],
  now: number,
  buckets: Omit<RateBucket, 'key'>[],
): { allowed: boolean; tats: number[]; states: RateState[] } {
  const steps = buckets.map((bucket, i) => step(tats[i], now, bucket));
  const allowed = steps.every((s) => s.fits);
  const after = steps.map((s) => (allowed ? s.next : s.base));
  return { allowed, tats: after, states: buckets.map((bucket, i) => stateOf(after[i]!, now, bucket)) };
}

/**
 * KEYS: one per bucket. ARGV: limit and period (ms) of each bucket in turn. Returns
 * [allowed, remaining1, resetMs1, retryAfterMs1, remaining2, ...] (integers: Redis truncates).
 */
export const RATE_LIMIT_SCRIPT = `
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000 + math.floor(tonumber(time[2]) / 1000)
local eps = 1e-6
local n = #KEYS
local base, nexts, allowed = {}, {}, 1
for i = 1, n do
  local limit, period = tonumber(ARGV[2 * i - 1]), tonumber(ARGV[2 * i])
  local interval = period / limit
  local tat = now
  local raw = redis.call('GET', KEYS[i])
  if raw then
    local sep = string.find(raw, ':', 1, true)
    local stored, storedInterval = tonumber(string.sub(raw, 1, sep - 1)), tonumber(string.sub(raw, sep + 1))
    if stored > now then tat = now + math.min((stored - now) / storedInterval, limit) * interval end
  end
  base[i] = tat
  nexts[i] = tat + interval
  if nexts[i] - now > period + eps then allowed = 0 end
end
local out = { allowed }
for i = 1, n do
  local limit, period = tonumber(ARGV[2 * i - 1]), tonumber(ARGV[2 * i])
  local interval = period / limit
  local tat = base[i]
  if allowed == 1 then
    tat = nexts[i]
    redis.call('SET', KEYS[i], string.format('%.17g:%.17g', tat, interval), 'PX', math.max(math.ceil(tat - now), 1))
  end
  local used = tat - now
  out[#out + 1] = math.max(math.floor((period - used) / interval + eps), 0)
  out[#out + 1] = math.ceil(used)
  out[#out + 1] = math.max(math.ceil(used + interval - period), 0)
end
return out
`;

export function parseScriptReply(reply: number[], count: number): RateDecision {
  const states: RateState[] = [];
  for (let i = 0; i < count; i++) {
    const [remaining, resetMs, retryAfterMs] = reply.slice(1 + i * 3, 4 + i * 3).map(Number);
    states.push({ remaining: remaining!, resetMs: resetMs!, retryAfterMs: retryAfterMs! });
  }
  return { allowed: Number(reply[0]) === 1, states };
}

export const scriptArguments = (buckets: RateBucket[]) =>
  buckets.flatMap((b) => [String(b.limit), String(b.periodMs)]);

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
