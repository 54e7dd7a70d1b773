// Filter query parameters (`<field>` and `<field>_<suffix>`) turned into MongoDB conditions. Only
// the operators of the suffix table are produced; keys and values never reach the query as
// operators (a key with `$`, `[` or `]` is a 400), and values are typed by the schema.
import { badRequest } from '../../http/errors.js';
import { toObjectId } from '../../db/ids.js';
import { userRegexProblem } from '../../lib/user-regex.js';
import { parseDateValue } from '../schema/validate-document.js';
import type { CollectionDef } from '../types.js';
import { namesField, resolvePath, type PathType, type ResolvedPath } from './field-paths.js';

export type Condition = Record<string, unknown>;

/** Query parameters that are not filters (`key` is taken by the security layer before this). */
export const RESERVED_PARAMS: ReadonlySet<string> = new Set([
  'page',
  'limit',
  'sort',
  'cursor',
  'fields',
  'meta',
  'include_deleted',
  'populate',
  'total',
  'count',
  'filters',
  'key',
]);

type Suffix = 'ne' | 'gt' | 'gte' | 'lt' | 'lte' | 'in' | 'exists' | 'regex';
// Longest first, so that `_gte` is not read as `_gt` plus a stray `e`.
const SUFFIXES: readonly Suffix[] = ['exists', 'regex', 'gte', 'lte', 'ne', 'gt', 'lt', 'in'];
const RANGE: ReadonlySet<Suffix> = new Set(['gt', 'gte', 'lt', 'lte']);

export const MAX_FILTERS = 50;
export const MAX_IN_VALUES = 100;
export const MAX_REGEX_LENGTH = 128;

// Linear: a digit run is followed by a required "." before the optional second run, so a failed
// match never retries every split of one long run (`\d+\.?\d*` did, quadratic in its length).
const NUMBER = /^-?(?:\d+(?:\.\d*)?|\.\d+)(?:e[+-]?\d+)?$/i;
const TEXT_TYPES: ReadonlySet<PathType> = new Set(['String', 'Ref', 'any']);

interface FilterKey {
  resolved: ResolvedPath;
  op: Suffix | 'eq';
}

function invalid(param: string, problem: string, code = 'INVALID_FILTER'): never {
  throw badRequest(
    `Invalid filter "${param}": ${problem}`,
    [{ path: `query.${param}`, message: problem }],
    code,
  );
}

/** A key names a schema field exactly, or a field plus one suffix. */
function parseKey(def: CollectionDef, param: string): FilterKey {
  const label = `Invalid filter "${param}"`;
  // Only a key that names a field as a whole is tried so (a failed try would cost an error and
  // its stack trace on every suffixed filter of every list).
  if (def.mode === 'schema' && !/[$[\]]/.test(param) && namesField(def, param)) {
    try {
      return { resolved: resolvePath(def, param, 'filter', label), op: 'eq' };
    } catch {
      // not a field as a whole: try it as field + suffix below
    }
  }
  for (const suffix of SUFFIXES) {
    if (param.endsWith(`_${suffix}`) && param.length > suffix.length + 1) {
      const field = param.slice(0, -(suffix.length + 1));
      return { resolved: resolvePath(def, field, 'filter', label), op: suffix };
    }
  }
  return { resolved: resolvePath(def, param, 'filter', label), op: 'eq' };
}

/** The value(s) a query string stands for at a path: one for typed paths, a few for untyped ones. */
function typedValues(param: string, type: PathType, raw: string, range: boolean): unknown[] {
  switch (type) {
    case 'ObjectId': {
      const id = toObjectId(raw);
      return id ? [id] : invalid(param, `"${raw}" is not a valid id`);
    }
    case 'Ref':
      return /^[0-9a-f]{24}$/i.test(raw) ? [raw.toLowerCase()] : invalid(param, `"${raw}" is not a valid id`);
    case 'Number':
      return NUMBER.test(raw) && Number.isFinite(Number(raw))
        ? [Number(raw)]
        : invalid(param, `"${raw}" is not a number`);
    case 'Boolean':
      return raw === 'true' || raw === 'false'
        ? [raw === 'true']
        : invalid(param, `"${raw}" is not true or false`);
    case 'Date': {
      const date = parseDateValue(NUMBER.test(raw) ? Number(raw) : raw);
      return date ? [date] : invalid(param, `"${raw}" is not a date (ISO 8601 or epoch milliseconds)`);
    }
    case 'String':
      return [raw];
    default: {
      // Untyped (flexible mode, free-form objects): a numeric-looking value compares as a number
      // for ranges, and matches the number or the string for equality (likewise true/false).
      const number = NUMBER.test(raw) ? Number(raw) : NaN;
      if (range) return [Number.isFinite(number) ? number : raw];
      const values: unknown[] = [raw];
      if (Number.isFinite(number)) values.push(number);
      if (raw === 'true' || raw === 'false') values.push(raw === 'true');
      return values;
    }
  }
}

