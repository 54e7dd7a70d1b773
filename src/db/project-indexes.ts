// The MongoDB side of a collection definition in a project database: the collection itself and
// the indexes its definition asks for (`u_<field>` unique for each unique field, `o_<field>` on the
// RLS owner field, `i_<name>` for each index the developer declared). Other names are never touched.
//
// A trashed document must not hold its unique values. Partial indexes would say so, but
// mongo-java-server ignores their filter and FerretDB 1.x has none; so a trashed document carries
// `TRASH_KEY` (its own `_id`) and every unique index is `{ <field>: 1, [TRASH_KEY]: 1 }`, sparse:
// active documents, which lack the key, are compared on `(value, null)` and still clash, while
// each trashed one has a key pair of its own. Sparse compound indexes skip a document only when it
// lacks every key, so active documents without the field still never collide.
import { MongoServerError, type Db, type IndexDescription } from 'mongodb';
import { isDuplicateKey } from './errors.js';
import { abortable, underDeadline } from './external-deadline.js';
import type { IndexDef } from '../services/types.js';

const NAMESPACE_NOT_FOUND = 26;
const NAMESPACE_EXISTS = 48;
const INDEX_NOT_FOUND = 27;
/** The indexes `sync` drops when the definition no longer asks for them (declared ones: `dropDeclared`). */
const MANAGED = /^[uo]_/;

/** Set on a trashed document only (its own `_id`); never shown outside src/db. */
export const TRASH_KEY = '_trashId';
/** Set on the rows of a collection import under way (its job id; db/import-rows.ts); never shown. */
export const IMPORT_KEY = '_importJob';

export interface WantedIndexes {
  /** Top-level fields that must be unique. */
  unique: string[];
  /** The RLS owner field, when RLS is enabled. */
  owner?: string;
  /** Declared indexes: created when missing, never dropped by `sync` (see `dropDeclared`). */
  declared?: DeclaredIndex[];
}

export type DeclaredIndex = Pick<IndexDef, 'name' | 'keys' | 'unique'>;

export interface DuplicateValue {
  value: unknown;
  count: number;
}

export type IndexSyncResult =
  | { ok: true; created: string[]; dropped: string[] }
  | { ok: false; fields: string[]; duplicates: DuplicateValue[]; sameKeysAs?: string };

const isServerError = (err: unknown, code: number) => err instanceof MongoServerError && err.code === code;

/**
 * The unique index of `field`. Sparse so that documents without an optional unique field do not
 * collide on its absence; with `TRASH_KEY` so that trashed documents do not hold their values
 * (see the header: a partial index would say both, but not on every server the project runs on).
 */
export const uniqueIndexSpec = (field: string) => ({
  key: { [field]: 1, [TRASH_KEY]: 1 } as Record<string, 1>,
  name: `u_${field}`,
  unique: true,
  sparse: true,
});

/**
 * The index of a declared one. A TTL index is a plain index on its Date field: the worker's sweep
 * (jobs/ttl-sweep.ts) removes expired documents, on every engine, and gives their bytes back;
 * MongoDB's own TTL monitor would delete them without the quota knowing.
 */
export const declaredIndexSpec = (index: DeclaredIndex): IndexDescription => {
  const key: Record<string, 1 | -1> = {};
  for (const k of index.keys) key[k.field] = k.direction;
  if (!index.unique) return { key, name: `i_${index.name}` };
  key[TRASH_KEY] = 1;
  return { key, name: `i_${index.name}`, unique: true, sparse: true };
};

function wantedSpecs(wanted: WantedIndexes): IndexDescription[] {
  const specs: IndexDescription[] = wanted.unique.map(uniqueIndexSpec);
  // A unique index on the owner field already serves owner lookups; MongoDB refuses two indexes
  // with the same key pattern anyway.
  if (wanted.owner && !wanted.unique.includes(wanted.owner)) {
    specs.push({ key: { [wanted.owner]: 1 }, name: `o_${wanted.owner}` });
  }
  for (const index of wanted.declared ?? []) specs.push(declaredIndexSpec(index));
  return specs;
}

