// Small helpers shared by the collection-definition checks: the 400 they throw and message text.
import { badRequest } from '../../http/errors.js';

/** A 400 INVALID_DEFINITION whose message is also the one detail, at `path` in the body. */
export const fail = (message: string, path?: string) =>
  badRequest(message, path ? [{ path, message }] : undefined, 'INVALID_DEFINITION');

export const article = (type: string) => (/^[AEIOU]/.test(type) ? `an ${type}` : `a ${type}`);

export const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
