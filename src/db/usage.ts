// Usage per project and day (collection `usage_daily`, one document per project and UTC day) and
// closed months (`usage_months`). Event counters (API calls, mail, webhook deliveries, AI
// requests by feature) arrive as batched `$inc`s, so concurrent processes add up without losing a count;
// the byte figures are a daily snapshot of the project's counters taken by the roll-up job.
import type { AnyBulkWriteOperation, Db } from 'mongodb';
import { registerPlatformIndexes } from './platform.js';

export const USAGE_METRICS = [
  'apiCalls',
  'mailSent',
  'webhookDeliveries',
  'aiQueryBuilder',
  'aiCollectionCreator',
  // Hooks and functions (docs/functions.md): runs, and their milliseconds added up.
  'functionInvocations',
  'functionMs',
] as const;
export type UsageMetric = (typeof USAGE_METRICS)[number];
export type UsageCounts = Record<UsageMetric, number>;

export interface UsageDay extends UsageCounts {
  day: string; // YYYY-MM-DD (UTC)
  databaseBytes: number | null;
  storageBytes: number | null;
}

interface DailyDoc extends Partial<UsageCounts> {
  _id: string; // projectId:day
  projectId: string;
  day: string;
  databaseBytes?: number;
  storageBytes?: number;
}

interface MonthDoc extends UsageCounts {
  _id: string; // projectId:month
  projectId: string;
  month: string;
  closedAt: Date;
}

export interface UsageIncrement {
  projectId: string;
  day: string;
  counts: Partial<UsageCounts>;
}

registerPlatformIndexes('usage_daily', [{ key: { projectId: 1, day: 1 }, name: 'project_day' }]);

const zero = (): UsageCounts => Object.fromEntries(USAGE_METRICS.map((m) => [m, 0])) as UsageCounts;

export function usageRepo(db: Db) {
  const daily = db.collection<DailyDoc>('usage_daily');
  const months = db.collection<MonthDoc>('usage_months');

  return {
    /** One round trip for a whole batch; each row is an upsert with `$inc`. */
    async increment(rows: UsageIncrement[]): Promise<void> {
      if (!rows.length) return;
      const ops: AnyBulkWriteOperation<DailyDoc>[] = rows.map(({ projectId, day, counts }) => ({
        updateOne: {
          filter: { _id: `${projectId}:${day}` },
          update: { $inc: counts, $setOnInsert: { projectId, day } },
          upsert: true,
        },
      }));
      await daily.bulkWrite(ops, { ordered: false });
    },

    /** Records the day's byte figures (the last snapshot of a day wins). */
    async snapshot(projectId: string, day: string, bytes: { databaseBytes: number; storageBytes: number }) {
      await daily.updateOne(
        { _id: `${projectId}:${day}` },
        { $set: bytes, $setOnInsert: { projectId, day } },
        { upsert: true },
      );
    },

    /** The days from `fromDay` to `toDay` (inclusive) that have a document, oldest first. */
    async days(projectId: string, fromDay: string, toDay: string): Promise<UsageDay[]> {
      const docs = await daily
        .find({ projectId, day: { $gte: fromDay, $lte: toDay } })
        .sort({ day: 1 })
        .toArray();
      return docs.map((doc) => ({
        ...zero(),
        ...Object.fromEntries(USAGE_METRICS.map((m) => [m, doc[m] ?? 0])),
        day: doc.day,
        databaseBytes: doc.databaseBytes ?? null,
        storageBytes: doc.storageBytes ?? null,
      }));
    },

    /** Sums of the event counters over the days of one month (`YYYY-MM`). */
    async monthTotals(projectId: string, month: string): Promise<UsageCounts> {
      const totals = zero();
      const docs = daily.find({ projectId, day: { $gte: `${month}-01`, $lte: `${month}-31` } });
      for await (const doc of docs) for (const m of USAGE_METRICS) totals[m] += doc[m] ?? 0;
      return totals;
    },

    /** Keeps a month's totals after its days are pruned; writing it again changes nothing. */
    async closeMonth(projectId: string, month: string, totals: UsageCounts, closedAt: Date): Promise<void> {
      await months.updateOne(
        { _id: `${projectId}:${month}` },
        { $set: { ...totals, projectId, month }, $setOnInsert: { closedAt } },
        { upsert: true },
      );
    },

    async closedMonth(projectId: string, month: string): Promise<UsageCounts | null> {
      const doc = await months.findOne({ _id: `${projectId}:${month}` });
      return doc ? (Object.fromEntries(USAGE_METRICS.map((m) => [m, doc[m]])) as UsageCounts) : null;
    },

    /** Drops days older than `beforeDay`; returns how many. */
    async pruneBefore(beforeDay: string): Promise<number> {
      return (await daily.deleteMany({ day: { $lt: beforeDay } })).deletedCount;
    },

    async deleteAll(projectId: string): Promise<void> {
      await Promise.all([daily.deleteMany({ projectId }), months.deleteMany({ projectId })]);
    },
  };
}

export type UsageRepo = ReturnType<typeof usageRepo>;