export function projectIndexes(db: Db) {
  /** Every operation on a project's own database runs under its deadline (external-deadline.ts). */
  const timed = <T>(op: (deadline: object) => Promise<T>): Promise<T> =>
    underDeadline(db, (signal) => op(abortable(signal)));

  /** Index names with their key pattern as text (to tell an outdated managed index). */
  async function existingKeys(collection: string): Promise<Map<string, string>> {
    try {
      const indexes = await timed((deadline) => db.collection(collection).listIndexes(deadline).toArray());
      return new Map(indexes.map((index) => [String(index.name), JSON.stringify(index.key)]));
    } catch (err) {
      if (isServerError(err, NAMESPACE_NOT_FOUND)) return new Map();
      throw err;
    }
  }

  async function dropIndexes(collection: string, names: string[]): Promise<void> {
    for (const name of names) {
      await timed((deadline) => db.collection(collection).dropIndex(name, deadline)).catch((err) => {
        // Already gone (or its collection is): nothing left to drop.
        if (!isServerError(err, INDEX_NOT_FOUND) && !isServerError(err, NAMESPACE_NOT_FOUND)) throw err;
      });
    }
  }

  /**
   * Up to `limit` values of `fields` (one value, or an object of the values of several fields)
   * that more than one active document shares, most frequent first.
   */
  async function findDuplicates(collection: string, fields: string[], limit = 5): Promise<DuplicateValue[]> {
    const present = Object.fromEntries(fields.map((f) => [f, { $exists: true }]));
    const group =
      fields.length === 1
        ? `$${fields[0]}`
        : Object.fromEntries(fields.map((f) => [f.replace(/\./g, '_'), `$${f}`]));
    const rows = await timed((deadline) =>
      db
        .collection(collection)
        .aggregate<{ _id: unknown; count: number }>(
          [
            // Trashed documents do not take part in the index, so they are no duplicates either.
            { $match: { ...present, [TRASH_KEY]: { $exists: false } } },
            { $group: { _id: group, count: { $sum: 1 } } },
            { $match: { count: { $gt: 1 } } },
            { $sort: { count: -1 } },
            { $limit: limit },
          ],
          deadline,
        )
        .toArray(),
    );
    return rows.map((row) => ({ value: row._id, count: row.count }));
  }

  /** Creates the collection if it does not exist yet. */
  async function ensureCollection(collection: string): Promise<void> {
    try {
      await timed((deadline) => db.createCollection(collection, deadline));
    } catch (err) {
      if (!isServerError(err, NAMESPACE_EXISTS)) throw err;
    }
  }

  /** Builds `spec`; a clash of values drops it again and answers the duplicates. */
  async function build(collection: string, spec: IndexDescription): Promise<IndexSyncResult> {
    const { key, ...options } = spec;
    try {
      await timed((deadline) =>
        db.collection(collection).createIndex(key as Record<string, 1 | -1>, { ...options, ...deadline }),
      );
      return { ok: true, created: [spec.name!], dropped: [] };
    } catch (err) {
      if (!isDuplicateKey(err)) throw err;
      // A build that failed half-way may have left the index on some servers.
      await dropIndexes(collection, [spec.name!]);
      const fields = Object.keys(key).filter((f) => f !== TRASH_KEY);
      return { ok: false, fields, duplicates: await findDuplicates(collection, fields) };
    }
  }

  return {
    findDuplicates,

    /**
     * Builds a declared index (MongoDB 4.2+ builds hold their exclusive lock only at the start and
     * the end, so writes go on meanwhile), or reports the values that keep it from being unique.
     * An index of that name already there is left as it is.
     */
    async createDeclared(collection: string, index: DeclaredIndex): Promise<IndexSyncResult> {
      await ensureCollection(collection);
      const spec = declaredIndexSpec(index);
      const existing = await existingKeys(collection);
      if (existing.has(spec.name!)) return { ok: true, created: [], dropped: [] };
      // MongoDB refuses a second index of the same key pattern (one made outside the service on
      // a project's own database, say): named here rather than failing as an unknown error.
      const pattern = JSON.stringify(spec.key);
      const twin = [...existing].find(([, key]) => key === pattern);
      if (twin)
        return { ok: false, fields: index.keys.map((k) => k.field), duplicates: [], sameKeysAs: twin[0] };
      return build(collection, spec);
    },

    /** Drops a declared index; a missing one is fine. */
    dropDeclared: (collection: string, name: string) => dropIndexes(collection, [`i_${name}`]),

    ensureCollection,

    /** The documents of a collection (trashed ones included), from its metadata where the server keeps it. */
    estimatedCount: (collection: string) =>
      timed((deadline) => db.collection(collection).estimatedDocumentCount(deadline)),

    /** Drops the collection and its documents; a missing collection is fine. */
    async dropCollection(collection: string): Promise<void> {
      try {
        await timed((deadline) => db.collection(collection).drop(deadline));
      } catch (err) {
        if (!isServerError(err, NAMESPACE_NOT_FOUND)) throw err;
      }
    },

    /**
     * Makes the managed indexes match `wanted`: creates the missing ones first and, only when all
     * of them exist, drops those no longer wanted. When a unique index cannot be built because
     * values repeat, the indexes created by this call are dropped again and the duplicates are
     * reported; nothing else has changed by then.
     */
    async sync(collection: string, wanted: WantedIndexes): Promise<IndexSyncResult> {
      const existingIndexes = await existingKeys(collection);
      const specs = wantedSpecs(wanted);
      // A managed index of an older shape (a unique index without TRASH_KEY) is rebuilt: dropped
      // first, since the name is the same; uniqueness is unguarded for that moment only.
      const outdated = specs.filter((spec) => {
        const key = existingIndexes.get(spec.name!);
        return key !== undefined && key !== JSON.stringify(spec.key);
      });
      await dropIndexes(
        collection,
        outdated.map((spec) => spec.name!),
      );
      for (const spec of outdated) existingIndexes.delete(spec.name!);
      const existing = new Set(existingIndexes.keys());
      const created: string[] = [];
      for (const spec of specs) {
        if (existing.has(spec.name!)) continue;
        const result = await build(collection, spec);
        if (!result.ok) {
          await dropIndexes(collection, created);
          return result;
        }
        created.push(spec.name!);
      }
      const wantedNames = new Set(specs.map((s) => s.name));
      const dropped = [...existing].filter((name) => MANAGED.test(name) && !wantedNames.has(name));
      await dropIndexes(collection, dropped);
      return { ok: true, created, dropped };
    },
  };
}

export type ProjectIndexes = ReturnType<typeof projectIndexes>;
