// The parts of a collection definition beyond its field types: the fixed contract of the reserved
// `users` collection, and the RLS settings (enabled, mode, owner field).
import type { FieldDef, RlsSettings } from '../types.js';
import { fieldNameProblem, SYSTEM_FIELDS } from './field-names.js';
import { article, fail, isObject } from './definition-errors.js';

export const USERS = 'users';

/** The fixed fields of the reserved `users` collection. */
const USERS_CONTRACT: readonly FieldDef[] = [
  { name: 'email', type: 'String', required: true, unique: true },
  { name: 'password', type: 'String', required: true, unique: false },
];

/** Flags only the fields of the `users` collection may carry (top level, not the contract fields). */
export const USER_FIELD_FLAGS = ['protected', 'private'] as const;

/**
 * Checks `protected` and `private` on a field and copies them to `field` when true. Refused with
 * a 400 outside the users collection, below the top level and on `email`/`password`, and a
 * protected field cannot be required (no end user could sign up; give it a default instead).
 */
export function checkUserFieldFlags(
  raw: Record<string, unknown>,
  field: FieldDef,
  path: string,
  level: number,
  collection: string,
): void {
  for (const flag of USER_FIELD_FLAGS) {
    const value = raw[flag];
    if (value === undefined || value === false) continue;
    if (typeof value !== 'boolean')
      throw fail(`${flag} of "${field.name}" must be a boolean`, `${path}.${flag}`);
    if (collection !== USERS)
      throw fail(
        `"${flag}" is only allowed on fields of the users collection (${field.name})`,
        `${path}.${flag}`,
      );
    if (level > 1)
      throw fail(`"${flag}" is only allowed on top-level fields (${field.name})`, `${path}.${flag}`);
    if (USERS_CONTRACT.some((c) => c.name === field.name))
      throw fail(`${field.name} is managed by the auth service and cannot be ${flag}`, `${path}.${flag}`);
    field[flag] = true;
  }
  if (field.protected && field.required) {
    throw fail(
      `Field "${field.name}" cannot be both protected and required: end users could not sign up; give it a default instead`,
      `${path}.required`,
    );
  }
}

export const DEFAULT_RLS: Readonly<RlsSettings> = Object.freeze({
  enabled: false,
  mode: 'public-read',
  ownerField: 'userId',
});

/** Adds missing `users` contract fields on create; refuses their removal, retyping or weakening. */
export function applyUsersContract(fields: FieldDef[], operation: 'create' | 'update'): FieldDef[] {
  const out = [...fields];
  for (const contract of USERS_CONTRACT) {
    const given = out.find((f) => f.name === contract.name);
    if (!given) {
      if (operation === 'update') {
        throw fail(`The users collection must keep its ${contract.name} field (String, required)`, 'fields');
      }
      out.unshift({ ...contract });
      continue;
    }
    const where = `fields.${out.indexOf(given)}`;
    if (given.type !== 'String')
      throw fail(`Field "${contract.name}" of the users collection must be a String`, `${where}.type`);
    if (!given.required)
      throw fail(`Field "${contract.name}" of the users collection must be required`, `${where}.required`);
    if (contract.unique && !given.unique)
      throw fail(`Field "${contract.name}" of the users collection must be unique`, `${where}.unique`);
  }
  return out;
}

/** The contract flags a client may leave out: they are implied, never contradicted. */
export function impliedUsersFlags(raw: unknown[]): void {
  for (const item of raw) {
    if (!isObject(item)) continue;
    const contract = USERS_CONTRACT.find((c) => c.name === item.name);
    if (!contract) continue;
    if (item.required === undefined) item.required = true;
    if (contract.unique && item.unique === undefined) item.unique = true;
  }
}

export function checkRls(raw: unknown, fields: FieldDef[], current: RlsSettings | undefined): RlsSettings {
  if (raw !== undefined && !isObject(raw)) throw fail('rls must be an object', 'rls');
  const given = raw ?? {};
  const rls: RlsSettings = { ...(current ?? DEFAULT_RLS) };
  if (given.enabled !== undefined) {
    if (typeof given.enabled !== 'boolean') throw fail('rls.enabled must be a boolean', 'rls.enabled');
    rls.enabled = given.enabled;
  }
  if (given.mode !== undefined) {
    if (given.mode !== 'public-read' && given.mode !== 'private')
      throw fail('rls.mode must be "public-read" or "private"', 'rls.mode');
    rls.mode = given.mode;
  }
  if (given.ownerField !== undefined) {
    if (
      typeof given.ownerField !== 'string' ||
      fieldNameProblem(given.ownerField) ||
      SYSTEM_FIELDS.has(given.ownerField)
    ) {
      throw fail('rls.ownerField must name a top-level field', 'rls.ownerField');
    }
    rls.ownerField = given.ownerField;
  }
  if (rls.enabled) {
    const owner = fields.find((f) => f.name === rls.ownerField);
    if (!owner)
      throw fail(`RLS owner field "${rls.ownerField}" is not a field of this collection`, 'rls.ownerField');
    if (owner.type !== 'String' && owner.type !== 'Ref') {
      throw fail(
        `RLS owner field "${rls.ownerField}" must be a String or Ref field (it is ${article(owner.type)})`,
        'rls.ownerField',
      );
    }
    // The owner field holds an end user's id: a Ref elsewhere could never match one.
    if (owner.type === 'Ref' && owner.ref !== 'users') {
      throw fail(
        `RLS owner field "${rls.ownerField}" refers to "${owner.ref}": an owner field holds an end user's id, so a Ref must point at users`,
        'rls.ownerField',
      );
    }
  }
  return rls;
}
