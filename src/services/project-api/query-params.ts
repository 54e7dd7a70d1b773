// The query parameters of a collection's list operation that depend on its fields: one filter per
// field and suffix (src/services/data/filters.ts), typed as the service reads them, and the
// descriptions of `sort`, `fields` and `populate` naming the fields they accept.
import { RESERVED_PARAMS } from '../data/filters.js';
import type { CollectionDef, FieldDef, FieldType } from '../types.js';
import type { Schema } from './field-schemas.js';

type FilterType = FieldType | 'ObjectId' | 'any';
interface FilterPath {
  path: string;
  type: FilterType;
}

const RANGE = ['gt', 'gte', 'lt', 'lte'] as const;

/** The paths a filter may name: top-level fields, sub-fields of Objects (dot paths), system fields. */
function filterPaths(def: CollectionDef): FilterPath[] {
  const out: FilterPath[] = [
    { path: '_id', type: 'ObjectId' },
    { path: 'createdAt', type: 'Date' },
    { path: 'updatedAt', type: 'Date' },
  ];
  const typed = def.mode === 'schema';
  const walk = (fields: readonly FieldDef[], prefix: string) => {
    for (const field of fields) {
      const path = `${prefix}${field.name}`;
      const leaf: FilterType = field.type === 'Array' ? (field.items?.type ?? 'any') : field.type;
      out.push({ path, type: typed ? leaf : 'any' });
      if (field.type === 'Object' && field.fields?.length) walk(field.fields, `${path}.`);
    }
  };
  walk(def.fields, '');
  return out;
}

function valueSchema(type: FilterType): Schema {
  switch (type) {
    case 'Number':
      return { type: 'number' };
    case 'Boolean':
      return { type: 'boolean' };
    case 'Date':
      return { type: 'string', description: 'ISO 8601 or epoch milliseconds' };
    case 'Ref':
    case 'ObjectId':
      return { type: 'string', pattern: '^[0-9a-fA-F]{24}$' };
    default:
      return { type: 'string' };
  }
}

/** Which suffixes make sense for a type (the service accepts them as listed in filters.ts). */
function suffixes(type: FilterType): string[] {
  if (type === 'Object') return ['exists'];
  const out = ['', 'ne', 'in', 'exists'];
  if (type !== 'Boolean') out.push(...RANGE);
  if (type === 'String' || type === 'Ref' || type === 'any') out.push('regex');
  return out;
}

const SUFFIX_TEXT: Record<string, string> = {
  '': 'equals',
  ne: 'does not equal',
  gt: 'is greater than',
  gte: 'is at least',
  lt: 'is less than',
  lte: 'is at most',
  in: 'is one of (comma-separated, at most 100 values)',
  exists: 'is present (`true`) or absent (`false`)',
  regex: 'matches this case-insensitive regular expression (at most 128 characters)',
};

function filterSchema(type: FilterType, suffix: string): Schema {
  if (suffix === 'exists') return { type: 'boolean' };
  if (suffix === 'in') return { type: 'string', maxLength: 4096 };
  if (suffix === 'regex') return { type: 'string', maxLength: 128 };
  return valueSchema(type);
}

/** One query parameter per filterable path and suffix, without names the service reserves. */
export function filterParameters(def: CollectionDef): Schema[] {
  const params = new Map<string, Schema>();
  for (const { path, type } of filterPaths(def)) {
    for (const suffix of suffixes(type)) {
      const name = suffix ? `${path}_${suffix}` : path;
      if (params.has(name) || RESERVED_PARAMS.has(name)) continue;
      params.set(name, {
        name,
        in: 'query',
        required: false,
        description: `Only documents whose \`${path}\` ${SUFFIX_TEXT[suffix]}.`,
        schema: filterSchema(type, suffix),
      });
    }
  }
  return [...params.values()];
}

const listOf = (names: string[]) => names.map((n) => `\`${n}\``).join(', ');

/** Names of the fields `sort` and `fields` may use, for their descriptions. */
export function fieldNames(def: CollectionDef): string {
  return listOf(['_id', ...def.fields.map((f) => f.name), 'createdAt', 'updatedAt']);
}

/** The Ref fields (or Arrays of Refs) `populate` accepts, with their targets. */
export function refFields(def: CollectionDef): { name: string; target: string }[] {
  const out: { name: string; target: string }[] = [];
  for (const field of def.fields) {
    const target = field.type === 'Ref' ? field.ref : field.type === 'Array' ? field.items?.ref : undefined;
    if (target && (field.type === 'Ref' || field.items?.type === 'Ref'))
      out.push({ name: field.name, target });
  }
  return out;
}

export function populateDescription(def: CollectionDef, populated: string): string {
  const refs = refFields(def).map((r) => `\`${r.name}\` (\`${r.target}\`)`);
  return (
    `Comma-separated Ref fields to replace by the referenced documents: ${refs.join(', ')}. ` +
    `A populated document has the shape of \`${populated}\` for those fields; one that cannot be ` +
    `read (trashed, or outside the caller's RLS scope) becomes null. At most 100 per page.`
  );
}

export const sortDescription = (def: CollectionDef) =>
  `Comma-separated sort keys (at most 5), each \`field\`, \`-field\` or \`field:asc|desc\`, of ${fieldNames(def)}` +
  (def.mode === 'schema' ? '' : ' or any other field (flexible collection)') +
  '. Ties are broken by `_id`.';

export const fieldsDescription = (def: CollectionDef) =>
  `Comma-separated fields to return, of ${fieldNames(def)}; \`_id\` is always returned. The answer then ` +
  'holds only those fields, while the response schema describes whole documents.';
