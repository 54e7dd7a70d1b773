// Short-window rate limits of the AI tools, next to the monthly caps: per project and per
// developer, token buckets on the shared cache (src/cache/rate-limit.ts; both charged or neither).
// On the platform key a few requests a minute (AI_PLATFORM_REQUESTS_PER_MINUTE), since the
// platform pays for each; on a supplied key more (AI_REQUESTS_PER_MINUTE), since only the calls
// this process makes for the developer are at stake.
import { ApiError } from '../../http/errors.js';
import type { Cache, RateBucket } from '../../cache/index.js';
import type { KeySource } from './types.js';

const PERIOD_MS = 60_000;

export interface AiRates {
  /** Requests per minute per project and per developer on the platform key. */
  platformRequestsPerMinute: number;
  /** The same on a supplied key. */
  requestsPerMinute: number;
}

export function aiThrottle(cache: Pick<Cache, 'consume'>, settings: AiRates) {
  return async function throttle(projectId: string, developerId: string, source: KeySource): Promise<void> {
    const tier = source === 'platform' ? 'platform' : 'supplied';
    const limit = tier === 'platform' ? settings.platformRequestsPerMinute : settings.requestsPerMinute;
    const rates = { project: limit, developer: limit };
    const buckets: (RateBucket & { what: string })[] = [
      { key: `ai:${tier}:p:${projectId}`, limit: rates.project, periodMs: PERIOD_MS, what: 'per project' },
      {
        key: `ai:${tier}:d:${developerId}`,
        limit: rates.developer,
        periodMs: PERIOD_MS,
        what: 'per developer',
      },
    ];
    const decision = await cache.consume(buckets);
    if (decision.allowed) return;
    let refusing = 0;
    decision.states.forEach((state, i) => {
      if (state.retryAfterMs > decision.states[refusing]!.retryAfterMs) refusing = i;
    });
    const bucket = buckets[refusing]!;
    const seconds = Math.max(Math.ceil(decision.states[refusing]!.retryAfterMs / 1000), 1);
    const onKey = tier === 'platform' ? "on the platform's AI key" : 'on a supplied AI key';
    throw new ApiError(
      429,
      'AI_RATE_LIMITED',
      `Too many AI requests: at most ${bucket.limit} a minute ${bucket.what} ${onKey}; retry after ${seconds} s`,
      undefined,
      { 'Retry-After': String(seconds) },
    );
  };
}

export type AiThrottle = ReturnType<typeof aiThrottle>;
