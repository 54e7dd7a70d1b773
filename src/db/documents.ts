// Documents of registered collections in a project's database: the only module that runs queries
// and pipelines on project collections, each under the time limit of document-errors.ts, whose
// translation turns driver errors into the ApiError a client sees. On a project's own database
// every operation, writes included, also runs under its deadline (external-deadline.ts).
import {
  BSON,
  type Collection,
  type Db,
  type Document as MongoDocument,
  type Filter,
  type Sort,
} from 'mongodb';
import type { Database } from './client.js';
import { translateDriverError, withTimeLimit, type TimeLimit } from './document-errors.js';
import { documentRemovals } from './document-removals.js';
import {
  abortable,
  ExternalDbTimeoutError,
  externalDeadlineOf,
  markExternal,
  underDeadline,
} from './external-deadline.js';
import { findPinned, pinsOneId } from './find-pinned.js';
import { ObjectId, toObjectId } from './ids.js';
import { TRASH_KEY } from './project-indexes.js';
import { toDocument, type StoredDocument } from './stored-form.js';
import { storedSizes } from './stored-sizes.js';
import { bsonSize, setGrowthBound } from './write-sizes.js';

export type { StoredDocument } from './stored-form.js';

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

const asFilter = (filter: MongoDocument) => filter as Filter<MongoDocument>;

/** Collection handles kept per database (a project's own database gets a new Db when reopened). */
const handles = new WeakMap<Db, Map<string, Collection<MongoDocument>>>();
/** Names kept per database; a project has at most a few hundred collections. */
const MAX_HANDLES = 1000;

/**
 * The driver's handle of a collection, made once per database and name: `db.collection()`
 * resolves the options of the database, of the client and of BSON again on every call.
 */
