// Slow list requests per project (platform database, `slow_queries`): one record per collection
// and shape (the fields filtered and sorted, never the values), with how often it was slow and
// its worst time. Written only for requests past the threshold, off the request's path.
import { ObjectId } from './ids.js';
import type { Db } from 'mongodb';
import { isDuplicateKey } from './errors.js';
import { registerPlatformIndexes } from './platform.js';
import type { QueryShape } from '../services/data/query-plan.js';

const COLLECTION = 'slow_queries';
/** Shapes kept per project: a page of them is what a developer reads; older ones wait. */
export const MAX_SLOW_SHAPES = 100;

registerPlatformIndexes(COLLECTION, [
  { key: { projectId: 1, collection: 1, key: 1 }, name: 'u_shape', unique: true },
]);

export type ListKind = 'list' | 'count';

export interface SlowQueryRecord {
  collection: string;
  kind: ListKind;
  /** `total=true` was asked (a count besides the page). */
  total: boolean;
  shape: QueryShape;
  count: number;
  worstMs: number;
  totalMs: number;
  firstAt: Date;
  lastAt: Date;
}

interface SlowQueryDoc extends SlowQueryRecord {
  _id: ObjectId;
  projectId: ObjectId;
  key: string;
}

export interface SlowSample {
  projectId: string;
  collection: string;
  kind: ListKind;
  total: boolean;
  shape: QueryShape;
  /** The request's time, or the worst of `count` requests of the same shape counted together. */
  ms: number;
  /** Requests counted by this sample (1 when absent) and their summed time (`ms` when absent). */
  count?: number;
  totalMs?: number;
}

/** The shape's key among the project's records: its kind, `total` and fields, never values. */
export const keyOf = ({ kind, total, shape }: SlowSample) =>
  JSON.stringify([
    kind,
    total,
    shape.equality,
    shape.range,
    shape.other,
    shape.sort.map((k) => [k.field, k.direction]),
  ]);

export function slowQueriesRepo(db: Db) {
  const records = db.collection<SlowQueryDoc>(COLLECTION);
  return {
    /** Counts one slow request; a new shape past `MAX_SLOW_SHAPES` of the project is dropped. */
    async record(sample: SlowSample, at = new Date()): Promise<void> {
      const filter = {
        projectId: new ObjectId(sample.projectId),
        collection: sample.collection,
        key: keyOf(sample),
      };
      const ms = Math.round(sample.ms * 10) / 10;
      const totalMs = Math.round((sample.totalMs ?? sample.ms) * 10) / 10;
      const update = {
        $inc: { count: sample.count ?? 1, totalMs },
        $max: { worstMs: ms },
        $set: { lastAt: at },
      };
      if ((await records.updateOne(filter, update)).matchedCount) return;
      if ((await records.countDocuments({ projectId: filter.projectId })) >= MAX_SLOW_SHAPES) return;
      try {
        await records.updateOne(
          filter,
          {
            ...update,
            $setOnInsert: { kind: sample.kind, total: sample.total, shape: sample.shape, firstAt: at },
          },
          { upsert: true },
        );
      } catch (err) {
        // Another process inserted the shape first: count this one on its record.
        if (!isDuplicateKey(err)) throw err;
        await records.updateOne(filter, update);
      }
    },

    async list(projectId: string, collection?: string): Promise<SlowQueryRecord[]> {
      const docs = await records
        .find({ projectId: new ObjectId(projectId), ...(collection ? { collection } : {}) })
        .sort({ worstMs: -1 })
        .limit(MAX_SLOW_SHAPES)
        .toArray();
      return docs.map(({ _id, projectId: _p, key: _k, ...record }) => record);
    },

    async clear(projectId: string, collection?: string): Promise<number> {
      const result = await records.deleteMany({
        projectId: new ObjectId(projectId),
        ...(collection ? { collection } : {}),
      });
      return result.deletedCount;
    },
  };
}

export type SlowQueriesRepo = ReturnType<typeof slowQueriesRepo>;
