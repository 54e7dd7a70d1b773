// A per-project count of one kind of record, held under a plan limit by single conditional
// updates (no transactions): a slot is taken before the record is written and given back when it
// goes, so concurrent creates in any number of processes cannot pass the limit together. Each
// kind keeps its own counter collection (`webhook_counts`, `function_counts`).
import type { Db } from 'mongodb';
import { isDuplicateKey } from './errors.js';

interface CountDoc {
  _id: string;
  count: number;
}

export function countedSlots(db: Db, collection: string) {
  const counts = db.collection<CountDoc>(collection);
  return {
    /** Takes one of the project's `limit` slots; false when all are taken. */
    async reserveSlot(projectId: string, limit: number): Promise<boolean> {
      if (limit <= 0) return false;
      // The first slot of a project upserts its counter; of two racing upserts one gets a
      // duplicate key, and its second attempt finds the counter.
      for (let attempt = 0; attempt < 2; attempt++) {
        try {
          await counts.findOneAndUpdate(
            { _id: projectId, count: { $lt: limit } },
            { $inc: { count: 1 } },
            { upsert: true },
          );
          return true;
        } catch (err) {
          if (!isDuplicateKey(err)) throw err;
        }
      }
      return false;
    },
    async releaseSlot(projectId: string): Promise<void> {
      await counts.updateOne({ _id: projectId, count: { $gt: 0 } }, { $inc: { count: -1 } });
    },
    /** Removes the project's counter (the project is deleted). */
    async remove(projectId: string): Promise<void> {
      await counts.deleteOne({ _id: projectId });
    },
  };
}
