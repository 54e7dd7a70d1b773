// Declared indexes checked against their collection (keys that name fields, of the schema in schema
// mode; a name; uniqueness; the TTL rules), and the list of every index a definition implies. Pure.
import { ApiError, badRequest, forbidden } from '../../http/errors.js';
import { resolvePath } from '../data/field-paths.js';
import type { CollectionDef, IndexDef, IndexKey } from '../types.js';
import { counted } from '../../lib/words.js';

export const MAX_INDEX_KEYS = 8;
/** Ten years: a longer lifetime is no expiry a developer means. */
export const MAX_EXPIRE_AFTER_SECONDS = 10 * 365 * 24 * 3600;
const NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/;

export interface RawIndexInput {
  name?: unknown;
  keys?: unknown;
  unique?: unknown;
  expireAfterSeconds?: unknown;
}

/** What a member may not do (the 403's words). */
export const TTL_ACT = 'declare a TTL index (expireAfterSeconds): it deletes documents';

/** Whether a raw `indexes` list of a collection body declares a TTL index. */
export const declaresTtl = (indexes: unknown) =>
  Array.isArray(indexes) &&
  indexes.some((i) => i && typeof i === 'object' && (i as RawIndexInput).expireAfterSeconds !== undefined);

export type CheckedIndex = Omit<IndexDef, 'createdAt'>;

const fail = (message: string, path: string, code = 'VALIDATION_FAILED') =>
  badRequest(message, [{ path, message }], code);

/** The name MongoDB would give (`title_1_createdAt_-1`), dots kept. */
export const defaultIndexName = (keys: readonly IndexKey[]) =>
  keys.map((k) => `${k.field}_${k.direction}`).join('_');

/** What checking an index needs of its collection. */
type IndexedCollection = Pick<CollectionDef, 'name' | 'mode' | 'fields'>;

function checkKey(def: IndexedCollection, raw: unknown, at: string): IndexKey & { type: string } {
  if (!raw || typeof raw !== 'object') throw fail(`${at} must be an object with a field`, at);
  const { field, direction = 1 } = raw as { field?: unknown; direction?: unknown };
  if (typeof field !== 'string' || field === '')
    throw fail(`${at}.field must be a field name`, `${at}.field`);
  if (direction !== 1 && direction !== -1) {
    throw fail(`${at}.direction must be 1 (ascending) or -1 (descending)`, `${at}.direction`);
  }
  try {
    const { path, type } = resolvePath(def as CollectionDef, field, 'sort', `Invalid index key "${field}"`);
    return { field: path, direction, type };
  } catch (err) {
    // The path checker speaks of query parameters; an index names a key of the body.
    if (err instanceof ApiError) throw fail(err.message, `${at}.field`, err.code);
    throw err;
  }
}

export function checkIndexInput(def: IndexedCollection, input: RawIndexInput, at = ''): CheckedIndex {
  try {
    return checkOne(def, input);
  } catch (err) {
    // In a collection's body the paths are under `indexes[i]`.
    if (!at || !(err instanceof ApiError)) throw err;
    const details = err.details?.map((d) => ({ ...d, path: `${at}.${d.path}` }));
    throw badRequest(`${at}: ${err.message}`, details, err.code);
  }
}

/** 403 past the plan's `indexesPerCollection`: at a new collection's body and at an index added later. */
export const indexPlanLimit = (limit: number) =>
  forbidden(
    `Plan limit reached: a collection may have at most ${counted(limit, 'declared index', 'declared indexes')} (indexesPerCollection)`,
    'PLAN_LIMIT',
  );

/**
 * The indexes of a new collection's body: each checked, at most `limit` (403 past it), no two
 * with a name or the same keys, none with the keys of an index the definition implies.
 */
export function checkCollectionIndexes(
  def: IndexedCollection & Pick<CollectionDef, 'rls'>,
  raw: unknown,
  limit: number,
): IndexDef[] | undefined {
  if (raw === undefined) return undefined;
  if (!Array.isArray(raw)) throw fail('indexes must be a list', 'indexes');
  if (raw.length > limit) throw indexPlanLimit(limit);
  const checked: CheckedIndex[] = [];
  const implied = collectionIndexes({ ...def, indexes: [] });
  for (const [i, item] of raw.entries()) {
    const index = checkIndexInput(def, (item ?? {}) as RawIndexInput, `indexes[${i}]`);
    const twin = [...implied, ...checked].find((o) => o.name === index.name || sameKeys(o.keys, index.keys));
    if (twin)
      throw fail(`indexes[${i}]: index "${twin.name}" has this name or these keys already`, `indexes[${i}]`);
    checked.push(index);
  }
  const createdAt = new Date();
  return checked.map((index) => ({ ...index, createdAt }));
}

