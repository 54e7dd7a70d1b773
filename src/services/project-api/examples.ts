// Example values of a collection's documents, from its field definitions: shown by reference
// pages and sent by contract tests, so each one must be accepted by the service as it stands.
import type { CollectionDef, FieldDef } from '../types.js';
import type { Json, JsonObject } from './published.js';

const EXAMPLE_ID = '65f1c2a4b7e8d90012345678';

function valueOf(field: Pick<FieldDef, 'type' | 'fields' | 'items' | 'default'>, name: string): Json {
  if (field.default !== undefined) return field.default;
  switch (field.type) {
    case 'String':
      return `${name} example`;
    case 'Number':
      return 1;
    case 'Boolean':
      return true;
    case 'Date':
      return '2025-01-01T10:00:00.000Z';
    case 'Ref':
      return EXAMPLE_ID;
    case 'Array':
      return field.items ? [valueOf(field.items, name)] : [];
    case 'Object':
      return objectOf(field.fields ?? [], false);
  }
}

function objectOf(fields: readonly FieldDef[], update: boolean): JsonObject {
  const out: JsonObject = {};
  for (const field of fields) out[field.name] = valueOf(field, field.name);
  if (update) {
    // An update changes one field: the first one that is not the RLS owner (immutable).
    const [first] = Object.keys(out);
    return first === undefined ? {} : { [first]: out[first]! };
  }
  return out;
}

/** A body the collection accepts: every declared field (a create), or one field (an update). */
export function exampleOf(def: CollectionDef, options: { update?: boolean } = {}): JsonObject {
  const fields = def.rls.enabled ? def.fields.filter((f) => f.name !== def.rls.ownerField) : def.fields;
  const example = objectOf(fields, options.update ?? false);
  return example;
}
