// The published public API document (generated/public.openapi.json, OpenAPI 3.0) as the source of
// the operations a project document describes: their descriptions, parameters and error
// responses are taken from it, so the two documents cannot tell different stories. Read once;
// every use gets a copy converted to OpenAPI 3.1 (`nullable` becomes a `null` type).
import { readFileSync } from 'node:fs';
import { repoPath } from '../../lib/paths.js';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

/** Copied components are renamed into this namespace: no collection name contains a dot. */
export const SHARED_PREFIX = 'baas.';

let published: JsonObject | undefined;
function spec(): JsonObject {
  published ??= JSON.parse(readFileSync(repoPath('generated', 'public.openapi.json'), 'utf8')) as JsonObject;
  return published;
}

/** A deep copy in OpenAPI 3.1 terms, with refs into the components renamed to the shared prefix. */
export function to31(node: Json): Json {
  if (Array.isArray(node)) return node.map(to31);
  if (node === null || typeof node !== 'object') return node;
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === 'nullable') continue;
    if (key === '$ref' && typeof value === 'string') {
      out.$ref = value.replace(/^#\/components\/(\w+)\//, `#/components/$1/${SHARED_PREFIX}`);
    } else out[key] = to31(value);
  }
  if (node.nullable === true) {
    if (typeof out.type === 'string') out.type = [out.type, 'null'];
    if (Array.isArray(out.enum)) out.enum = [...out.enum, null];
  }
  return out;
}

/** One operation of the published document (3.1, shared refs renamed). */
export function publishedOperation(path: string, method: string): JsonObject {
  const item = (spec().paths as JsonObject)[path] as JsonObject | undefined;
  const operation = item?.[method];
  if (!operation) throw new Error(`The published document has no ${method.toUpperCase()} ${path}`);
  return to31(operation) as JsonObject;
}

/** One component of the published document by its original name (3.1, refs renamed). */
export function publishedComponent(kind: string, name: string): Json | undefined {
  const found = ((spec().components as JsonObject)[kind] as JsonObject | undefined)?.[name];
  return found === undefined ? undefined : to31(found);
}

/** The published document's version, part of each project document's identity. */
export function publishedVersion(): string {
  return String((spec().info as JsonObject).version);
}