function checkOne(def: IndexedCollection, input: RawIndexInput): CheckedIndex {
  if (!Array.isArray(input.keys) || input.keys.length === 0 || input.keys.length > MAX_INDEX_KEYS) {
    throw fail(`keys must list 1 to ${MAX_INDEX_KEYS} fields`, 'keys');
  }
  const typed = input.keys.map((raw, i) => checkKey(def, raw, `keys[${i}]`));
  // `_id` has its index; after other keys it is the tie-break a sorted list needs.
  if (typed[0]!.field === '_id')
    throw fail('_id is always indexed: it may only follow other keys', 'keys[0].field');
  const seen = new Set<string>();
  for (const [i, key] of typed.entries()) {
    if (seen.has(key.field)) throw fail(`${key.field} appears twice in keys`, `keys[${i}].field`);
    seen.add(key.field);
  }
  const keys = typed.map(({ field, direction }) => ({ field, direction }));
  if (input.unique !== undefined && typeof input.unique !== 'boolean') {
    throw fail('unique must be true or false', 'unique');
  }
  const unique = input.unique === true;
  const name = input.name ?? defaultIndexName(keys);
  if (typeof name !== 'string' || !NAME.test(name)) {
    throw fail(
      input.name === undefined
        ? `The generated name "${String(name)}" is over 64 characters: give the index a name`
        : 'name must be 1 to 64 letters, digits, "_", "-" or ".", starting with a letter or digit',
      'name',
    );
  }
  const checked: CheckedIndex = { name, keys, unique };
  if (input.expireAfterSeconds === undefined) return checked;
  const seconds = input.expireAfterSeconds;
  if (
    typeof seconds !== 'number' ||
    !Number.isInteger(seconds) ||
    seconds < 0 ||
    seconds > MAX_EXPIRE_AFTER_SECONDS
  ) {
    throw fail(
      `expireAfterSeconds must be an integer from 0 to ${MAX_EXPIRE_AFTER_SECONDS}`,
      'expireAfterSeconds',
    );
  }
  // Accounts end through the end-user management (tokens, files); never silently by a sweep.
  if (def.name === 'users') throw fail('The users collection cannot have a TTL index', 'expireAfterSeconds');
  if (keys.length !== 1) throw fail('A TTL index (expireAfterSeconds) has exactly one key', 'keys');
  if (unique) throw fail('A TTL index (expireAfterSeconds) cannot be unique', 'unique');
  const type = typed[0]!.type;
  if (type !== 'Date') {
    throw fail(
      type === 'any'
        ? `A TTL index needs a Date field: a flexible collection stores ${keys[0]!.field} as JSON sends it (never a date), so only createdAt and updatedAt can expire documents; use a Date field of a schema-mode collection`
        : `A TTL index needs a Date field; ${keys[0]!.field} is a ${type} field`,
      'keys[0].field',
      'NOT_A_DATE_FIELD',
    );
  }
  return { ...checked, expireAfterSeconds: seconds };
}

/** The same keys in the same order and directions (MongoDB allows one index per key pattern). */
export const sameKeys = (a: readonly IndexKey[], b: readonly IndexKey[]) =>
  a.length === b.length && a.every((k, i) => k.field === b[i]!.field && k.direction === b[i]!.direction);

export type IndexSource = 'declared' | 'unique-field' | 'owner-field';

/** An index as listed: a declared one, or one the definition implies (not droppable here). */
export interface ListedIndex {
  name: string;
  keys: IndexKey[];
  unique: boolean;
  expireAfterSeconds?: number;
  source: IndexSource;
  createdAt?: Date;
}

/** Every index of a collection the service makes, implied ones first (their database names). */
export function collectionIndexes(def: Pick<CollectionDef, 'fields' | 'rls' | 'indexes'>): ListedIndex[] {
  const listed: ListedIndex[] = def.fields
    .filter((f) => f.unique)
    .map((f) => ({
      name: `u_${f.name}`,
      keys: [{ field: f.name, direction: 1 }],
      unique: true,
      source: 'unique-field',
    }));
  const owner = def.rls.enabled ? def.rls.ownerField : undefined;
  if (owner && !def.fields.some((f) => f.unique && f.name === owner)) {
    listed.push({
      name: `o_${owner}`,
      keys: [{ field: owner, direction: 1 }],
      unique: false,
      source: 'owner-field',
    });
  }
  for (const index of def.indexes ?? []) listed.push({ ...index, source: 'declared' });
  return listed;
}
