// How a function's answer is read, the same for the HTTP and the hosted runtime (contract.md),
// and the answers when a function is not run at all: too many at once, a quota spent, an open
// circuit breaker.
import { ApiError } from '../../http/errors.js';

/** Past the plan's functions at once or the runner pool's share: the client's to retry. */
export const functionConcurrency = (message: string) =>
  new ApiError(429, 'FUNCTION_CONCURRENCY', message, undefined, { 'Retry-After': '1' });

/**
 * Neither a success nor a failure of the function: it did not run, so no failure policy applies
 * and an `open` hook is never skipped for it (docs/functions.md, "Failure policy"). 429 when the
 * caller's own budget is spent (`functionInvocationsPerCallerPerDay`), 503 when the project's
 * month is (until the 1st, UTC); both with `Retry-After` in seconds.
 */
export const quotaExhausted = (status: 429 | 503, retryAfterSeconds: number, message: string) =>
  new ApiError(status, 'FUNCTION_QUOTA_EXHAUSTED', message, undefined, {
    'Retry-After': String(Math.max(1, Math.ceil(retryAfterSeconds))),
  });

/** An HTTP function's circuit breaker is open: not run, refused under either policy, like a quota. */
export const circuitOpen = (retryAfterMs: number) =>
  new ApiError(
    503,
    'FUNCTION_CIRCUIT_OPEN',
    "The function's endpoint failed repeatedly; its circuit breaker lets no call through until the cool-down ends",
    undefined,
    { 'Retry-After': String(Math.max(1, Math.ceil(retryAfterMs / 1000))) },
  );

/** The refusals thrown by the invoker that are not the function's own outcome. */
export const NOT_RUN_CODES: readonly string[] = [
  'FUNCTION_CONCURRENCY',
  'FUNCTION_QUOTA_EXHAUSTED',
  'FUNCTION_CIRCUIT_OPEN',
];

/** What a refusal may answer: the statuses every write operation documents (else 403). */
export const REFUSAL_STATUSES: readonly unknown[] = [400, 403];

export interface Refusal {
  status: number;
  code: string;
  message: string;
}

export const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A refusal in a function's answer, normalised (400 or 403, a code in capitals, a message). */
export function refusalOf(value: unknown): Refusal | undefined {
  if (!isObject(value) || !isObject(value.refuse)) return undefined;
  const { status, code, message } = value.refuse;
  return {
    status: REFUSAL_STATUSES.includes(status as number) ? (status as number) : 403,
    code: typeof code === 'string' && /^[A-Z0-9_]{1,40}$/.test(code) ? code : 'REFUSED',
    message: typeof message === 'string' && message.trim() ? message.slice(0, 500) : 'Refused by a hook',
  };
}
