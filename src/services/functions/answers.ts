// How a function's answer is read, the same for the HTTP and the hosted runtime (contract.md),
// and the one answer when a project runs too many functions at once.
import { ApiError } from '../../http/errors.js';

/** Past the plan's functions at once or the runner pool's share: the client's to retry. */
export const functionConcurrency = (message: string) =>
  new ApiError(429, 'FUNCTION_CONCURRENCY', message, undefined, { 'Retry-After': '1' });

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
