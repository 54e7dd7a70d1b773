// Field-name rules shared by document bodies and collection definitions (DECISIONS §3): names that
// MongoDB would read as operators or paths, prototype keys and system fields are refused with a 400
// naming the field, never silently rewritten.
import { badRequest } from '../../http/errors.js';
import { IMPORT_KEY, TRASH_KEY } from '../../db/project-indexes.js';

/** Managed by the service on every document; clients cannot set them. */
export const SYSTEM_FIELDS: ReadonlySet<string> = new Set([
  '_id',
  'isDeleted',
  'deletedAt',
  'createdAt',
  'updatedAt',
  // The trash marker of the unique indexes (db/project-indexes.ts), never shown to clients.
  TRASH_KEY,
  // The mark of a row of a collection import under way (db/import-rows.ts).
  IMPORT_KEY,
]);

/**
 * Prototype keys, and `_bsontype`, which the BSON serializer reads as the type tag of a driver
 * value (an object carrying it is not stored as a document).
 */
const RESERVED_NAMES: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype', '_bsontype']);

/** Deeper bodies are refused before any recursive walk can exhaust the stack. */
export const MAX_BODY_DEPTH = 64;

/** Why `name` is not a usable field name (one path segment), or undefined when it is. */
export function fieldNameProblem(name: string): string | undefined {
  if (name === '') return 'must not be empty';
  if (name.startsWith('$')) return 'must not start with "$"';
  if (name.includes('.')) return 'must not contain "."';
  if (name.includes('\0')) return 'must not contain a NUL character';
  if (RESERVED_NAMES.has(name)) return 'is a reserved name';
  if (name.trim() !== name) return 'must not start or end with white space';
  return undefined;
}

const invalidName = (path: string, problem: string) =>
  badRequest(
    `Invalid field name "${path}": ${problem}`,
    [{ path, message: `${path} ${problem}` }],
    'INVALID_FIELD_NAME',
  );

export const systemFieldError = (path: string) =>
  badRequest(
    `Invalid field name "${path}": ${path} is a system field and cannot be set`,
    [{ path, message: `${path} is a system field and cannot be set` }],
    'SYSTEM_FIELD',
  );

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function checkNested(value: unknown, path: string, depth: number): void {
  if (depth > MAX_BODY_DEPTH) {
    throw badRequest(
      `Body is nested too deeply at "${path}" (at most ${MAX_BODY_DEPTH} levels)`,
      undefined,
      'TOO_DEEP',
    );
  }
  if (Array.isArray(value)) {
    value.forEach((item, i) => checkNested(item, `${path}.${i}`, depth + 1));
  } else if (isPlainObject(value)) {
    for (const key of Object.keys(value)) {
      const problem = fieldNameProblem(key);
      if (problem) throw invalidName(`${path}.${key}`, problem);
      checkNested(value[key], `${path}.${key}`, depth + 1);
    }
  }
}

/**
 * Field-name rules for any body, recursive into nested objects and arrays. Top-level keys may be
 * dot paths (`meta.views`) when `allowDotPaths`; then every segment obeys the rules and no two
 * keys may overlap (`meta` and `meta.views` would conflict in one MongoDB update).
 */
export function assertSafeFieldNames(
  body: Record<string, unknown>,
  options: { allowDotPaths: boolean },
): void {
  const keys = Object.keys(body);
  for (const key of keys) {
    const segments = options.allowDotPaths ? key.split('.') : [key];
    for (const segment of segments) {
      const problem = fieldNameProblem(segment);
      if (problem) throw invalidName(key, segments.length > 1 ? `segment "${segment}" ${problem}` : problem);
    }
    if (SYSTEM_FIELDS.has(segments[0]!)) throw systemFieldError(key);
    checkNested(body[key], key, 1);
  }
  if (options.allowDotPaths) {
    const present = new Set(keys);
    for (const key of keys) {
      let dot = key.indexOf('.');
      while (dot !== -1) {
        const prefix = key.slice(0, dot);
        if (present.has(prefix)) {
          throw badRequest(
            `Field "${key}" conflicts with "${prefix}" in the same update`,
            [{ path: key, message: `${key} conflicts with ${prefix}` }],
            'CONFLICTING_FIELDS',
          );
        }
        dot = key.indexOf('.', dot + 1);
      }
    }
  }
}
