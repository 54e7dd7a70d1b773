// JSON Schemas (OpenAPI 3.1) of a collection's documents, built from its field definitions: what a
// read returns, what a create and an update accept (the validator's rules, see
// src/services/schema/validate-document.ts), and the populated shape of its Ref fields.
import type { CollectionDef, FieldDef } from '../types.js';

export type Schema = Record<string, unknown>;

/** Schema mode closes an object to undeclared keys; flexible mode stores whatever is sent. */
const closed = (def: CollectionDef) => def.mode === 'schema';
export const schemaRef = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` });
const OBJECT_ID: Schema = { type: 'string', pattern: '^[0-9a-f]{24}$' };
const DATE_TIME: Schema = { type: 'string', format: 'date-time' };
/** What a Date field accepts in a body: an ISO 8601 string or integer epoch milliseconds. */
const DATE_INPUT: Schema = {
  anyOf: [{ type: 'string' }, { type: 'integer' }],
  description: 'An ISO 8601 date or date-time (UTC when no offset is given), or epoch milliseconds.',
};

export type Use = 'read' | 'input' | 'populated';

/** Adds null to the values a schema allows. */
export function orNull(schema: Schema): Schema {
  if (Array.isArray(schema.anyOf) && schema.anyOf.some((s: Schema) => s.type === 'null')) return schema;
  if (typeof schema.type === 'string') return { ...schema, type: [schema.type, 'null'] };
  return { anyOf: [schema, { type: 'null' }] };
}

/** The schema of the documents a Ref points to when populated (users: their public view). */
export const populatedName = (target: string) => (target === 'users' ? 'users.Populated' : target);

function notes(field: FieldDef): string[] {
  const out: string[] = [];
  if (field.unique) out.push('Unique in the collection (a taken value is a 409).');
  if (field.type === 'Ref' && field.ref) out.push(`The id of a \`${field.ref}\` document.`);
  if (field.type === 'Array' && field.items?.type === 'Ref' && field.items.ref)
    out.push(`Ids of \`${field.items.ref}\` documents.`);
  if (field.protected) out.push('Protected: end users cannot set it.');
  if (field.private) out.push('Private: shown only to the user themself and to the secret key.');
  return out;
}

type ItemDef = NonNullable<FieldDef['items']>;

function valueSchema(def: CollectionDef, field: FieldDef | ItemDef, use: Use): Schema {
  switch (field.type) {
    case 'String':
      return { type: 'string' };
    case 'Number':
      return { type: 'number' };
    case 'Boolean':
      return { type: 'boolean' };
    case 'Date':
      return use === 'input' ? { ...DATE_INPUT } : { ...DATE_TIME };
    case 'Ref':
      if (use === 'populated' && field.ref) return orNull(schemaRef(populatedName(field.ref)));
      return { ...OBJECT_ID };
    case 'Array':
      return {
        type: 'array',
        items: 'items' in field && field.items ? valueSchema(def, field.items, use) : {},
      };
    case 'Object': {
      const subFields = field.fields ?? [];
      if (!subFields.length) return { type: 'object', additionalProperties: true };
      // Sub-fields are checked on create as on the top level, so required ones stay required.
      return objectSchema(def, subFields, use === 'populated' ? 'read' : use, { nested: true });
    }
  }
}

function fieldSchema(def: CollectionDef, field: FieldDef, use: Use): Schema {
  let schema = valueSchema(def, field, use);
  // An optional field may hold null (stored as sent), a required one never.
  if (!field.required) schema = orNull(schema);
  const text = notes(field);
  // Generators read `default` as "always present" (openapi-typescript makes the key required),
  // which holds for reads; a body may leave the field out, so there it is only described.
  if (field.default !== undefined && use !== 'input') schema.default = field.default;
  else if (field.default !== undefined)
    text.push(`Default: ${JSON.stringify(field.default)} (applied on create).`);
  if (text.length) schema.description = text.join(' ');
  if (field.unique) schema['x-unique'] = true;
  return schema;
}

/** An object of the given fields; `required` only where the service enforces it (schema mode). */
export function objectSchema(
  def: CollectionDef,
  fields: readonly FieldDef[],
  use: Use,
  options: { nested?: boolean; optional?: ReadonlySet<string> } = {},
): Schema {
  const properties: Record<string, Schema> = {};
  const required: string[] = [];
  for (const field of fields) {
    properties[field.name] = fieldSchema(def, field, use);
    // A field with a default is filled in on insert, so reads always carry it.
    const present = field.required || (use !== 'input' && field.default !== undefined && !options.nested);
    if (closed(def) && present && !options.optional?.has(field.name)) required.push(field.name);
  }
  const schema: Schema = { type: 'object', properties };
  if (required.length) schema.required = required;
  schema.additionalProperties = !closed(def);
  return schema;
}

const SYSTEM_READ: Record<string, Schema> = {
  _id: { ...OBJECT_ID, description: 'Generated on insert.' },
  isDeleted: { type: 'boolean', description: 'True while the document is in the trash.' },
  deletedAt: { ...orNull(DATE_TIME), description: 'When it was moved to the trash.' },
  createdAt: { ...DATE_TIME },
  updatedAt: { ...DATE_TIME },
};

/** A stored document as reads return it (whole: without `fields=` or `meta=false`). */
export function documentSchema(def: CollectionDef, use: 'read' | 'populated'): Schema {
  const schema = objectSchema(def, def.fields, use);
  schema.properties = { ...SYSTEM_READ, ...(schema.properties as Record<string, Schema>) };
  schema.required = [...Object.keys(SYSTEM_READ), ...((schema.required as string[] | undefined) ?? [])];
  return schema;
}

/** The body of a create: the owner field may be left out under RLS (the token user is filled in). */
export function createSchema(def: CollectionDef): Schema {
  const optional = new Set(def.rls.enabled ? [def.rls.ownerField] : []);
  return objectSchema(def, def.fields, 'input', { optional });
}

/** Dot paths into Object sub-fields (`meta.views`), which an update may set one by one. */
function nestedPaths(
  def: CollectionDef,
  fields: readonly FieldDef[],
  prefix: string,
  into: Record<string, Schema>,
) {
  for (const field of fields) {
    const path = `${prefix}${field.name}`;
    if (prefix) into[path] = fieldSchema(def, field, 'input');
    if (field.type === 'Object' && field.fields?.length) nestedPaths(def, field.fields, `${path}.`, into);
  }
}

/** The body of an update (PUT and PATCH): any declared field or nested path, none required. */
export function updateSchema(def: CollectionDef): Schema {
  const { properties } = objectSchema(def, def.fields, 'input') as { properties: Record<string, Schema> };
  nestedPaths(def, def.fields, '', properties);
  const schema: Schema = {
    type: 'object',
    minProperties: 1,
    properties,
    additionalProperties: !closed(def),
  };
  if (closed(def)) {
    schema.description =
      'Only the given fields change. Keys may be dot paths into Object fields (listed) or Array items (`tags.0`, not listed).';
  }
  return schema;
}
