// Translation of driver errors the services care about.
import {
  MongoNetworkError,
  MongoNetworkTimeoutError,
  MongoServerError,
  MongoServerSelectionError,
  MongoTopologyClosedError,
} from 'mongodb';
import { dependencyUnavailable, externalDatabaseTimeout, type ApiError } from '../http/errors.js';
import { ExternalDbTimeoutError } from './external-deadline.js';

export const isDuplicateKey = (err: unknown): err is MongoServerError =>
  err instanceof MongoServerError && err.code === 11000;

/**
 * The field behind a duplicate-key error. Unique indexes on project collections are named
 * `u_<field>` (or `i_<name>` when declared); `keyValue` is used when the server reports it, the
 * index name otherwise.
 */
export function duplicateKeyField(err: MongoServerError): string | undefined {
  const keyValue = (err as MongoServerError & { keyValue?: Record<string, unknown> }).keyValue;
  return duplicateFieldOf(keyValue, err.message);
}

/** The same from the parts of a duplicate-key answer (a bulk write reports one per row). */
export function duplicateFieldOf(
  keyValue: Record<string, unknown> | undefined,
  message: string,
): string | undefined {
  if (keyValue && Object.keys(keyValue).length) return Object.keys(keyValue)[0];
  const index = /index: (\S+)/.exec(message)?.[1];
  if (index?.startsWith('u_')) return index.slice(2);
  // A declared unique index (`i_<name>`): its default name lists the fields (`i_a_1_b_-1`).
  if (index?.startsWith('i_'))
    return index
      .slice(2)
      .split(/_-?1(?:_|$)/)
      .filter(Boolean)
      .join(', ');
  return index?.replace(/_-?1$/, '');
}

/**
 * Whether an operation on a project's own database ran out of time (external-deadline.ts). Its
 * outcome is unknown: a write may or may not have been applied.
 */
export const isExternalTimeout = (err: unknown): err is ExternalDbTimeoutError =>
  err instanceof ExternalDbTimeoutError;

/**
 * What a failed worker job (a backup, a restore) records for the developer: a timeout or network
 * failure of the project's database in words (the driver's text names hosts and connections).
 */
export function jobFailureMessage(err: unknown): string {
  if (err instanceof ExternalDbTimeoutError || err instanceof MongoNetworkTimeoutError)
    return "the project's own database did not answer in time";
  if (err instanceof MongoNetworkError || err instanceof MongoServerSelectionError)
    return "the project's database could not be reached";
  return err instanceof Error ? err.message : String(err);
}

/**
 * The one translation of "the database cannot be reached" into the 503 `Unavailable: database`,
 * applied by the error middleware to whatever a request throws. The driver reports it as:
 * - MongoServerSelectionError: no server answered within serverSelectionTimeoutMS (stopped,
 *   refusing connections, unreachable);
 * - MongoNetworkError and its subclasses (timeouts, a cleared pool): a connection broke mid-operation
 *   (already retried once by retryable reads and writes);
 * - MongoTopologyClosedError: the client was closed (shutdown).
 */
export function databaseUnavailable(err: unknown): ApiError | undefined {
  // First: the project's own deployment not answering is a 504 of its own, not the platform down.
  if (isExternalTimeout(err)) return externalDatabaseTimeout(err);
  if (
    err instanceof MongoServerSelectionError ||
    err instanceof MongoNetworkError ||
    err instanceof MongoTopologyClosedError
  ) {
    return dependencyUnavailable('database', err);
  }
  return undefined;
}
