// The public API's rate limits on the wire: which operations are limited (those taking an API
// key; not health, docs, signed upload URLs or file downloads), the RateLimit-* headers on every
// answer of a limited operation, and the 429 with Retry-After. The counting is in
// src/services/rate-limits.ts.
import type { Context } from 'koa';
import type { ApiRateLimits, RateCheck } from '../services/rate-limits.js';
import type { Principal } from '../services/context.js';
import { ApiError } from './errors.js';
import { setHeaders } from './headers.js';

type SecurityRequirement = Record<string, string[]>;

/** Wraps the credential resolution of one operation; see buildRouter's `gate`. */
export type SecurityGate = (ctx: Context, resolve: () => Promise<Principal>) => Promise<Principal>;

const WINDOW_SECONDS = 60;
const API_KEY_SCHEMES = ['apiKey', 'apiKeyQuery'];

/** IETF draft names (draft-ietf-httpapi-ratelimit-headers), values in seconds. */
function headersOf(check: RateCheck): Record<string, string> {
  return {
    'RateLimit-Limit': String(check.limit),
    'RateLimit-Remaining': String(check.remaining),
    'RateLimit-Reset': String(check.resetSeconds),
    'RateLimit-Policy': `${check.limit};w=${WINDOW_SECONDS}`,
  };
}

function refusal(check: RateCheck): ApiError {
  const which =
    check.scope === 'project'
      ? `the project's limit of ${check.limit} requests per minute`
      : check.scope === 'client'
        ? `the limit of ${check.limit} requests per minute from one client IP address to this project (its share of the publishable key's budget)`
        : `the limit of ${check.limit} requests per minute from one client IP address`;
  return new ApiError(
    429,
    'RATE_LIMITED',
    `Rate limit reached: ${which}; retry after ${check.retryAfterSeconds} s`,
    undefined,
    { ...headersOf(check), 'Retry-After': String(check.retryAfterSeconds) },
  );
}

/** A failed key check is charged to the client IP: floods with bad keys are limited too. */
const authFailure = (err: unknown) => err instanceof ApiError && (err.status === 401 || err.status === 403);

/**
 * `onCall` is told of every request let through with a project's key (usage accounting; must be
 * cheap); `knownSecretKey` says whether a key has resolved as a secret key in this process.
 */
export function rateLimitGates(
  limits: ApiRateLimits,
  onCall?: (projectId: string) => void,
  knownSecretKey: (key: string) => boolean = () => false,
) {
  const gate: SecurityGate = async (ctx, resolve) => {
    const early = limits.refusedEarly(ctx.ip, ctx.get('x-api-key'), knownSecretKey);
    if (early) throw refusal(early);
    let principal: Principal;
    try {
      principal = await resolve();
    } catch (err) {
      if (authFailure(err)) {
        const check = await limits.charge({ ip: ctx.ip });
        if (check && !check.allowed) throw refusal(check);
        if (check) setHeaders(ctx, headersOf(check));
      }
      throw err;
    }
    const check = await limits.charge({ ip: ctx.ip, project: principal.project, keyKind: principal.keyKind });
    if (check && !check.allowed) throw refusal(check);
    if (check) setHeaders(ctx, headersOf(check));
    if (principal.project) onCall?.(principal.project.id);
    return principal;
  };
  /** The gate of an operation, chosen once at start: only operations that take an API key. */
  return (security: SecurityRequirement[]): SecurityGate | undefined =>
    security.some((requirement) => API_KEY_SCHEMES.some((scheme) => scheme in requirement))
      ? gate
      : undefined;
}
