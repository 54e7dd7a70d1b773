// Mail sent per project and calendar month (UTC), collection `mail_usage`, one document per
// project and month. A message takes its slot with one conditional increment, so concurrent sends
// can never pass the limit; a failed send gives its slot back.
import type { Db } from 'mongodb';
import { isDuplicateKey } from './errors.js';

interface UsageDoc {
  _id: string;
  projectId: string;
  month: string;
  count: number;
}

export function mailUsageRepo(db: Db) {
  const usage = db.collection<UsageDoc>('mail_usage');
  const key = (projectId: string, month: string) => `${projectId}:${month}`;

  return {
    async count(projectId: string, month: string): Promise<number> {
      return (await usage.findOne({ _id: key(projectId, month) }))?.count ?? 0;
    },

    /** The count including this message, or undefined when the limit is reached. */
    async take(projectId: string, month: string, limit: number): Promise<number | undefined> {
      if (limit <= 0) return undefined;
      const _id = key(projectId, month);
      // The first message of a month inserts the document; when two race, the loser's upsert is a
      // duplicate key and its second try sees the document. A duplicate key on the second try means
      // the document exists and is full.
      for (let attempt = 0; attempt < 2; attempt++) {
        try {
          const doc = await usage.findOneAndUpdate(
            { _id, count: { $lt: limit } },
            { $inc: { count: 1 }, $setOnInsert: { projectId, month } },
            { upsert: true, returnDocument: 'after' },
          );
          return doc?.count;
        } catch (err) {
          if (!isDuplicateKey(err)) throw err;
        }
      }
      return undefined;
    },

    async refund(projectId: string, month: string): Promise<void> {
      await usage.updateOne({ _id: key(projectId, month), count: { $gt: 0 } }, { $inc: { count: -1 } });
    },

    async deleteAll(projectId: string): Promise<void> {
      await usage.deleteMany({ projectId });
    },
  };
}

export type MailUsageRepo = ReturnType<typeof mailUsageRepo>;