function condition(param: string, { resolved, op }: FilterKey, raw: string): Condition {
  const { path, type } = resolved;
  switch (op) {
    case 'exists':
      if (raw !== 'true' && raw !== 'false') invalid(param, `use true or false, not "${raw}"`);
      return { [path]: { $exists: raw === 'true' } };
    case 'regex': {
      if (!TEXT_TYPES.has(type)) invalid(param, `_regex applies to text fields, and ${path} is a ${type}`);
      if (raw.length > MAX_REGEX_LENGTH) {
        invalid(
          param,
          `the regular expression is longer than ${MAX_REGEX_LENGTH} characters`,
          'INVALID_REGEX',
        );
      }
      const problem = userRegexProblem(raw);
      if (problem) invalid(param, problem, 'INVALID_REGEX');
      return { [path]: { $regex: raw, $options: 'i' } };
    }
    case 'in': {
      const items = raw.split(',');
      if (items.length > MAX_IN_VALUES) invalid(param, `at most ${MAX_IN_VALUES} values`);
      return { [path]: { $in: items.flatMap((item) => typedValues(param, type, item, false)) } };
    }
    case 'eq':
    case 'ne': {
      const values = typedValues(param, type, raw, false);
      if (values.length === 1) return { [path]: { [op === 'eq' ? '$eq' : '$ne']: values[0] } };
      return { [path]: { [op === 'eq' ? '$in' : '$nin']: values } };
    }
    default:
      return { [path]: { [`$${op}`]: typedValues(param, type, raw, RANGE.has(op))[0] } };
  }
}

/**
 * The conditions of every filter parameter of `query` (the parameters that are not reserved).
 * All of them must hold; the caller combines them with its own (trash, RLS, cursor).
 */
export function parseFilters(def: CollectionDef, query: Record<string, unknown>): Condition[] {
  const conditions: Condition[] = [];
  for (const [param, value] of Object.entries(query)) {
    if (RESERVED_PARAMS.has(param)) continue;
    if (typeof value !== 'string') invalid(param, 'give each filter once, as a single value');
    if (conditions.length >= MAX_FILTERS) {
      throw badRequest(`Too many filters: at most ${MAX_FILTERS}`, undefined, 'INVALID_FILTER');
    }
    conditions.push(condition(param, parseKey(def, param), value));
  }
  return conditions;
}

/** `{ $gte: 1, $lt: 5 }`: an object of query operators only (not an equality with an object value). */
function isOperators(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Object.getPrototypeOf(value) !== Object.prototype)
    return false;
  const keys = Object.keys(value);
  return keys.length > 0 && keys.every((key) => key.startsWith('$'));
}

/**
 * Combines conditions into one filter. Conditions on different fields are merged into one object,
 * and operators on the same field into one operator object (`price_gte` and `price_lt` become
 * `{ price: { $gte, $lt } }`), which MongoDB reads exactly as their `$and` (arrays included: each
 * operator may match another element, as in `$and`); a server that plans a flat filter better
 * (mongo-java-server does) is spared the `$and`. Conditions that would share a key otherwise (two
 * `$or`, the same operator twice) stay an `$and`. The conditions themselves are never changed:
 * some are shared constants.
 */
export function allOf(conditions: Condition[]): Condition {
  if (conditions.length === 0) return {};
  if (conditions.length === 1) return conditions[0]!;
  const merged: Condition = {};
  for (const condition of conditions) {
    for (const key of Object.keys(condition)) {
      const value = condition[key];
      if (!Object.hasOwn(merged, key)) {
        merged[key] = value;
        continue;
      }
      const had = merged[key];
      if (
        key.startsWith('$') ||
        !isOperators(had) ||
        !isOperators(value) ||
        Object.keys(value).some((op) => Object.hasOwn(had, op))
      )
        return { $and: conditions };
      merged[key] = { ...had, ...value };
    }
  }
  return merged;
}
