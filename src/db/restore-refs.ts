// The Ref values met while a restore loads its documents (platform collection `restore_refs`),
// kept until every part is loaded and the targets can be looked up: a Ref may point at a
// collection loaded later. One record per (job, collection, row, field), written by upsert, so a
// part loaded again after a crash writes the same records; they are deleted when the job ends.
import type { Db } from 'mongodb';
import { ObjectId } from './ids.js';
import { registerPlatformIndexes } from './platform.js';

const COLLECTION = 'restore_refs';
registerPlatformIndexes(COLLECTION, [{ key: { jobId: 1, _id: 1 }, name: 'job' }]);

export interface PendingRef {
  collection: string;
  /** The line of the document in its part (1 = first). */
  row: number;
  field: string;
  target: string;
  value: unknown;
}

interface RefDoc extends PendingRef {
  _id: string;
  jobId: string;
}

// Rows padded so that the records of a collection sort by row.
const idOf = (jobId: string, ref: PendingRef) =>
  `${jobId}:${ref.collection}:${String(ref.row).padStart(10, '0')}:${ref.field}`;

export function restoreRefsRepo(platform: Db) {
  const refs = platform.collection<RefDoc>(COLLECTION);
  return {
    async record(jobId: string, pending: PendingRef[]): Promise<void> {
      if (!pending.length) return;
      await refs.bulkWrite(
        pending.map((ref) => {
          const doc = { ...ref, _id: idOf(jobId, ref), jobId };
          return { replaceOne: { filter: { _id: doc._id }, replacement: doc, upsert: true } };
        }),
        { ordered: false },
      );
    },

    /** The job's records by collection and row, `size` at a time. */
    async *batches(jobId: string, size: number): AsyncGenerator<PendingRef[]> {
      const cursor = refs.find({ jobId }, { sort: { _id: 1 }, batchSize: size });
      let batch: PendingRef[] = [];
      for await (const { _id: _i, jobId: _j, ...ref } of cursor) {
        batch.push(ref);
        if (batch.length >= size) {
          yield batch;
          batch = [];
        }
      }
      if (batch.length) yield batch;
    },

    async clear(jobId: string): Promise<void> {
      await refs.deleteMany({ jobId });
    },
  };
}

/** Which of `ids` are the `_id` of a document of `collection` (as hex strings). */
export async function existingIds(db: Db, collection: string, ids: ObjectId[]): Promise<Set<string>> {
  if (!ids.length) return new Set();
  const found = await db
    .collection(collection)
    .find({ _id: { $in: ids } }, { projection: { _id: 1 } })
    .toArray();
  return new Set(found.map((doc) => String(doc._id)));
}

export type RestoreRefsRepo = ReturnType<typeof restoreRefsRepo>;
