// Documents of registered collections in a project's database: the only module that runs queries
// and pipelines on project collections. Every query and pipeline runs under `maxTimeMS`, and reads
// also under a client-side deadline (see `limitOf`); driver errors become ApiErrors here (11000 ->
// 409 naming the field, malformed queries -> 400, a time limit -> 400 QUERY_TIMEOUT).
import {
  BSON,
  MongoOperationTimeoutError,
  MongoServerError,
  type Db,
  type Document as MongoDocument,
  type Filter,
  type Sort,
} from 'mongodb';
import { badRequest, conflict } from '../http/errors.js';
import type { Database } from './client.js';
import { duplicateKeyField, isDuplicateKey } from './errors.js';
import { ObjectId } from './ids.js';
import { TRASH_KEY } from './project-indexes.js';
import { storedSizes } from './stored-sizes.js';

/** A stored document as the services see it: `_id` and nested object ids as hex strings, Dates as Date. */
export type StoredDocument = Record<string, unknown> & { _id: string };

export interface CollectionRef {
  projectId: string;
  collection: string;
}

export interface FindOptions {
  filter: MongoDocument;
  sort?: Record<string, 1 | -1>;
  skip?: number;
  limit?: number;
  projection?: Record<string, 0 | 1>;
}

const SIZE_PLACEHOLDER_ID = new ObjectId('000000000000000000000000');
const MAX_TIME_EXPIRED = 50;
/** Server answers to a malformed query or update, as opposed to a server-side failure. */
const CLIENT_ERROR_CODES = new Set([2, 9, 14, 15, 16, 28, 40, 52, 55, 56, 57, 10334, 17419, 51091]);
/** Server answers that say the server, not the pipeline, has a problem. */
const SERVER_ERROR_CODES = new Set([
  6, 7, 11, 13, 18, 89, 91, 112, 117, 189, 202, 262, 10107, 11600, 11601, 11602, 13435, 13436,
]);

/** What a client reads when the database refuses what it asked for. */
const REFUSED = {
  pipeline:
    'Invalid pipeline: the database cannot run it; check the stage and operator names and their arguments',
  write: 'Invalid update: the database cannot apply it; check the field paths and value types',
  query: 'Invalid query: the database cannot run it; check the filter values',
} as const;

