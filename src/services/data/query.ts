// The reading options of a list request (DECISIONS §3): paging by page/limit or cursor, sort,
// field selection, trash visibility, populate, count and total. Filters are in filters.ts.
import { badRequest } from '../../http/errors.js';
import type { CollectionDef } from '../types.js';
import { commaList, resolvePath } from './field-paths.js';
import { decodeCursor, type SortKey } from './cursor.js';
import { flag } from './projection.js';

export const DEFAULT_LIMIT = 100;
export const MAX_LIMIT = 1000;
export const MAX_LIMIT_WITH_POPULATE = 100;
export const MAX_SORT_KEYS = 5;
export const MAX_POPULATE = 10;
/** Documents a page may skip (page-1 times limit): deep offsets cost a scan; cursors do not. */
export const MAX_SKIP = 10_000;

export interface ReadOptions {
  fields?: string;
  meta: boolean;
  includeDeleted: boolean;
  populate: string[];
}

export interface ListOptions extends ReadOptions {
  page: number | null;
  limit: number;
  sort: SortKey[];
  /** Sort values of the position to start after (from `cursor`). */
  after?: unknown[];
  total: boolean;
  count: boolean;
}

const text = (value: unknown, name: string): string | undefined => {
  if (value === undefined) return undefined;
  if (typeof value === 'string') return value;
  throw badRequest(`Validation failed: query.${name} must be a string`, undefined, 'VALIDATION_FAILED');
};

/** A positive integer parameter (the spec validates it already; this guards other callers). */
function positive(value: unknown, name: string): number | undefined {
  if (value === undefined) return undefined;
  const number = typeof value === 'number' ? value : Number(value);
  if (!Number.isInteger(number) || number < 1) {
    throw badRequest(
      `Validation failed: query.${name} must be an integer of at least 1`,
      undefined,
      'VALIDATION_FAILED',
    );
  }
  return number;
}

const DIRECTIONS: Record<string, 1 | -1> = { asc: 1, desc: -1, '1': 1, '-1': -1 };

const invalidSort = (item: string, why: string) =>
  badRequest(
    `Invalid sort "${item}": ${why}`,
    [{ path: 'query.sort', message: `${item}: ${why}` }],
    'INVALID_QUERY',
  );

/**
 * One key of `sort`, in the forms clients send: `field`, `-field` (or `+field`), `field:asc`,
 * `field:desc`, `field:1`, `field:-1`. Anything else is a 400 naming the item, never a field
 * name taken literally (which would sort by nothing and hide the mistake).
 */
function sortItem(item: string): { name: string; dir: 1 | -1 } {
  const sign = item[0] === '-' || item[0] === '+' ? item[0] : '';
  let name = item.slice(sign.length);
  let dir: 1 | -1 = sign === '-' ? -1 : 1;
  const colon = name.lastIndexOf(':');
  if (colon !== -1) {
    const word = name.slice(colon + 1).trim();
    const given = DIRECTIONS[word.toLowerCase()];
    if (given === undefined) {
      throw invalidSort(item, `"${word}" is not a direction (use asc, desc, 1 or -1 after ":")`);
    }
    if (sign) throw invalidSort(item, 'give the direction either with "-" or after ":", not both');
    name = name.slice(0, colon).trim();
    dir = given;
  }
  if (name === '') throw invalidSort(item, 'no field named');
  return { name, dir };
}

export function parseSort(def: CollectionDef, raw: string | undefined): SortKey[] {
  const keys: SortKey[] = [];
  if (raw !== undefined) {
    for (const item of commaList(raw, 'sort', MAX_SORT_KEYS)) {
      const { name, dir } = sortItem(item);
      const { path } = resolvePath(def, name, 'sort', `Invalid sort "${item}"`);
      if (keys.some((k) => k.path === path)) {
        throw badRequest(`Invalid sort "${raw}": ${path} appears twice`, undefined, 'INVALID_QUERY');
      }
      keys.push({ path, dir });
    }
  }
  // `_id` is unique, so every order is total and the cursor position is exact.
  if (!keys.some((k) => k.path === '_id')) keys.push({ path: '_id', dir: 1 });
  return keys;
}

export function parseReadOptions(query: Record<string, unknown>): ReadOptions {
  const populate = text(query.populate, 'populate');
  return {
    fields: text(query.fields, 'fields'),
    meta: query.meta === undefined ? true : flag(query.meta, 'meta'),
    includeDeleted: flag(query.include_deleted, 'include_deleted'),
    populate: populate === undefined ? [] : [...new Set(commaList(populate, 'populate', MAX_POPULATE))],
  };
}

export function parseListOptions(def: CollectionDef, query: Record<string, unknown>): ListOptions {
  const read = parseReadOptions(query);
  const sort = parseSort(def, text(query.sort, 'sort'));
  const cursor = text(query.cursor, 'cursor');
  const page = positive(query.page, 'page');
  if (cursor !== undefined && page !== undefined) {
    throw badRequest('Use either page or cursor, not both', undefined, 'INVALID_QUERY');
  }
  const max = read.populate.length ? MAX_LIMIT_WITH_POPULATE : MAX_LIMIT;
  const limit = Math.min(positive(query.limit, 'limit') ?? DEFAULT_LIMIT, max);
  if (page !== undefined && (page - 1) * limit > MAX_SKIP) {
    throw badRequest(
      `Page ${page} would skip ${(page - 1) * limit} documents (at most ${MAX_SKIP}): use cursor paging, passing pagination.nextCursor as cursor, for deeper pages`,
      [{ path: 'query.page', message: `(page - 1) × limit must be at most ${MAX_SKIP}` }],
      'PAGE_TOO_DEEP',
    );
  }
  return {
    ...read,
    page: cursor === undefined ? (page ?? 1) : null,
    limit,
    sort,
    after: cursor === undefined ? undefined : decodeCursor(cursor, sort),
    total: flag(query.total, 'total'),
    count: flag(query.count, 'count'),
  };
}
