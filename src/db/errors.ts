// Translation of driver errors the services care about.
import { MongoServerError } from 'mongodb';

export const isDuplicateKey = (err: unknown): err is MongoServerError =>
  err instanceof MongoServerError && err.code === 11000;

/**
 * The field behind a duplicate-key error. Unique indexes on project collections are named
 * `u_<field>`; `keyValue` is used when the server reports it, the index name otherwise.
 */
export function duplicateKeyField(err: MongoServerError): string | undefined {
  const keyValue = (err as MongoServerError & { keyValue?: Record<string, unknown> }).keyValue;
  if (keyValue && Object.keys(keyValue).length) return Object.keys(keyValue)[0];
  const index = /index: (\S+)/.exec(err.message)?.[1];
  if (index?.startsWith('u_')) return index.slice(2);
  return index?.replace(/_-?1$/, '');
}
