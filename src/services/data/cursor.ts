// Keyset paging: `nextCursor` carries the sort values of the last document of a page (and its
// `_id`, the tie-breaker); the next page starts strictly after them, so deep pages cost no skip.
// The cursor is opaque base64url JSON and is checked on the way in: only plain values come out.
import { badRequest } from '../../http/errors.js';
import { toObjectId } from '../../db/ids.js';
import type { Condition } from './filters.js';

export interface SortKey {
  path: string;
  dir: 1 | -1;
}

type Encoded = string | number | boolean | null | { d: string } | { o: string };

const invalidCursor = (why: string) =>
  badRequest(`Invalid cursor: ${why}; start again from the first page`, undefined, 'INVALID_CURSOR');

/** The value at a dot path of a document (undefined when absent). */
export function valueAt(doc: Record<string, unknown>, path: string): unknown {
  let current: unknown = doc;
  for (const segment of path.split('.')) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[segment];
  }
  return current;
}

/** A canonical text of the sort order; a cursor is valid only for the order it was issued for. */
export const sortSignature = (keys: SortKey[]) =>
  keys.map((k) => (k.dir === 1 ? k.path : `-${k.path}`)).join(',');

function encodeValue(path: string, value: unknown): Encoded {
  if (value === undefined || value === null) return null;
  if (value instanceof Date) return { d: value.toISOString() };
  if (path === '_id' && typeof value === 'string') return { o: value };
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
  // Objects and arrays do not make a usable keyset position; such a page ends the cursor walk.
  return null;
}

export function encodeCursor(keys: SortKey[], doc: Record<string, unknown>): string {
  const payload = { s: sortSignature(keys), v: keys.map((k) => encodeValue(k.path, valueAt(doc, k.path))) };
  return Buffer.from(JSON.stringify(payload)).toString('base64url');
}

function decodeValue(value: unknown): unknown {
  if (value === null || ['string', 'number', 'boolean'].includes(typeof value)) return value;
  if (typeof value === 'object' && !Array.isArray(value)) {
    const keys = Object.keys(value);
    const tagged = value as Record<string, unknown>;
    if (keys.length === 1 && typeof tagged.d === 'string') {
      const date = new Date(tagged.d);
      if (!Number.isNaN(date.getTime())) return date;
    }
    if (keys.length === 1 && typeof tagged.o === 'string') {
      const id = toObjectId(tagged.o);
      if (id) return id;
    }
  }
  throw invalidCursor('it is malformed');
}

/** The sort values a cursor carries, in the order of `keys`. */
export function decodeCursor(raw: string, keys: SortKey[]): unknown[] {
  let payload: unknown;
  try {
    payload = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
  } catch {
    throw invalidCursor('it is malformed');
  }
  if (typeof payload !== 'object' || payload === null) throw invalidCursor('it is malformed');
  const { s, v } = payload as { s?: unknown; v?: unknown };
  if (s !== sortSignature(keys)) throw invalidCursor('it was issued for another sort order');
  if (!Array.isArray(v) || v.length !== keys.length) throw invalidCursor('it is malformed');
  const values = v.map(decodeValue);
  if (values[values.length - 1] === null) throw invalidCursor('it is malformed');
  return values;
}

// MongoDB sorts null and missing values first; `$gt`/`$lt` never match them.
function after(path: string, dir: 1 | -1, value: unknown): Condition | undefined {
  if (value === null) return dir === 1 ? { [path]: { $ne: null } } : undefined;
  if (dir === 1) return { [path]: { $gt: value } };
  // `_id` is never null; other fields may be, and nulls come last in a descending order.
  if (path === '_id') return { [path]: { $lt: value } };
  return { $or: [{ [path]: { $lt: value } }, { [path]: null }] };
}

/** The condition "strictly after the position `values`" for the sort `keys`. */
export function keysetCondition(keys: SortKey[], values: unknown[]): Condition {
  const branches: Condition[] = [];
  for (let i = 0; i < keys.length; i++) {
    const step = after(keys[i]!.path, keys[i]!.dir, values[i]);
    if (!step) continue;
    const equal = keys.slice(0, i).map((k, j) => ({ [k.path]: { $eq: values[j] } }));
    branches.push(equal.length ? { $and: [...equal, step] } : step);
  }
  return branches.length === 1 ? branches[0]! : { $or: branches };
}
