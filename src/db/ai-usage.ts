// Platform-key AI requests per project, feature and calendar month (UTC), collection `ai_usage`,
// one document per project, feature and month. A request takes its slot with one conditional
// increment, so concurrent requests never pass the cap; a failed request gives its slot back. The
// month is part of the key, so a new month starts from zero at 00:00 UTC on the first.
import type { Db } from 'mongodb';
import { isDuplicateKey } from './errors.js';

export type AiFeature = 'queryBuilder' | 'collectionCreator';

interface AiUsageDoc {
  _id: string;
  projectId: string;
  feature: AiFeature;
  month: string;
  count: number;
}

export function aiUsageRepo(db: Db) {
  const usage = db.collection<AiUsageDoc>('ai_usage');
  const key = (projectId: string, feature: AiFeature, month: string) => `${projectId}:${feature}:${month}`;

  return {
    async count(projectId: string, feature: AiFeature, month: string): Promise<number> {
      return (await usage.findOne({ _id: key(projectId, feature, month) }))?.count ?? 0;
    },

    /** The count including this request, or undefined when the cap is reached. */
    async take(
      projectId: string,
      feature: AiFeature,
      month: string,
      limit: number,
    ): Promise<number | undefined> {
      if (limit <= 0) return undefined;
      const _id = key(projectId, feature, month);
      // The first request of a month inserts the document; of two racing upserts the loser gets a
      // duplicate key and its second try sees the document. A duplicate key on the second try
      // means the document exists and is full.
      for (let attempt = 0; attempt < 2; attempt++) {
        try {
          const doc = await usage.findOneAndUpdate(
            { _id, count: { $lt: limit } },
            { $inc: { count: 1 }, $setOnInsert: { projectId, feature, month } },
            { upsert: true, returnDocument: 'after' },
          );
          return doc?.count;
        } catch (err) {
          if (!isDuplicateKey(err)) throw err;
        }
      }
      return undefined;
    },

    async refund(projectId: string, feature: AiFeature, month: string): Promise<void> {
      await usage.updateOne(
        { _id: key(projectId, feature, month), count: { $gt: 0 } },
        { $inc: { count: -1 } },
      );
    },

    async deleteAll(projectId: string): Promise<void> {
      await usage.deleteMany({ projectId });
    },
  };
}

export type AiUsageRepo = ReturnType<typeof aiUsageRepo>;
