// Name -> definition maps of a collection's fields. Definitions are never mutated, so the map of
// one fields array is built once and shared by the validator and the query parser.
import type { FieldDef } from '../types.js';

const lookups = new WeakMap<readonly FieldDef[], Map<string, FieldDef>>();

export function fieldLookup(fields: readonly FieldDef[]): Map<string, FieldDef> {
  let map = lookups.get(fields);
  if (!map) {
    map = new Map(fields.map((f) => [f.name, f]));
    lookups.set(fields, map);
  }
  return map;
}