/** Converts driver values for the services: object ids become hex strings, the rest is kept. */
function fromStored(value: unknown): unknown {
  if (value instanceof ObjectId) return value.toHexString();
  if (value instanceof Date || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map(fromStored);
  const bsonType = (value as { _bsontype?: string })._bsontype;
  if (bsonType) {
    // Values an external database may hold (Decimal128, Long, Binary, ...): their JSON form.
    const json = (value as { toJSON?: () => unknown }).toJSON?.();
    return json === undefined ? String(value) : json;
  }
  const out: Record<string, unknown> = {};
  // TRASH_KEY is index bookkeeping (project-indexes.ts); clients never see it, nor can set it.
  for (const [key, item] of Object.entries(value)) if (key !== TRASH_KEY) out[key] = fromStored(item);
  return out;
}

const toDocument = (doc: MongoDocument) => fromStored(doc) as StoredDocument;

/** The BSON size of a document as stored (its `_id`, hex above src/db, counted as an ObjectId). */
export function bsonSize(doc: Record<string, unknown>): number {
  return BSON.calculateObjectSize({ ...doc, _id: SIZE_PLACEHOLDER_ID } as MongoDocument);
}

/**
 * The time limit of one read: `maxTimeMS` for the server, and an abort signal for the driver a
 * little later. Real MongoDB stops the operation itself at `maxTimeMS` (code 50) and keeps the
 * connection; a server that ignores `maxTimeMS` (mongo-java-server does) would otherwise keep the
 * request waiting for as long as the query runs. The driver's `timeoutMS` (CSOT) is still
 * experimental in driver 6 and did not bound a read here; cursor reads take an `AbortSignal`.
 */
function limitOf(timeoutMs: number): { maxTimeMS: number; signal: AbortSignal } {
  return {
    maxTimeMS: timeoutMs,
    signal: AbortSignal.timeout(timeoutMs + Math.max(100, Math.round(timeoutMs / 10))),
  };
}

const isTimeLimit = (err: unknown, signal?: AbortSignal) =>
  signal?.aborted === true ||
  err instanceof MongoOperationTimeoutError ||
  (err instanceof MongoServerError && err.code === MAX_TIME_EXPIRED);

/**
 * Rethrows a driver error as the ApiError a client should see, or as is for server failures.
 * `signal` is the read's deadline: once it fired, whatever the driver reports is the time limit.
 */
export function translateDriverError(
  err: unknown,
  what: 'query' | 'write' | 'pipeline',
  signal?: AbortSignal,
): never {
  if (isTimeLimit(err, signal)) {
    throw badRequest(
      `The ${what} took longer than the time limit; narrow the filter or add a $limit`,
      undefined,
      'QUERY_TIMEOUT',
    );
  }
  if (isDuplicateKey(err)) {
    const field = duplicateKeyField(err) ?? 'a unique field';
    throw conflict(
      `Duplicate value for "${field}": it must be unique in this collection`,
      'DUPLICATE_VALUE',
      [{ path: field, message: `${field} must be unique` }],
    );
  }
  if (err instanceof MongoServerError) {
    const code = typeof err.code === 'number' ? err.code : undefined;
    // A server error without a code comes from a server that could not run what was asked (some
    // MongoDB-compatible servers answer an invalid regular expression so); MongoDB always sets one.
    const clientError =
      code === undefined ||
      (what === 'pipeline' ? !SERVER_ERROR_CODES.has(code) : CLIENT_ERROR_CODES.has(code));
    if (clientError) {
      // Our own words: the server's message can quote internals (database and collection
      // names, server versions). It stays on the error as its cause, for the log.
      const refused = badRequest(
        REFUSED[what],
        undefined,
        what === 'pipeline' ? 'INVALID_PIPELINE' : 'BAD_REQUEST',
      );
      throw Object.assign(refused, { cause: err });
    }
  }
  throw err;
}

const asFilter = (filter: MongoDocument) => filter as Filter<MongoDocument>;

/**
 * `dbFor` gives the database that holds a project's documents: the managed `p_<projectId>` by
 * default; an external database connection replaces it per project.
 */
export function documentsRepo(
  database: Database,
  timeoutMs: number,
  dbFor: (projectId: string) => Db | Promise<Db> = (projectId) => database.project(projectId),
) {
  const collection = async ({ projectId, collection: name }: CollectionRef) =>
    (await dbFor(projectId)).collection(name);

  /**
   * One atomic update that returns the document before it; the document after is derived from
   * it with `after`, so the size difference is exact even when other writes race.
   */
  async function changeKept(
    ref: CollectionRef,
    filter: MongoDocument,
    update: MongoDocument,
    after: (before: MongoDocument) => MongoDocument,
  ): Promise<{ doc: StoredDocument; delta: number } | undefined> {
    try {
      const before = await (
        await collection(ref)
      ).findOneAndUpdate(asFilter(filter), update, { returnDocument: 'before', maxTimeMS: timeoutMs });
      if (!before) return undefined;
      const doc = after(before);
      return {
        doc: toDocument(doc),
        delta: BSON.calculateObjectSize(doc) - BSON.calculateObjectSize(before),
      };
    } catch (err) {
      translateDriverError(err, 'write');
    }
  }

  return {
    async find(ref: CollectionRef, options: FindOptions): Promise<StoredDocument[]> {
      const limit = limitOf(timeoutMs);
      try {
        const cursor = (await collection(ref)).find(asFilter(options.filter), {
          projection: options.projection,
          sort: options.sort as Sort | undefined,
          skip: options.skip || undefined,
          limit: options.limit,
          ...limit,
        });
        return (await cursor.toArray()).map(toDocument);
      } catch (err) {
        translateDriverError(err, 'query', limit.signal);
      }
    },

    async findOne(
      ref: CollectionRef,
      filter: MongoDocument,
      projection?: Record<string, 0 | 1>,
    ): Promise<StoredDocument | undefined> {
      const limit = limitOf(timeoutMs);
      try {
        const doc = await (await collection(ref)).findOne(asFilter(filter), { projection, ...limit });
        return doc ? toDocument(doc) : undefined;
      } catch (err) {
        translateDriverError(err, 'query', limit.signal);
      }
    },

    async count(ref: CollectionRef, filter: MongoDocument): Promise<number> {
      const limit = limitOf(timeoutMs);
      try {
        return await (await collection(ref)).countDocuments(asFilter(filter), limit);
      } catch (err) {
        translateDriverError(err, 'query', limit.signal);
      }
    },

    /** Inserts one document; returns it with its `_id` and its stored size. */
    async insertOne(
      ref: CollectionRef,
      doc: Record<string, unknown>,
    ): Promise<{ doc: StoredDocument; size: number }> {
      const stored = { _id: new ObjectId(), ...doc };
      try {
        await (await collection(ref)).insertOne(stored);
      } catch (err) {
        translateDriverError(err, 'write');
      }
      return { doc: toDocument(stored), size: BSON.calculateObjectSize(stored) };
    },

    /**
     * Inserts all documents or none: when the database refuses one (a unique clash), the ones
     * already written by this call are removed again before the error is reported.
     */
    async insertMany(
      ref: CollectionRef,
      docs: Record<string, unknown>[],
    ): Promise<{ docs: StoredDocument[]; size: number }> {
      const stored = docs.map((doc) => ({ _id: new ObjectId(), ...doc }));
      const target = await collection(ref);
      try {
        await target.insertMany(stored, { ordered: true });
      } catch (err) {
        await target.deleteMany({ _id: { $in: stored.map((d) => d._id) } });
        translateDriverError(err, 'write');
      }
      const size = stored.reduce((sum, doc) => sum + BSON.calculateObjectSize(doc), 0);
      return { docs: stored.map(toDocument), size };
    },

    /** Applies `$set` to the one document matching `filter`; the document after, or undefined. */
    async update(
      ref: CollectionRef,
      filter: MongoDocument,
      set: Record<string, unknown>,
    ): Promise<{ doc: StoredDocument; size: number } | undefined> {
      try {
        const doc = await (
          await collection(ref)
        ).findOneAndUpdate(
          asFilter(filter),
          { $set: set },
          { returnDocument: 'after', maxTimeMS: timeoutMs },
        );
        return doc ? { doc: toDocument(doc), size: BSON.calculateObjectSize(doc) } : undefined;
      } catch (err) {
        translateDriverError(err, 'write');
      }
    },

    /**
     * Moves the active document matching `filter` (which names its `_id`) to the trash: sets
     * `isDeleted`, `deletedAt` and TRASH_KEY, which takes it out of the unique indexes. Returns the
     * document as trashed and the exact change of its stored size, or undefined when none matched.
     */
    async trash(
      ref: CollectionRef,
      filter: MongoDocument & { _id: ObjectId },
      deletedAt: Date,
    ): Promise<{ doc: StoredDocument; delta: number } | undefined> {
      const set = { isDeleted: true, deletedAt, [TRASH_KEY]: filter._id };
      return changeKept(ref, { ...filter, isDeleted: { $ne: true } }, { $set: set }, (before) => ({
        ...before,
        ...set,
      }));
    },

    /**
     * Takes the trashed document matching `filter` out of the trash (its unique values count
     * again: a value taken meanwhile is a 409 from the index). Undefined when none matched.
     */
    async restore(
      ref: CollectionRef,
      filter: MongoDocument,
    ): Promise<{ doc: StoredDocument; delta: number } | undefined> {
      const update = { $set: { isDeleted: false, deletedAt: null }, $unset: { [TRASH_KEY]: '' } };
      return changeKept(ref, { ...filter, isDeleted: true }, update, (before) => {
        const { [TRASH_KEY]: _key, ...rest } = before;
        return { ...rest, isDeleted: false, deletedAt: null };
      });
    },

    /** Size of a stored document (the base of an update's quota difference). */
    sizeOf: bsonSize,

    ...storedSizes(dbFor),

    /**
     * Runs a pipeline and reads its results through a cursor, stopping (and closing the cursor)
     * as soon as there are more than `maxResults` documents or their BSON size passes `maxBytes`,
     * so a pipeline that builds huge results never lands whole in this process.
     */
    async aggregate(
      ref: CollectionRef,
      pipeline: MongoDocument[],
      caps: { maxResults: number; maxBytes: number },
    ): Promise<{ rows: StoredDocument[]; over?: 'results' | 'bytes' }> {
      const limit = limitOf(timeoutMs);
      try {
        const cursor = (await collection(ref)).aggregate(pipeline, limit);
        const rows: StoredDocument[] = [];
        let bytes = 0;
        for await (const doc of cursor) {
          bytes += BSON.calculateObjectSize(doc);
          const over =
            bytes > caps.maxBytes ? 'bytes' : rows.length >= caps.maxResults ? 'results' : undefined;
          if (over) {
            await cursor.close();
            return { rows, over };
          }
          rows.push(toDocument(doc));
        }
        return { rows };
      } catch (err) {
        translateDriverError(err, 'pipeline', limit.signal);
      }
    },

    /**
     * Erases every document whose `ownerField` holds `ownerId`, trashed ones included (deleting an
     * end user with their data); one by one like the purge, to count the bytes given back.
     */
    async deleteOwned(ref: CollectionRef, ownerField: string, ownerId: string) {
      const target = await collection(ref);
      let removed = 0;
      let bytes = 0;
      for (;;) {
        const doc = await target.findOneAndDelete({ [ownerField]: ownerId }, { maxTimeMS: timeoutMs });
        if (!doc) break;
        removed += 1;
        bytes += BSON.calculateObjectSize(doc);
      }
      return { removed, bytes };
    },

    /**
     * Removes, one by one, the trashed documents deleted before `cutoff`; returns how many and
     * their stored size. One at a time so that a document restored meanwhile stays, and so that
     * two workers never count the same document twice.
     */
    async purgeTrashed(ref: CollectionRef, cutoff: Date): Promise<{ removed: number; bytes: number }> {
      const target = await collection(ref);
      let removed = 0;
      let bytes = 0;
      for (;;) {
        const doc = await target.findOneAndDelete(
          { isDeleted: true, deletedAt: { $lte: cutoff } },
          { maxTimeMS: timeoutMs },
        );
        if (!doc) break;
        removed += 1;
        bytes += BSON.calculateObjectSize(doc);
      }
      return { removed, bytes };
    },
  };
}

export type DocumentsRepo = ReturnType<typeof documentsRepo>;

/**
 * Every registered collection of every project (platform database, `collections`), for the
 * sweeps of the worker; read in pages by `_id` so that the sweep never holds a long cursor.
 */
export async function* registeredCollections(
  database: Database,
  pageSize = 500,
): AsyncGenerator<CollectionRef> {
  const defs = database.platform.collection<{ _id: ObjectId; projectId: ObjectId; name: string }>(
    'collections',
  );
  let after: ObjectId | undefined;
  for (;;) {
    const page = await defs
      .find(after ? { _id: { $gt: after } } : {}, { projection: { projectId: 1, name: 1 } })
      .sort({ _id: 1 })
      .limit(pageSize)
      .toArray();
    for (const def of page) yield { projectId: def.projectId.toHexString(), collection: def.name };
    if (page.length < pageSize) return;
    after = page[page.length - 1]!._id;
  }
}
