// Removals of documents one at a time (the trash purge, TTL expiry, an end user's erasure), each
// counted by the call that removed it so that the bytes given back are exact and two workers never
// count one document twice. Every removal runs under the deadline of a project's own database
// (external-deadline.ts); `stop`, a worker task's deadline, ends a loop between documents.
import { BSON, type Collection, type Document as MongoDocument } from 'mongodb';
import { abortable, underDeadline } from './external-deadline.js';

interface CollectionRef {
  projectId: string;
  collection: string;
}

export function documentRemovals(
  collection: (ref: CollectionRef) => Promise<Collection<MongoDocument>>,
  timeoutMs: number,
) {
  /** Removes the next matching document; null when none is left. */
  const removeOne = (target: Collection<MongoDocument>, filter: MongoDocument) =>
    underDeadline(target, (signal) =>
      target.findOneAndDelete(filter, { maxTimeMS: timeoutMs, ...abortable(signal) }),
    );

  async function removeEach(
    ref: CollectionRef,
    filter: MongoDocument,
    max = Infinity,
    stop?: AbortSignal,
  ): Promise<{ removed: number; bytes: number }> {
    const target = await collection(ref);
    let removed = 0;
    let bytes = 0;
    // What was removed before the task's deadline is still counted (and given back).
    while (removed < max && !stop?.aborted) {
      const doc = await removeOne(target, filter);
      if (!doc) break;
      removed += 1;
      bytes += BSON.calculateObjectSize(doc);
    }
    return { removed, bytes };
  }

  /**
   * Removes up to `max` matching documents in batches of `batch`: one read of the batch (for the
   * sizes) and one `deleteMany` of its ids, still matching, instead of a round trip per document.
   * Two workers on one batch split its deletions; the bytes are then shared in proportion (the
   * monthly recount corrects the rest).
   */
  async function removeBatches(
    ref: CollectionRef,
    filter: MongoDocument,
    max: number,
    batch: number,
    stop?: AbortSignal,
  ): Promise<{ removed: number; bytes: number }> {
    const target = await collection(ref);
    let removed = 0;
    let bytes = 0;
    while (removed < max && !stop?.aborted) {
      const docs = await underDeadline(target, (signal) =>
        target
          .find(filter, { limit: Math.min(batch, max - removed), maxTimeMS: timeoutMs, ...abortable(signal) })
          .toArray(),
      );
      if (docs.length === 0) break;
      const size = docs.reduce((sum, doc) => sum + BSON.calculateObjectSize(doc), 0);
      const { deletedCount } = await underDeadline(target, (signal) =>
        target.deleteMany(
          { $and: [filter, { _id: { $in: docs.map((d) => d._id) } }] },
          { maxTimeMS: timeoutMs, ...abortable(signal) },
        ),
      );
      removed += deletedCount;
      bytes += deletedCount === docs.length ? size : Math.round((size * deletedCount) / docs.length);
      if (deletedCount === 0) break; // another worker took this batch: leave the rest to it
    }
    return { removed, bytes };
  }

  return {
    /**
     * Erases every document whose `ownerField` holds `ownerId`, trashed ones included (deleting an
     * end user with their data); one by one like the purge, to count the bytes given back.
     */
    async deleteOwned(ref: CollectionRef, ownerField: string, ownerId: string) {
      const target = await collection(ref);
      let removed = 0;
      let bytes = 0;
      const ids: string[] = [];
      for (;;) {
        const doc = await removeOne(target, { [ownerField]: ownerId });
        if (!doc) break;
        removed += 1;
        bytes += BSON.calculateObjectSize(doc);
        ids.push(String(doc._id));
      }
      return { removed, bytes, ids };
    },

    /**
     * Removes, one by one, the trashed documents deleted before `cutoff`; returns how many and
     * their stored size. One at a time so that a document restored meanwhile stays.
     */
    purgeTrashed: (ref: CollectionRef, cutoff: Date, stop?: AbortSignal) =>
      removeEach(ref, { isDeleted: true, deletedAt: { $lte: cutoff } }, Infinity, stop),

    /**
     * TTL: removes the documents, trashed or not, whose `field` holds a date at or before
     * `cutoff` (values of other types never match), at most `max` per call, `batch` at a time.
     */
    removeExpired: (
      ref: CollectionRef,
      field: string,
      cutoff: Date,
      max: number,
      stop?: AbortSignal,
      batch = 500,
    ) => removeBatches(ref, { [field]: { $lte: cutoff } }, max, batch, stop),
  };
}
