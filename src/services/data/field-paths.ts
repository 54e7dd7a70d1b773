// Field paths named by query parameters (filters, sort, fields, populate): checked against the
// field-name rules and, in schema mode, against the collection's definition, and typed so that
// filter values can be converted (DECISIONS §3).
import { badRequest } from '../../http/errors.js';
import { fieldNameProblem } from '../schema/field-names.js';
import type { CollectionDef, FieldDef, FieldType } from '../types.js';
import { fieldLookup as lookup } from '../schema/field-lookup.js';
import { TRASH_KEY } from '../../db/project-indexes.js';

/** How values at a path are typed: a schema type, an object id (`_id`), or untyped (flexible). */
export type PathType = FieldType | 'ObjectId' | 'any';

export interface ResolvedPath {
  path: string;
  type: PathType;
  /** The field definition at the path, when the schema has one. */
  field?: FieldDef;
}

export type PathUse = 'filter' | 'sort' | 'fields';

/** Managed by the service; readable, but not something clients filter or sort by. */
export const TRASH_FIELDS: ReadonlySet<string> = new Set(['isDeleted', 'deletedAt']);
export const META_FIELDS = ['isDeleted', 'deletedAt', 'createdAt', 'updatedAt'] as const;
const SYSTEM_TYPES: Record<string, PathType> = {
  _id: 'ObjectId',
  createdAt: 'Date',
  updatedAt: 'Date',
  deletedAt: 'Date',
  isDeleted: 'Boolean',
};

/** The definition below `segments` of `fields`, 'any' under a free-form Object or Array. */
function walk(fields: readonly FieldDef[], segments: string[]): FieldDef | 'any' | undefined {
  let current: FieldDef | undefined;
  let level: readonly FieldDef[] = fields;
  for (const segment of segments) {
    if (current?.type === 'Object') {
      if (!current.fields?.length) return 'any';
      level = current.fields;
    } else if (current?.type === 'Array') {
      const items = current.items;
      if (!items) return 'any';
      if (/^\d+$/.test(segment)) {
        current = { name: segment, type: items.type, fields: items.fields, ref: items.ref };
        continue;
      }
      // `comments.text` reaches a sub-field of every item, as MongoDB reads it.
      if (items.type !== 'Object') return undefined;
      if (!items.fields?.length) return 'any';
      level = items.fields;
    } else if (current) {
      return undefined;
    }
    current = lookup(level).get(segment);
    if (!current) return undefined;
  }
  return current;
}

const leafType = (field: FieldDef): PathType =>
  field.type === 'Array' ? (field.items?.type ?? 'any') : field.type;

/**
 * Whether `raw` as a whole names a system field or a field of the definition: a cheap test, which
 * never throws, before `resolvePath` is asked for it (filters try a key whole before its suffix).
 */
export function namesField(def: CollectionDef, raw: string): boolean {
  const segments = raw.split('.');
  return SYSTEM_TYPES[segments[0]!] !== undefined || walk(def.fields, segments) !== undefined;
}

/**
 * Resolves `raw` (a dot path) for a use, or throws a 400 whose message starts with `label`
 * (for example `Invalid filter "title_gt"`).
 */
export function resolvePath(def: CollectionDef, raw: string, use: PathUse, label: string): ResolvedPath {
  if (/[[\]]/.test(raw)) {
    throw badRequest(
      `${label}: bracket syntax is not supported (use suffixes such as _ne or _gt)`,
      [{ path: `query.${raw}`, message: `${raw} uses bracket syntax` }],
      'INVALID_FILTER',
    );
  }
  if (raw.includes('$')) {
    throw badRequest(
      `${label}: field names cannot contain "$" (operators are not accepted)`,
      [{ path: `query.${raw}`, message: `${raw} contains "$"` }],
      'INVALID_FILTER',
    );
  }
  const segments = raw.split('.');
  for (const segment of segments) {
    const problem = fieldNameProblem(segment);
    if (problem) throw badRequest(`${label}: field name ${problem}`, undefined, 'INVALID_FILTER');
  }
  const [first] = segments as [string, ...string[]];
  if (first === TRASH_KEY) {
    throw badRequest(`${label}: ${first} is internal to the service`, undefined, 'INVALID_FILTER');
  }
  const systemType = SYSTEM_TYPES[first];
  if (systemType) {
    if (use !== 'fields' && TRASH_FIELDS.has(first)) {
      throw badRequest(
        `${label}: ${first} is managed by the service and cannot be used here`,
        undefined,
        'INVALID_FILTER',
      );
    }
    if (segments.length > 1)
      throw badRequest(`${label}: ${first} has no sub-fields`, undefined, 'INVALID_FILTER');
    return { path: raw, type: systemType };
  }
  const found = walk(def.fields, segments);
  if (def.mode !== 'schema') {
    // Flexible mode stores what was sent, so the definition cannot type the values.
    return { path: raw, type: 'any', field: found === 'any' ? undefined : found };
  }
  if (!found) {
    throw badRequest(
      `${label}: ${raw} is not a field of this collection`,
      [{ path: `query.${raw}`, message: `${raw} is not a field of this collection` }],
      'UNKNOWN_FIELD',
    );
  }
  return found === 'any' ? { path: raw, type: 'any' } : { path: raw, type: leafType(found), field: found };
}

/** Splits a comma-separated parameter; an empty item is a 400. */
export function commaList(raw: string, name: string, max: number): string[] {
  const items = raw.split(',').map((item) => item.trim());
  if (items.some((item) => item === '')) {
    throw badRequest(`Invalid ${name}: empty item in "${raw}"`, undefined, 'INVALID_QUERY');
  }
  if (items.length > max)
    throw badRequest(`Invalid ${name}: at most ${max} items`, undefined, 'INVALID_QUERY');
  return items;
}
