// The list endpoint's filters evaluated in memory against one document of an event, with
// MongoDB's semantics for the operators the filter parser produces (equality, ranges, `$in`,
// `$exists`, case-insensitive `$regex` run by RE2, linear in the text), arrays matching when one
// of their items does, and values in their wire form (ids as hex strings, dates as ISO strings).
// A condition this module cannot evaluate is refused with a 400 naming its parameter.
import { badRequest } from '../../http/errors.js';
import { compileUserRegex } from '../../lib/user-regex.js';
import { parseFilters, RESERVED_PARAMS, type Condition } from '../data/filters.js';
import type { CollectionDef } from '../types.js';
import type { RegexRunner } from './regex-budget.js';

export type Predicate = (doc: Record<string, unknown>) => boolean;

type Value = string | number | boolean | Date;

const isObjectIdLike = (value: unknown): value is { toHexString(): string } =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as { toHexString?: unknown }).toHexString === 'function';

/** A condition's operand in the form documents have on the wire (ids become hex strings). */
function operand(param: string, value: unknown): Value {
  if (isObjectIdLike(value)) return value.toHexString().toLowerCase();
  if (value instanceof Date || ['string', 'number', 'boolean'].includes(typeof value)) return value as Value;
  throw cannotEvaluate(param, 'its value');
}

function cannotEvaluate(param: string, what: string) {
  const problem = `${what} cannot be evaluated on a realtime stream`;
  return badRequest(
    `Invalid filter "${param}": ${problem}`,
    [{ path: `query.${param}`, message: problem }],
    'UNSUPPORTED_FILTER',
  );
}

/** Every value at a dot path; arrays on the way (and at the end) contribute each item. */
function valuesAt(doc: unknown, segments: string[]): unknown[] {
  const out: unknown[] = [];
  const walk = (value: unknown, i: number) => {
    if (Array.isArray(value)) {
      if (value.length === 0 && i === segments.length) out.push(value);
      for (const item of value) walk(item, i);
      return;
    }
    if (i === segments.length) {
      out.push(value);
      return;
    }
    if (value !== null && typeof value === 'object')
      walk((value as Record<string, unknown>)[segments[i]!], i + 1);
    else out.push(undefined);
  };
  walk(doc, 0);
  return out;
}

/** The comparable form of a document value against an operand; undefined when of another type. */
function comparable(value: unknown, against: Value): number | string | boolean | undefined {
  if (against instanceof Date) {
    const time =
      typeof value === 'string' ? Date.parse(value) : value instanceof Date ? value.getTime() : NaN;
    return Number.isNaN(time) ? undefined : time;
  }
  return typeof value === typeof against ? (value as number | string | boolean) : undefined;
}

const key = (v: Value) => (v instanceof Date ? v.getTime() : v);
const equals = (value: unknown, against: Value) => comparable(value, against) === key(against);

function compile(param: string, condition: Condition, runRegex: RegexRunner): Predicate {
  const entries = Object.entries(condition);
  if (entries.length !== 1) throw cannotEvaluate(param, 'this condition');
  const [path, spec] = entries[0]!;
  const segments = path.split('.');
  const ops = spec !== null && typeof spec === 'object' ? Object.entries(spec) : [];
  const [opName, raw] = ops[0] ?? [];
  const regexOptions = ops.length === 2 && ops[1]![0] === '$options' ? ops[1]![1] : undefined;
  if (ops.length !== 1 && regexOptions === undefined) throw cannotEvaluate(param, 'this condition');
  const values = (doc: Record<string, unknown>) => valuesAt(doc, segments);
  switch (opName) {
    case '$eq': {
      const v = operand(param, raw);
      return (doc) => values(doc).some((x) => equals(x, v));
    }
    case '$ne': {
      const v = operand(param, raw);
      return (doc) => !values(doc).some((x) => equals(x, v));
    }
    case '$in':
    case '$nin': {
      if (!Array.isArray(raw)) throw cannotEvaluate(param, 'its list');
      const list = raw.map((item) => operand(param, item));
      const any = (doc: Record<string, unknown>) => values(doc).some((x) => list.some((v) => equals(x, v)));
      return opName === '$in' ? any : (doc) => !any(doc);
    }
    case '$gt':
    case '$gte':
    case '$lt':
    case '$lte': {
      const v = operand(param, raw);
      const bound = key(v);
      const test = {
        $gt: (a: number | string | boolean) => a > bound,
        $gte: (a: number | string | boolean) => a >= bound,
        $lt: (a: number | string | boolean) => a < bound,
        $lte: (a: number | string | boolean) => a <= bound,
      }[opName];
      return (doc) =>
        values(doc).some((x) => {
          const a = comparable(x, v);
          return a !== undefined && typeof a !== 'boolean' && test(a);
        });
    }
    case '$exists': {
      const wanted = raw === true;
      return (doc) => values(doc).some((x) => x !== undefined) === wanted;
    }
    case '$regex': {
      // RE2, case-insensitive like the list's `_regex` (the parser gives `$options: 'i'`), run
      // within the project's budget (regex-budget.ts).
      const re = typeof raw === 'string' && regexOptions === 'i' ? compileUserRegex(raw) : undefined;
      if (!re) throw cannotEvaluate(param, 'this regular expression');
      return (doc) => values(doc).some((x) => typeof x === 'string' && runRegex(re, x));
    }
    default:
      throw cannotEvaluate(param, `the operator ${String(opName)}`);
  }
}

/**
 * The filter parameters of `query` (the list endpoint's parser: same names, types and 400s) as
 * one predicate; `undefined` when there are none. Regular expressions run through `runRegex`.
 */
export function compileFilters(
  def: CollectionDef,
  query: Record<string, unknown>,
  runRegex: RegexRunner,
): Predicate | undefined {
  const conditions = parseFilters(def, query);
  const params = Object.keys(query).filter((param) => !RESERVED_PARAMS.has(param));
  const predicates = conditions.map((condition, i) => compile(params[i]!, condition, runRegex));
  if (predicates.length === 0) return undefined;
  return (doc) => predicates.every((p) => p(doc));
}
