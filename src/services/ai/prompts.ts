// The instructions the model gets. They ask for one JSON object of a fixed shape; the answer is
// checked by the service's own validators anyway, so nothing here is a security boundary.
import { ALLOWED_STAGES } from '../data/pipeline.js';
import { FIELD_TYPES } from '../schema/field-definitions.js';
import type { CollectionDef } from '../types.js';

const describe = (def: Pick<CollectionDef, 'name' | 'mode' | 'fields'>) =>
  JSON.stringify({ name: def.name, mode: def.mode, fields: def.fields });

export function queryBuilderPrompt(def: CollectionDef, others: string[]): string {
  return [
    'You turn a request in plain language into a query of a REST data API over MongoDB.',
    `The collection: ${describe(def)}. Other collections of the project: ${others.join(', ') || 'none'}.`,
    'Every document also has _id, createdAt and updatedAt.',
    'Answer with one JSON object and nothing else, in one of two shapes:',
    '1. {"type":"filter","filters":{...},"sort":"...","limit":n,"explanation":"..."} for a plain list.',
    '   filters maps query parameters to string values: "<field>" (equals), or "<field>_ne", "_gt", "_gte",',
    '   "_lt", "_lte", "_in" (comma-separated values), "_exists" ("true"/"false"), "_regex" (case-insensitive).',
    '   sort is a comma-separated list of fields, "-field" for descending. limit is 1 to 1000.',
    '2. {"type":"pipeline","pipeline":[...],"explanation":"..."} when grouping, counting or joining is needed.',
    `   Allowed stages: ${[...ALLOWED_STAGES].join(' ')}. $lookup only into the other collections listed.`,
    'Prefer the filter shape. Use only fields of the collection.',
  ].join('\n');
}

export function collectionCreatorPrompt(existing: string[]): string {
  return [
    'You design collections (schemas) for a backend-as-a-service over MongoDB, in a conversation.',
    `Existing collections of the project: ${existing.join(', ') || 'none'}; do not reuse their names.`,
    'Answer every message with one JSON object and nothing else:',
    '{"reply":"<what you say to the developer>","collection":<definition or null>}',
    'A definition: {"name":"...","mode":"schema" or "flexible","fields":[...],"rls":{"enabled":false}}.',
    'name: letters, digits, "_" and "-", starting with a letter, at most 64 characters; not "users".',
    `A field: {"name":"...","type":one of ${FIELD_TYPES.join(', ')},"required":bool,"unique":bool}.`,
    'Object fields may have "fields" (sub-fields); Array fields have "items":{"type":...};',
    'Ref fields have "ref" naming an existing collection or the one being designed.',
    '"default" only on non-required String, Number and Boolean fields, of the same type.',
    'Give the complete definition every time it changes; null while you still need answers.',
  ].join('\n');
}
