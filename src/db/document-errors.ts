// How a query, write or pipeline on a project collection is bounded in time, and how the driver's
// refusals become the ApiError a client sees (11000 -> 409 naming the field, malformed queries ->
// 400 in our own words, a time limit -> 400 QUERY_TIMEOUT).
import { MongoOperationTimeoutError, MongoServerError } from 'mongodb';
import { badRequest, conflict } from '../http/errors.js';
import { duplicateKeyField, isDuplicateKey } from './errors.js';
import { ExternalDbTimeoutError } from './external-deadline.js';

const MAX_TIME_EXPIRED = 50;
/** Server answers to a malformed query or update, as opposed to a server-side failure. */
const CLIENT_ERROR_CODES = new Set([2, 9, 14, 15, 16, 28, 40, 52, 55, 56, 57, 10334, 17419, 51091]);
/** Server answers that say the server, not the pipeline, has a problem. */
const SERVER_ERROR_CODES = new Set([
  6, 7, 11, 13, 18, 89, 91, 112, 117, 189, 202, 262, 10107, 11600, 11601, 11602, 13435, 13436,
]);

/** What a client reads when the database refuses what it asked for. */
const REFUSED = {
  pipeline:
    'Invalid pipeline: the database cannot run it; check the stage and operator names and their arguments',
  write: 'Invalid update: the database cannot apply it; check the field paths and value types',
  query: 'Invalid query: the database cannot run it; check the filter values',
} as const;

/** What the driver is given to bound one read. */
export interface TimeLimit {
  maxTimeMS: number;
  signal: AbortSignal;
}

/**
 * Runs one read under its time limit: `maxTimeMS` for the server, and an abort signal for the
 * driver a little later. Real MongoDB stops the operation itself at `maxTimeMS` (code 50) and
 * keeps the connection; a server that ignores `maxTimeMS` (mongo-java-server does) would
 * otherwise keep the request waiting for as long as the query runs. The driver's `timeoutMS`
 * (CSOT) is still experimental in driver 6 and did not bound a read here; cursor reads take an
 * `AbortSignal`. The timer is cleared as soon as the read settles: `AbortSignal.timeout` would
 * keep a timer and a signal alive for the whole limit after every read, long enough to be
 * promoted out of the young generation under load. Driver errors are translated.
 */
export async function withTimeLimit<T>(
  timeoutMs: number,
  what: 'query' | 'pipeline',
  read: (limit: TimeLimit) => Promise<T>,
  /** An earlier deadline (a project's own database, external-deadline.ts), passed on as it is. */
  outer?: AbortSignal,
): Promise<T> {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs + Math.max(100, Math.round(timeoutMs / 10)));
  const passOn = () => controller.abort(outer?.reason);
  outer?.addEventListener('abort', passOn, { once: true });
  try {
    return await read({ maxTimeMS: timeoutMs, signal: controller.signal });
  } catch (err) {
    // The earlier deadline fired: its own error, not this read's time limit.
    return translateDriverError(
      outer?.aborted ? outer.reason : err,
      what,
      outer?.aborted ? undefined : controller.signal,
    );
  } finally {
    clearTimeout(timer);
    outer?.removeEventListener('abort', passOn);
  }
}

const isTimeLimit = (err: unknown, signal?: AbortSignal) =>
  signal?.aborted === true ||
  err instanceof MongoOperationTimeoutError ||
  (err instanceof MongoServerError && err.code === MAX_TIME_EXPIRED);

/**
 * Rethrows a driver error as the ApiError a client should see, or as is for server failures.
 * `signal` is the read's deadline: once it fired, whatever the driver reports is the time limit.
 */
export function translateDriverError(
  err: unknown,
  what: 'query' | 'write' | 'pipeline',
  signal?: AbortSignal,
): never {
  if (err instanceof ExternalDbTimeoutError) throw err;
  if (isTimeLimit(err, signal)) {
    throw badRequest(
      `The ${what} took longer than the time limit; narrow the filter or add a $limit`,
      undefined,
      'QUERY_TIMEOUT',
    );
  }
  if (isDuplicateKey(err)) {
    const field = duplicateKeyField(err) ?? 'a unique field';
    throw conflict(
      `Duplicate value for "${field}": it must be unique in this collection`,
      'DUPLICATE_VALUE',
      [{ path: field, message: `${field} must be unique` }],
    );
  }
  if (err instanceof MongoServerError) {
    const code = typeof err.code === 'number' ? err.code : undefined;
    // A server error without a code comes from a server that could not run what was asked (some
    // MongoDB-compatible servers answer an invalid regular expression so); MongoDB always sets one.
    const clientError =
      code === undefined ||
      (what === 'pipeline' ? !SERVER_ERROR_CODES.has(code) : CLIENT_ERROR_CODES.has(code));
    if (clientError) {
      // Our own words: the server's message can quote internals (database and collection
      // names, server versions). It stays on the error as its cause, for the log.
      const refused = badRequest(
        REFUSED[what],
        undefined,
        what === 'pipeline' ? 'INVALID_PIPELINE' : 'BAD_REQUEST',
      );
      throw Object.assign(refused, { cause: err });
    }
  }
  throw err;
}
