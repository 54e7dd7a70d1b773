// Request limits of the public API (DECISIONS §1, §5), token buckets in the shared cache (Redis
// when configured, so every process counts together; see src/cache/rate-limit.ts). A project's
// limit (its plan's requestsPerMinute, operator overrides applying) is a budget for its secret
// key and another, of the same size, for its publishable key, so that browser clients cannot use
// up the budget of the project's servers; of the publishable budget one client IP may use a share
// (RATE_LIMIT_CLIENT_SHARE_PERCENT). Every request without a secret key also counts against its
// client IP across projects (RATE_LIMIT_IP_PER_MINUTE). One cache call charges every bucket of a
// request (with Redis, from a lease of requests the process holds when it is busy:
// src/cache/rate-lease.ts). IPv6 clients count by their /64 (src/lib/client-ip.ts).
import type { Cache, RateBucket, RateState } from '../cache/index.js';
import { clientIpKey } from '../lib/client-ip.js';
import { keyKindOf } from '../lib/secrets.js';
import { limitsOf, type PlanTable } from '../lib/plan-table.js';
import type { KeyKind, PlanName, Project } from './types.js';

const PERIOD_MS = 60_000;
/** How long a looked-up owner plan is used: a plan change reaches the limit within this time. */
const PLAN_TTL_MS = 60_000;
const MAX_PLANS = 10_000;

/** project: the key kind's budget of the project; client: one IP's share of the publishable budget; ip: one IP across projects. */
export type RateScope = 'project' | 'client' | 'ip';

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
  table: PlanTable,
  clientSharePercent = 100,
) {
  const plans = new Map<string, { plan: PlanName; expiresAt: number }>();
  /** Client IPs refused by the IP bucket, until when: refused again here without a round trip. */
  const blocked = new Map<string, { until: number; check: RateCheck; secretTried?: boolean }>();

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
    return limitsOf(table, project, await ownerPlan(project.ownerId)).requestsPerMinute;
  }

  /**
   * The bucket of a project's key kind, a project's client IP or a client IP, kept while its limit
   * stays the same: the cache finds a lease by its buckets' keys, and the same key string each
   * time is hashed once.
   */
  type Kept = 'secret' | 'publishable' | 'client' | 'ip';
  const PREFIX: Record<Kept, string> = {
    secret: 'rl:s:',
    publishable: 'rl:p:',
    client: 'rl:c:',
    ip: 'rl:ip:',
  };
  const SCOPE: Record<Kept, RateScope> = {
    secret: 'project',
    publishable: 'project',
    client: 'client',
    ip: 'ip',
  };
  const kept: Record<Kept, Map<string, ScopedBucket>> = {
    secret: new Map(),
    publishable: new Map(),
    client: new Map(),
    ip: new Map(),
  };
  function bucketOf(kind: Kept, id: string, limit: number): ScopedBucket {
    const ofKind = kept[kind];
    let bucket = ofKind.get(id);
    if (bucket?.limit !== limit) {
      if (!bucket && ofKind.size >= MAX_PLANS) ofKind.delete(ofKind.keys().next().value!);
      ofKind.set(id, (bucket = { scope: SCOPE[kind], key: PREFIX[kind] + id, limit, periodMs: PERIOD_MS }));
    }
    return bucket;
  }
  /** One client IP's share of a publishable budget: at least one request a minute. */
  const clientLimit = (limit: number) => Math.max(Math.floor((limit * clientSharePercent) / 100), 1);

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
     * are not counted per IP: a secret key this process has seen resolve (`knownSecret`) goes on,
     * and an unknown one gets one lookup per blocked IP and window (a server's first call after a
     * restart). Past that, a key merely shaped like a secret key is refused like any other, or a
     * flood would skip this check by choosing its prefix.
     */
    refusedEarly(ip: string, key: string, knownSecret: (key: string) => boolean): RateCheck | undefined {
      if (ipPerMinute === 0 || blocked.size === 0) return undefined;
      const client = clientIpKey(ip);
      const entry = blocked.get(client);
      if (!entry) return undefined;
      const now = Date.now();
      if (entry.until <= now) {
        blocked.delete(client);
        return undefined;
      }
      if (keyKindOf(key) === 'secret') {
        if (knownSecret(key)) return undefined;
        if (!entry.secretTried) {
          entry.secretTried = true;
          return undefined;
        }
      }
      const retryAfterMs = entry.until - now;
      return { ...entry.check, retryAfterMs, retryAfterSeconds: Math.max(Math.ceil(retryAfterMs / 1000), 1) };
    },

    /**
     * Charges one request: to its key kind's budget of the project (when the key resolved); unless
     * the key is secret (server-side code often calls from one address), to its client IP's share
     * of the publishable budget and to the client IP. Undefined when no limit applies.
     */
    async charge({ ip, project, keyKind }: RateSubject): Promise<RateCheck | undefined> {
      const charged: ScopedBucket[] = [];
      const secret = keyKind === 'secret';
      const client = secret ? '' : clientIpKey(ip);
      if (project) {
        const limit = await requestsPerMinute(project);
        // An override of 0 (or less) stops the project's API traffic altogether.
        if (!(limit > 0))
          return toCheck(false, 'project', 0, { remaining: 0, resetMs: PERIOD_MS, retryAfterMs: PERIOD_MS });
        if (secret) charged.push(bucketOf('secret', project.id, limit));
        else {
          charged.push(bucketOf('publishable', project.id, limit));
          if (clientSharePercent < 100)
            charged.push(bucketOf('client', `${project.id}:${client}`, clientLimit(limit)));
        }
      }
      if (ipPerMinute > 0 && !secret) {
        charged.push(bucketOf('ip', client, ipPerMinute));
      }
      if (charged.length === 0) return undefined;
      const decision = await cache.consume(charged);
      let shown = toCheck(decision.allowed, charged[0]!.scope, charged[0]!.limit, decision.states[0]!);
      for (let i = 1; i < charged.length; i++) {
        const check = toCheck(decision.allowed, charged[i]!.scope, charged[i]!.limit, decision.states[i]!);
        // Refused: the bucket that refused (the longest wait; the others have room, a wait of 0).
        const better = decision.allowed
          ? check.remaining < shown.remaining
          : check.retryAfterMs > shown.retryAfterMs;
        if (better) shown = check;
      }
      if (!decision.allowed && shown.scope === 'ip') {
        if (blocked.size >= MAX_PLANS) blocked.delete(blocked.keys().next().value!);
        blocked.set(client, { until: Date.now() + shown.retryAfterMs, check: shown });
      }
      return shown;
    },
  };
}

export type ApiRateLimits = ReturnType<typeof apiRateLimits>;
