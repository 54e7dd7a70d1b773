// Request limits of the public API (DECISIONS §1, §5): per project, its plan's requestsPerMinute
// (operator overrides applying), and per client IP (RATE_LIMIT_IP_PER_MINUTE), both token buckets
// in the shared cache (Redis when configured, so every process counts together; see
// src/cache/rate-limit.ts). One cache call charges both buckets (with Redis, from a lease of
// requests the process holds when it is busy: src/cache/rate-lease.ts).
import type { Cache, RateBucket, RateState } from '../cache/index.js';
import { projectLimits } from '../lib/plans.js';
import type { KeyKind, PlanName, Project } from './types.js';

const PERIOD_MS = 60_000;
/** How long a looked-up owner plan is used: a plan change reaches the limit within this time. */
const PLAN_TTL_MS = 60_000;
const MAX_PLANS = 10_000;

export type RateScope = 'project' | 'ip';

export interface RateCheck {
  allowed: boolean;
  /** The bucket the answer's headers describe: the refusing one, else the one with least left. */
  scope: RateScope;
  limit: number;
  remaining: number;
  resetSeconds: number;
  retryAfterSeconds: number;
  retryAfterMs: number;
}

type ScopedBucket = RateBucket & { scope: RateScope };

export interface RateSubject {
  ip: string;
  project?: Project;
  keyKind?: KeyKind;
}

export function apiRateLimits(
  cache: Cache,
  ipPerMinute: number,
  planOf: (developerId: string) => Promise<PlanName>,
) {
  const plans = new Map<string, { plan: PlanName; expiresAt: number }>();
  /** Client IPs refused by the IP bucket, until when: refused again here without a round trip. */
  const blocked = new Map<string, { until: number; check: RateCheck }>();

  /** The owner's plan: this process's copy while it is fresh, else read and kept. */
  async function ownerPlan(ownerId: string): Promise<PlanName> {
    const memo = plans.get(ownerId);
    if (memo && memo.expiresAt > Date.now()) return memo.plan;
    const plan = await planOf(ownerId);
    if (plans.size >= MAX_PLANS) plans.delete(plans.keys().next().value!);
    plans.set(ownerId, { plan, expiresAt: Date.now() + PLAN_TTL_MS });
    return plan;
  }

  /** The project's limit: the operator's override, else its owner's plan's. */
  async function requestsPerMinute(project: Project): Promise<number> {
    const override = project.limits.requestsPerMinute;
    if (override !== undefined) return override;
    return projectLimits(project, await ownerPlan(project.ownerId)).requestsPerMinute;
  }

  /**
   * The bucket of a project or client IP, kept while its limit stays the same: the cache finds a
   * lease by its buckets' keys, and the same key string each time is hashed once.
   */
  const kept = { project: new Map<string, ScopedBucket>(), ip: new Map<string, ScopedBucket>() };
  function bucketOf(scope: RateScope, id: string, limit: number): ScopedBucket {
    const ofScope = kept[scope];
    let bucket = ofScope.get(id);
    if (bucket?.limit !== limit) {
      if (!bucket && ofScope.size >= MAX_PLANS) ofScope.delete(ofScope.keys().next().value!);
      const key = scope === 'project' ? `rl:p:${id}` : `rl:ip:${id}`;
      ofScope.set(id, (bucket = { scope, key, limit, periodMs: PERIOD_MS }));
    }
    return bucket;
  }

  const toCheck = (allowed: boolean, scope: RateScope, limit: number, state: RateState): RateCheck => ({
    allowed,
    scope,
    limit,
    // Never more than the limit less this request: with a limit of millions a minute, the
    // bucket's arrival time (a float of milliseconds since 1970) cannot resolve one request, and a
    // lease adds what it holds to what Redis said remains, so the sum can come out a little above.
    remaining: Math.min(state.remaining, allowed ? limit - 1 : limit),
    resetSeconds: Math.ceil(state.resetMs / 1000),
    retryAfterSeconds: allowed ? 0 : Math.max(Math.ceil(state.retryAfterMs / 1000), 1),
    retryAfterMs: state.retryAfterMs,
  });

  return {
    /**
     * A refusal known in this process for a client IP still over its limit, so that a flood
     * (bad keys included) costs neither a key lookup nor a cache round trip. Secret-key requests
     * are not counted per IP, so they are never refused here.
     */
    refusedEarly(ip: string, secretKey: boolean): RateCheck | undefined {
      if (secretKey || ipPerMinute === 0) return undefined;
      const entry = blocked.get(ip);
      if (!entry) return undefined;
      const now = Date.now();
      if (entry.until <= now) {
        blocked.delete(ip);
        return undefined;
      }
      const retryAfterMs = entry.until - now;
      return { ...entry.check, retryAfterMs, retryAfterSeconds: Math.max(Math.ceil(retryAfterMs / 1000), 1) };
    },

    /**
     * Charges one request: to the project (when the key resolved) and to the client IP (unless
     * the request carries a valid secret key: server-side code often calls from one address).
     * Undefined when no limit applies.
     */
    async charge({ ip, project, keyKind }: RateSubject): Promise<RateCheck | undefined> {
      const charged: ScopedBucket[] = [];
      if (project) {
        const limit = await requestsPerMinute(project);
        // An override of 0 (or less) stops the project's API traffic altogether.
        if (!(limit > 0))
          return toCheck(false, 'project', 0, { remaining: 0, resetMs: PERIOD_MS, retryAfterMs: PERIOD_MS });
        charged.push(bucketOf('project', project.id, limit));
      }
      if (ipPerMinute > 0 && keyKind !== 'secret') {
        charged.push(bucketOf('ip', ip, ipPerMinute));
      }
      if (charged.length === 0) return undefined;
      const decision = await cache.consume(charged);
      const checks = charged.map((b, i) => toCheck(decision.allowed, b.scope, b.limit, decision.states[i]!));
      const shown = decision.allowed
        ? checks.reduce((a, b) => (b.remaining < a.remaining ? b : a))
        : checks.reduce((a, b) => (b.retryAfterSeconds > a.retryAfterSeconds ? b : a));
      if (!decision.allowed && shown.scope === 'ip') {
        if (blocked.size >= MAX_PLANS) blocked.delete(blocked.keys().next().value!);
        blocked.set(ip, { until: Date.now() + shown.retryAfterMs, check: shown });
      }
      return shown;
    },
  };
}

export type ApiRateLimits = ReturnType<typeof apiRateLimits>;
