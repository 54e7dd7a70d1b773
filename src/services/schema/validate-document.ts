// The document validator of the data API: checks a request body against a collection definition
// and returns the value to store (defaults applied on create, Date fields as Date objects).
// Field-name rules apply in both modes; types, required fields and unknown fields in schema mode.
import { validationFailed, type ErrorDetail } from '../../http/errors.js';
import type { CollectionDef, FieldDef } from '../types.js';
import { assertSafeFieldNames } from './field-names.js';
import { fieldLookup as lookup } from './field-lookup.js';

export { assertSafeFieldNames } from './field-names.js';

export type WriteMode = 'create' | 'update';

/** What a value is checked against: a field, or the item type of an Array field. */
interface ValueDef {
  type: FieldDef['type'];
  required?: boolean;
  unique?: boolean;
  fields?: FieldDef[];
  items?: FieldDef['items'];
  /** Array items may not be null (they have no `required` flag to say otherwise). */
  item?: boolean;
}

const OBJECT_ID = /^[0-9a-fA-F]{24}$/;
// Calendar date, optionally a time (minutes, seconds, fraction optional) and an offset.
const ISO_DATE =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/i;
/** Largest epoch-ms magnitude a JavaScript Date (and a BSON date) accepts here. */
const MAX_EPOCH_MS = 8.64e15;

const TYPE_PROBLEM: Record<FieldDef['type'], string> = {
  String: 'must be a String',
  Number: 'must be a Number',
  Boolean: 'must be a Boolean',
  Date: 'must be a Date (an ISO 8601 string or epoch milliseconds)',
  Object: 'must be an Object',
  Array: 'must be an Array',
  Ref: 'must be a Ref (an object id string of 24 hex characters)',
};

/** The item definitions of Array fields, made once per definition (they are cached with it). */
const itemDefs = new WeakMap<NonNullable<FieldDef['items']>, ValueDef>();
function itemDefOf(items: NonNullable<FieldDef['items']>): ValueDef {
  let def = itemDefs.get(items);
  if (!def) itemDefs.set(items, (def = { ...items, item: true }));
  return def;
}

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const daysIn = (year: number, month: number) => new Date(Date.UTC(year, month, 0)).getUTCDate();

/**
 * An ISO 8601 date or date-time string, or an integer of epoch milliseconds, as a Date; undefined
 * when it is neither or names no real day. A date-time without an offset is read as UTC, so the
 * stored value never depends on the server's time zone.
 */
export function parseDateValue(value: unknown): Date | undefined {
  if (typeof value === 'number') {
    return Number.isInteger(value) && Math.abs(value) <= MAX_EPOCH_MS ? new Date(value) : undefined;
  }
  if (typeof value !== 'string') return undefined;
  const m = ISO_DATE.exec(value);
  if (!m) return undefined;
  const [year, month, day, hour = 0, minute = 0, second = 0] = m.slice(1, 7).map((p) => (p ? Number(p) : 0));
  if (month! < 1 || month! > 12 || day! < 1 || day! > daysIn(year!, month!)) return undefined;
  if (hour > 23 || minute > 59 || second > 59) return undefined;
  let text = value.replace(' ', 'T');
  if (m[4] !== undefined && m[7] === undefined) text += 'Z';
  else if (m[7] && /^[+-]\d{4}$/.test(m[7])) text = text.slice(0, -2) + ':' + text.slice(-2);
  const date = new Date(text);
  return Number.isNaN(date.getTime()) ? undefined : date;
}

class Problems {
  readonly details: ErrorDetail[] = [];
  add(path: string, problem: string): undefined {
    this.details.push({ path, message: `${path} ${problem}` });
    return undefined;
  }
}

const join = (prefix: string, key: string) => (prefix ? `${prefix}.${key}` : key);

/** Checks every given key and, as on an insert, the required fields and defaults of `fields`. */
function checkObject(
  fields: readonly FieldDef[],
  value: Record<string, unknown>,
  prefix: string,
  problems: Problems,
): Record<string, unknown> {
  const defs = lookup(fields);
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    const def = defs.get(key);
    if (!def) problems.add(join(prefix, key), 'is not a field of this collection');
    // A unique index holds null as a value, so null on an optional unique field means "absent".
    else if (value[key] === null && def.unique && !def.required) continue;
    else out[key] = checkValue(def, value[key], join(prefix, key), problems);
  }
  for (const def of fields) {
    if (value[def.name] !== undefined) continue;
    if (def.required) problems.add(join(prefix, def.name), 'is required');
    else if (def.default !== undefined) out[def.name] = def.default;
  }
  return out;
}

