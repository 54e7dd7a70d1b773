// The rules of a collection definition (SERVICE-SPEC "Collection", "Field types", "Field
// constraints"): its name, mode, fields, the reserved `users` contract and the RLS settings.
// Pure: the caller supplies the names of the project's collections for Ref targets.
import { badRequest } from '../../http/errors.js';
import type { CollectionMode, FieldDef, FieldType, RlsSettings } from '../types.js';
import { fieldNameProblem, SYSTEM_FIELDS } from './field-names.js';
import { article, fail, isObject } from './definition-errors.js';
import {
  applyUsersContract,
  checkRls,
  checkUserFieldFlags,
  impliedUsersFlags,
  USERS,
} from './collection-settings.js';

export { DEFAULT_RLS, USERS } from './collection-settings.js';

export const FIELD_TYPES: readonly FieldType[] = [
  'String',
  'Number',
  'Boolean',
  'Date',
  'Object',
  'Array',
  'Ref',
];
const DEFAULT_TYPES: ReadonlySet<FieldType> = new Set(['String', 'Number', 'Boolean']);
const UNIQUE_TYPES: ReadonlySet<FieldType> = new Set(['String', 'Number', 'Boolean', 'Date', 'Ref']);
const DEFAULT_TYPEOF: Partial<Record<FieldType, string>> = {
  String: 'string',
  Number: 'number',
  Boolean: 'boolean',
};

export const COLLECTION_NAME = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;
/** Top-level fields are level 1; Object sub-fields (and Array item sub-fields) go down to 3. */
export const MAX_NESTING = 3;
export const MAX_FIELDS_PER_LEVEL = 200;
export const MAX_FIELD_NAME_LENGTH = 100;
export const DEFAULT_MESSAGE = 'Default is only allowed on non-required String, Number and Boolean fields';

/** A collection definition as a client sends it; every part is checked here. */
export interface RawCollectionInput {
  name?: unknown;
  mode?: unknown;
  fields?: unknown;
  rls?: unknown;
  /** Declared indexes, on create only (checked by schema/index-definitions.ts). */
  indexes?: unknown;
}

export interface CheckedCollection {
  name: string;
  mode: CollectionMode;
  fields: FieldDef[];
  rls: RlsSettings;
}

export interface DefinitionContext {
  /** Names of the project's registered collections (Ref targets). */
  existingCollections: ReadonlySet<string>;
  /** On update: the stored RLS settings, kept for parts the body leaves out. */
  currentRls?: RlsSettings;
  /** On update: the stored mode, kept when the body leaves it out. */
  currentMode?: CollectionMode;
  /** Create adds missing `users` contract fields; update refuses their removal. */
  operation: 'create' | 'update';
}

export function checkCollectionName(name: unknown): string {
  if (typeof name !== 'string' || !COLLECTION_NAME.test(name)) {
    throw badRequest(
      'Collection name must be 1 to 64 letters, digits, "_" or "-", starting with a letter',
      [{ path: 'name', message: 'name must match ^[A-Za-z][A-Za-z0-9_-]{0,63}$' }],
      'INVALID_COLLECTION_NAME',
    );
  }
  return name;
}

function checkFieldList(
  raw: unknown,
  path: string,
  level: number,
  ctx: DefinitionContext,
  self: string,
  parent = '',
): FieldDef[] {
  if (!Array.isArray(raw)) throw fail(`${path} must be an array of fields`, path);
  if (raw.length > MAX_FIELDS_PER_LEVEL)
    throw fail(`${path} has more than ${MAX_FIELDS_PER_LEVEL} fields`, path);
  const seen = new Set<string>();
  return raw.map((item, i) => {
    const field = checkField(item, `${path}.${i}`, level, ctx, self, parent);
    if (seen.has(field.name))
      throw fail(`Duplicate field name "${parent}${field.name}"`, `${path}.${i}.name`);
    seen.add(field.name);
    return field;
  });
}

function checkField(
  raw: unknown,
  path: string,
  level: number,
  ctx: DefinitionContext,
  self: string,
  parent: string,
): FieldDef {
  if (!isObject(raw)) throw fail(`${path} must be a field definition object`, path);
  const { name, type } = raw;
  if (typeof name !== 'string') throw fail(`${path}.name is required`, `${path}.name`);
  const problem =
    fieldNameProblem(name) ??
    (name.length > MAX_FIELD_NAME_LENGTH ? `is longer than ${MAX_FIELD_NAME_LENGTH} characters` : undefined);
  if (problem) throw fail(`Invalid field name "${name}": ${problem}`, `${path}.name`);
  if (level === 1 && SYSTEM_FIELDS.has(name)) {
    throw fail(
      `Invalid field name "${name}": ${name} is a system field and cannot be defined`,
      `${path}.name`,
    );
  }
  if (typeof type !== 'string' || !FIELD_TYPES.includes(type as FieldType)) {
    throw fail(`Field "${name}" has an unknown type; use one of ${FIELD_TYPES.join(', ')}`, `${path}.type`);
  }
  const field: FieldDef = {
    name,
    type: type as FieldType,
    required: raw.required === true,
    unique: raw.unique === true,
  };
  for (const flag of ['required', 'unique'] as const) {
    if (raw[flag] !== undefined && typeof raw[flag] !== 'boolean')
      throw fail(`${flag} of "${name}" must be a boolean`, `${path}.${flag}`);
  }
  if (field.unique && (level > 1 || !UNIQUE_TYPES.has(field.type))) {
    throw fail(
      `Unique is only allowed on top-level String, Number, Boolean, Date and Ref fields (${name} is ${level > 1 ? 'nested' : article(field.type)})`,
      `${path}.unique`,
    );
  }
  // A default is checked first, then cleared by required (the spec: marking a field required clears it).
  if (raw.default !== undefined && raw.default !== null) {
    if (!DEFAULT_TYPES.has(field.type))
      throw fail(`${DEFAULT_MESSAGE} (${name} is ${article(field.type)})`, `${path}.default`);
    if (
      typeof raw.default !== DEFAULT_TYPEOF[field.type] ||
      (field.type === 'Number' && !Number.isFinite(raw.default))
    ) {
      throw fail(`Default of "${name}" must be a ${field.type}`, `${path}.default`);
    }
    if (!field.required) field.default = raw.default as string | number | boolean;
  }
  checkUserFieldFlags(raw, field, path, level, self);
  checkSubFields(raw, field, path, level, ctx, self, `${parent}${name}.`);
  return field;
}

