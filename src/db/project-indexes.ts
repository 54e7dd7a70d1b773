// The MongoDB side of a collection definition in a project database: the collection itself and
// the indexes its definition asks for (`u_<field>` unique for each unique field, `o_<field>` on the
// RLS owner field). Indexes under other names are never touched.
import { MongoServerError, type Db, type IndexDescription } from 'mongodb';
import { isDuplicateKey } from './errors.js';

const NAMESPACE_NOT_FOUND = 26;
const NAMESPACE_EXISTS = 48;
const INDEX_NOT_FOUND = 27;
const MANAGED = /^[uo]_/;

export interface WantedIndexes {
  /** Top-level fields that must be unique. */
  unique: string[];
  /** The RLS owner field, when RLS is enabled. */
  owner?: string;
}

export interface DuplicateValue {
  value: unknown;
  count: number;
}

export type IndexSyncResult =
  | { ok: true; created: string[]; dropped: string[] }
  | { ok: false; field: string; duplicates: DuplicateValue[] };

const isServerError = (err: unknown, code: number) => err instanceof MongoServerError && err.code === code;

/**
 * Unique indexes are sparse so that documents without an optional unique field do not collide on
 * its absence. (A partial index on `$exists` would say the same, but some MongoDB-compatible
 * servers ignore partial filters, and a sparse index means the same thing on every server.)
 */
function wantedSpecs(wanted: WantedIndexes): IndexDescription[] {
  const specs: IndexDescription[] = wanted.unique.map((field) => ({
    key: { [field]: 1 },
    name: `u_${field}`,
    unique: true,
    sparse: true,
  }));
  // A unique index on the owner field already serves owner lookups; MongoDB refuses two indexes
  // with the same key pattern anyway.
  if (wanted.owner && !wanted.unique.includes(wanted.owner)) {
    specs.push({ key: { [wanted.owner]: 1 }, name: `o_${wanted.owner}` });
  }
  return specs;
}

export function projectIndexes(db: Db) {
  async function existingNames(collection: string): Promise<string[]> {
    try {
      const indexes = await db.collection(collection).listIndexes().toArray();
      return indexes.map((index) => String(index.name));
    } catch (err) {
      if (isServerError(err, NAMESPACE_NOT_FOUND)) return [];
      throw err;
    }
  }

  async function dropIndexes(collection: string, names: string[]): Promise<void> {
    for (const name of names) {
      await db
        .collection(collection)
        .dropIndex(name)
        .catch((err) => {
          // Already gone (or its collection is): nothing left to drop.
          if (!isServerError(err, INDEX_NOT_FOUND) && !isServerError(err, NAMESPACE_NOT_FOUND)) throw err;
        });
    }
  }

  /** Up to `limit` values of `field` that more than one document shares, most frequent first. */
  async function findDuplicates(collection: string, field: string, limit = 5): Promise<DuplicateValue[]> {
    const rows = await db
      .collection(collection)
      .aggregate<{ _id: unknown; count: number }>([
        { $match: { [field]: { $exists: true } } },
        { $group: { _id: `$${field}`, count: { $sum: 1 } } },
        { $match: { count: { $gt: 1 } } },
        { $sort: { count: -1 } },
        { $limit: limit },
      ])
      .toArray();
    return rows.map((row) => ({ value: row._id, count: row.count }));
  }

  return {
    findDuplicates,

    /** Creates the collection if it does not exist yet. */
    async ensureCollection(collection: string): Promise<void> {
      try {
        await db.createCollection(collection);
      } catch (err) {
        if (!isServerError(err, NAMESPACE_EXISTS)) throw err;
      }
    },

    /** Drops the collection and its documents; a missing collection is fine. */
    async dropCollection(collection: string): Promise<void> {
      try {
        await db.collection(collection).drop();
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
      const existing = new Set(await existingNames(collection));
      const specs = wantedSpecs(wanted);
      const created: string[] = [];
      for (const spec of specs) {
        if (existing.has(spec.name!)) continue;
        const { key, ...options } = spec;
        try {
          await db.collection(collection).createIndex(key, options);
          created.push(spec.name!);
        } catch (err) {
          await dropIndexes(collection, created);
          if (!isDuplicateKey(err)) throw err;
          const field = Object.keys(key)[0]!;
          return { ok: false, field, duplicates: await findDuplicates(collection, field) };
        }
      }
      const wantedNames = new Set(specs.map((s) => s.name));
      const dropped = [...existing].filter((name) => MANAGED.test(name) && !wantedNames.has(name));
      await dropIndexes(collection, dropped);
      return { ok: true, created, dropped };
    },
  };
}

export type ProjectIndexes = ReturnType<typeof projectIndexes>;