function checkValue(def: ValueDef, value: unknown, path: string, problems: Problems): unknown {
  if (value === null) {
    if (def.item) return problems.add(path, TYPE_PROBLEM[def.type]);
    return def.required ? problems.add(path, 'is required') : null;
  }
  switch (def.type) {
    case 'String':
      return typeof value === 'string' ? value : problems.add(path, TYPE_PROBLEM.String);
    case 'Number':
      return typeof value === 'number' && Number.isFinite(value)
        ? value
        : problems.add(path, TYPE_PROBLEM.Number);
    case 'Boolean':
      return typeof value === 'boolean' ? value : problems.add(path, TYPE_PROBLEM.Boolean);
    case 'Date':
      return parseDateValue(value) ?? problems.add(path, TYPE_PROBLEM.Date);
    case 'Ref':
      return typeof value === 'string' && OBJECT_ID.test(value)
        ? value.toLowerCase()
        : problems.add(path, TYPE_PROBLEM.Ref);
    case 'Object':
      if (!isPlainObject(value)) return problems.add(path, TYPE_PROBLEM.Object);
      return def.fields?.length ? checkObject(def.fields, value, path, problems) : value;
    case 'Array': {
      if (!Array.isArray(value)) return problems.add(path, TYPE_PROBLEM.Array);
      const items = def.items;
      if (!items) return value;
      const itemDef = itemDefOf(items);
      return value.map((item, i) => checkValue(itemDef, item, `${path}.${i}`, problems));
    }
  }
}

/** The definition a dot path of an update names; 'any' below a free-form Object or Array. */
function resolvePath(fields: readonly FieldDef[], segments: string[]): ValueDef | 'any' | undefined {
  let current: ValueDef = { type: 'Object', fields: [...fields] };
  for (const segment of segments) {
    if (current.type === 'Object') {
      if (!current.fields?.length) return 'any';
      const next = lookup(current.fields).get(segment);
      if (!next) return undefined;
      current = next;
    } else if (current.type === 'Array') {
      if (!/^\d+$/.test(segment)) return undefined;
      if (!current.items) return 'any';
      current = itemDefOf(current.items);
    } else {
      return undefined;
    }
  }
  return current;
}

function applyDefaults(fields: readonly FieldDef[], doc: Record<string, unknown>): Record<string, unknown> {
  for (const def of fields) {
    if (doc[def.name] === undefined && !def.required && def.default !== undefined)
      doc[def.name] = def.default;
  }
  return doc;
}

/**
 * Validates a request body for a collection and returns the value to store. Schema mode: types,
 * required fields (on create, or set to null), unknown fields; an update's keys may be dot paths
 * checked against the nested definition. Flexible mode: stored as sent, only the field-name rules
 * apply, and defaults are applied on create. null is stored for optional fields, except on a
 * unique field: left out on create (so documents do not collide on it), refused on update.
 * Throws validationFailed naming the first problem, with every problem in `details`.
 */
export function validateDocument(
  def: Pick<CollectionDef, 'mode' | 'fields'>,
  body: unknown,
  mode: WriteMode,
): Record<string, unknown> {
  if (!isPlainObject(body)) {
    throw validationFailed('Validation failed: the body must be a JSON object', [
      { path: 'body', message: 'body must be a JSON object' },
    ]);
  }
  assertSafeFieldNames(body, { allowDotPaths: mode === 'update' });
  if (def.mode !== 'schema') return mode === 'create' ? applyDefaults(def.fields, { ...body }) : { ...body };

  const problems = new Problems();
  let out: Record<string, unknown>;
  if (mode === 'create') {
    out = checkObject(def.fields, body, '', problems);
  } else {
    out = {};
    for (const key of Object.keys(body)) {
      const target = key.includes('.')
        ? resolvePath(def.fields, key.split('.'))
        : lookup(def.fields).get(key);
      if (!target) problems.add(key, 'is not a field of this collection');
      else if (target !== 'any' && body[key] === null && target.unique && !target.required) {
        problems.add(key, 'is unique and cannot be set to null');
      } else out[key] = target === 'any' ? body[key] : checkValue(target, body[key], key, problems);
    }
  }
  const first = problems.details[0];
  if (first) throw validationFailed(`Validation failed: ${first.message}`, problems.details);
  return out;
}