function checkSubFields(
  raw: Record<string, unknown>,
  field: FieldDef,
  path: string,
  level: number,
  ctx: DefinitionContext,
  self: string,
  display: string,
): void {
  const { name } = field;
  if (raw.fields !== undefined && field.type !== 'Object')
    throw fail(
      `Only Object fields may have sub-fields (${name} is ${article(field.type)})`,
      `${path}.fields`,
    );
  if (raw.items !== undefined && field.type !== 'Array')
    throw fail(`Only Array fields may have "items" (${name} is ${article(field.type)})`, `${path}.items`);
  if (raw.ref !== undefined && field.type !== 'Ref')
    throw fail(`Only Ref fields may have "ref" (${name} is ${article(field.type)})`, `${path}.ref`);

  if (field.type === 'Object' && raw.fields !== undefined) {
    const sub = nested(raw.fields, `${path}.fields`, name, level, ctx, self, display);
    if (sub.length) field.fields = sub;
  }
  if (field.type === 'Ref') field.ref = checkRef(raw.ref, name, `${path}.ref`, ctx, self);
  if (field.type === 'Array' && raw.items !== undefined) {
    const items = raw.items;
    if (!isObject(items)) throw fail(`items of "${name}" must be an object with a type`, `${path}.items`);
    const itemType = items.type;
    if (itemType === 'Array') throw fail(`Array items cannot be Arrays (${name})`, `${path}.items.type`);
    if (typeof itemType !== 'string' || !FIELD_TYPES.includes(itemType as FieldType)) {
      throw fail(
        `items of "${name}" has an unknown type; use one of ${FIELD_TYPES.filter((t) => t !== 'Array').join(', ')}`,
        `${path}.items.type`,
      );
    }
    const unknown = Object.keys(items).find((k) => !['type', 'fields', 'ref'].includes(k));
    if (unknown) throw fail(`items of "${name}" must not have "${unknown}"`, `${path}.items.${unknown}`);
    const out: NonNullable<FieldDef['items']> = { type: itemType as Exclude<FieldType, 'Array'> };
    if (items.fields !== undefined) {
      if (itemType !== 'Object')
        throw fail(`Only Object items may have sub-fields (${name})`, `${path}.items.fields`);
      const sub = nested(items.fields, `${path}.items.fields`, name, level, ctx, self, display);
      if (sub.length) out.fields = sub;
    }
    if (itemType === 'Ref') out.ref = checkRef(items.ref, name, `${path}.items.ref`, ctx, self);
    else if (items.ref !== undefined)
      throw fail(`Only Ref items may have "ref" (${name})`, `${path}.items.ref`);
    field.items = out;
  }
}

function nested(
  raw: unknown,
  path: string,
  name: string,
  level: number,
  ctx: DefinitionContext,
  self: string,
  display: string,
) {
  if (level >= MAX_NESTING && Array.isArray(raw) && raw.length > 0) {
    throw fail(
      `Object fields can be nested at most ${MAX_NESTING} levels deep (${name} is at level ${level})`,
      path,
    );
  }
  return checkFieldList(raw, path, level + 1, ctx, self, display);
}

function checkRef(ref: unknown, name: string, path: string, ctx: DefinitionContext, self: string): string {
  if (typeof ref !== 'string' || ref === '')
    throw fail(`Ref field "${name}" must name its target collection in "ref"`, path);
  if (ref !== self && !ctx.existingCollections.has(ref)) {
    throw fail(
      `Ref field "${name}" points to collection "${ref}", which does not exist in this project`,
      path,
    );
  }
  return ref;
}

/**
 * Checks a collection definition and returns it normalised: `required` and `unique` explicit,
 * defaults only where allowed, the `users` contract in place, RLS completed with its defaults.
 */
export function checkCollectionInput(input: RawCollectionInput, ctx: DefinitionContext): CheckedCollection {
  const name = checkCollectionName(input.name);
  const mode = input.mode ?? ctx.currentMode ?? 'flexible';
  if (mode !== 'flexible' && mode !== 'schema') throw fail('mode must be "flexible" or "schema"', 'mode');
  // A flexible collection has no schema to be empty: it may have no field at all. On update,
  // fields left out stay an error (the body replaces them; an omission must not wipe them).
  const given: unknown = input.fields === undefined && ctx.operation === 'create' ? [] : input.fields;
  if (!Array.isArray(given) || (given.length === 0 && mode !== 'flexible')) {
    throw badRequest(
      'At least one field is required',
      [{ path: 'fields', message: 'At least one field is required' }],
      'VALIDATION_FAILED',
    );
  }
  const rawFields = name === USERS ? structuredClone(given) : given;
  if (name === USERS) impliedUsersFlags(rawFields);
  let fields = checkFieldList(rawFields, 'fields', 1, ctx, name);
  if (name === USERS) fields = applyUsersContract(fields, ctx.operation);
  return { name, mode, fields, rls: checkRls(input.rls, fields, ctx.currentRls) };
}