function handleOf(db: Db, name: string): Collection<MongoDocument> {
  let named = handles.get(db);
  if (!named) handles.set(db, (named = new Map()));
  let handle = named.get(name);
  if (!handle) {
    if (named.size >= MAX_HANDLES) named.delete(named.keys().next().value!);
    named.set(name, (handle = db.collection(name)));
    const deadline = externalDeadlineOf(db);
    if (deadline !== undefined) markExternal(handle, deadline);
  }
  return handle;
}

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
    handleOf(await dbFor(projectId), name);

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
      const target = await collection(ref);
      const before = await underDeadline(target, (signal) =>
        target.findOneAndUpdate(asFilter(filter), update, {
          returnDocument: 'before',
          maxTimeMS: timeoutMs,
          ...abortable(signal),
        }),
      );
      if (!before) return undefined;
      const doc = after(before);
      // Sizes first: the conversion below changes the tree in place.
      const delta = BSON.calculateObjectSize(doc) - BSON.calculateObjectSize(before);
      return { doc: toDocument(doc), delta };
    } catch (err) {
      translateDriverError(err, 'write');
    }
  }

  return {
    async find(ref: CollectionRef, options: FindOptions): Promise<StoredDocument[]> {
      const target = await collection(ref);
      return underDeadline(target, (outer) =>
        withTimeLimit(
          timeoutMs,
          'query',
          async (limit) => {
            const cursor = target.find(asFilter(options.filter), {
              projection: options.projection,
              sort: options.sort as Sort | undefined,
              skip: options.skip || undefined,
              limit: options.limit,
              ...limit,
            });
            return (await cursor.toArray()).map(toDocument);
          },
          outer,
        ),
      );
    },

    async findOne(
      ref: CollectionRef,
      filter: MongoDocument,
      projection?: Record<string, 0 | 1>,
    ): Promise<StoredDocument | undefined> {
      // A read pinned to one `_id` is one index lookup: the server bounds it with maxTimeMS, and
      // even a server that ignores it answers at once, so it needs no driver-side deadline (a
      // timer and an abort listener per request on the data API's hottest path), nor a cursor
      // (find-pinned.ts).
      if (!pinsOneId(filter)) {
        const target = await collection(ref);
        return underDeadline(target, (outer) =>
          withTimeLimit(
            timeoutMs,
            'query',
            async (limit: Partial<TimeLimit>) => {
              const doc = await target.findOne(asFilter(filter), { projection, ...limit });
              return doc ? toDocument(doc) : undefined;
            },
            outer,
          ),
        );
      }
      const db = await dbFor(ref.projectId);
      try {
        const doc = await underDeadline(db, (signal) =>
          findPinned(db, ref.collection, filter, projection, timeoutMs, signal),
        );
        return doc ? toDocument(doc) : undefined;
      } catch (err) {
        translateDriverError(err, 'query');
      }
    },

    async count(ref: CollectionRef, filter: MongoDocument): Promise<number> {
      const target = await collection(ref);
      return underDeadline(target, (outer) =>
        withTimeLimit(timeoutMs, 'query', (limit) => target.countDocuments(asFilter(filter), limit), outer),
      );
    },

    /**
     * Inserts one document (under `id` when given); returns it with its `_id`. Its stored size is `sizeOf(doc)`, known
     * before the write (the quota reserves it), so it is not measured again. The document is
     * handed over: what is returned shares its nested values.
     */
    async insertOne(
      ref: CollectionRef,
      doc: Record<string, unknown>,
      id?: string,
    ): Promise<{ doc: StoredDocument }> {
      const stored = { _id: (id && toObjectId(id)) || new ObjectId(), ...doc };
      try {
        const target = await collection(ref);
        await underDeadline(target, (signal) => target.insertOne(stored, abortable(signal)));
      } catch (err) {
        translateDriverError(err, 'write');
      }
      return { doc: toDocument(stored) };
    },

    /**
     * Inserts all documents or none: when the database refuses one (a unique clash), the ones
     * already written by this call are removed again before the error is reported. Their stored
     * sizes are the sum of `sizeOf`, as for one.
     */
    async insertMany(
      ref: CollectionRef,
      docs: Record<string, unknown>[],
      ids?: string[],
    ): Promise<{ docs: StoredDocument[] }> {
      const stored = docs.map((doc, i) => ({
        _id: (ids?.[i] && toObjectId(ids[i])) || new ObjectId(),
        ...doc,
      }));
      const target = await collection(ref);
      try {
        await underDeadline(target, (signal) =>
          target.insertMany(stored, { ordered: true, ...abortable(signal) }),
        );
      } catch (err) {
        const undo = underDeadline(target, (signal) =>
          target.deleteMany({ _id: { $in: stored.map((d) => d._id) } }, abortable(signal)),
        );
        // After a deadline the database is not answering: the undo is tried, but nobody waits for it.
        if (err instanceof ExternalDbTimeoutError) undo.catch(() => undefined);
        else await undo;
        translateDriverError(err, 'write');
      }
      return { docs: stored.map(toDocument) };
    },

    /**
     * Applies `$set` to the one document matching `filter` in one atomic step: the document after
     * is derived from the one before with `after` (the services' preview of the same `$set`), so
     * the size difference is exact even when other writes race, and no read is needed before it.
     * Undefined when none matched.
     */
    async setKept(
      ref: CollectionRef,
      filter: MongoDocument,
      set: Record<string, unknown>,
      after: (before: Record<string, unknown>) => Record<string, unknown>,
    ): Promise<{ doc: StoredDocument; delta: number } | undefined> {
      return changeKept(ref, filter, { $set: set }, after);
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
    setGrowthBound,

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
      const target = await collection(ref);
      return underDeadline(target, (outer) =>
        withTimeLimit(
          timeoutMs,
          'pipeline',
          async (limit) => {
            // Never spilled to disk: a stage past the server's memory limit fails instead (400).
            const cursor = target.aggregate(pipeline, { ...limit, allowDiskUse: false });
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
          },
          outer,
        ),
      );
    },

    ...documentRemovals(collection, timeoutMs),
  };
}

export type DocumentsRepo = ReturnType<typeof documentsRepo>;
