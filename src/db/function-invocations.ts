// The invocation log of hooks and functions (platform collection `function_invocations`): one
// entry per run with its status, duration, error and log lines, never the request body. Each
// entry carries its expiry (the plan's log days); reads skip expired entries and the expiry
// sweep deletes them (src/db/expired-records.ts).
import type { Db } from 'mongodb';
import { ObjectId, toObjectId } from './ids.js';
import { registerPlatformIndexes } from './platform.js';
import type { InvocationRecord } from '../services/functions/types.js';

export const INVOCATIONS = 'function_invocations';
registerPlatformIndexes(INVOCATIONS, [
  { key: { projectId: 1, functionId: 1, _id: -1 }, name: 'function_newest' },
  { key: { expiresAt: 1 }, name: 'expiresAt', expireAfterSeconds: 0 },
]);

/** Narrows a listing: entries of these statuses and triggers, at or after `since`, before `until`. */
export interface InvocationFilter {
  status?: string[];
  trigger?: string[];
  since?: Date;
  until?: Date;
}

/** One window of the stats: runs, those that failed (anything but ok and refused), durations. */
export interface InvocationWindowStats {
  count: number;
  errors: number;
  byStatus: Record<string, number>;
  p50Ms: number | null;
  p95Ms: number | null;
}

interface InvocationDoc extends Omit<InvocationRecord, 'id' | 'projectId' | 'functionId'> {
  _id: ObjectId;
  projectId: ObjectId;
  functionId: ObjectId;
}

export function functionInvocationsRepo(db: Db) {
  const entries = db.collection<InvocationDoc>(INVOCATIONS);
  return {
    async add(entry: Omit<InvocationRecord, 'id'>): Promise<void> {
      await entries.insertOne({
        ...entry,
        _id: new ObjectId(),
        projectId: toObjectId(entry.projectId)!,
        functionId: toObjectId(entry.functionId)!,
      });
    },
    /** Entries of any projects at once (the buffered write path), with the ids they were given. */
    async addMany(batch: InvocationRecord[]): Promise<void> {
      if (!batch.length) return;
      await entries.insertMany(
        batch.map(({ id, ...entry }) => ({
          ...entry,
          _id: toObjectId(id) ?? new ObjectId(),
          projectId: toObjectId(entry.projectId)!,
          functionId: toObjectId(entry.functionId)!,
        })),
        { ordered: false },
      );
    },
    /** Newest first; `limit + 1` read to tell whether more exist. */
    async list(
      projectId: string,
      functionId: string,
      page: number,
      limit: number,
      filter: InvocationFilter = {},
      now = new Date(),
    ) {
      const projectOid = toObjectId(projectId);
      const functionOid = toObjectId(functionId);
      if (!projectOid || !functionOid) return { items: [], hasMore: false };
      const docs = await entries
        .find({
          projectId: projectOid,
          functionId: functionOid,
          expiresAt: { $gt: now },
          ...(filter.status?.length ? { status: { $in: filter.status as InvocationDoc['status'][] } } : {}),
          ...(filter.trigger?.length
            ? { trigger: { $in: filter.trigger as InvocationDoc['trigger'][] } }
            : {}),
          ...(filter.since || filter.until
            ? {
                at: {
                  ...(filter.since ? { $gte: filter.since } : {}),
                  ...(filter.until ? { $lt: filter.until } : {}),
                },
              }
            : {}),
        })
        .sort({ _id: -1 })
        .skip((page - 1) * limit)
        .limit(limit + 1)
        .toArray();
      const items: InvocationRecord[] = docs
        .slice(0, limit)
        .map(({ _id, projectId: p, functionId: f, ...rest }) => ({
          ...rest,
          id: _id.toHexString(),
          projectId: p.toHexString(),
          functionId: f.toHexString(),
        }));
      return { items, hasMore: docs.length > limit };
    },
    /**
     * Runs since `since`: counts by status, and the 50th and 95th percentile of their durations
     * (nearest rank: the entry at that rank of the sorted durations, read with one skip each).
     */
    async stats(
      projectId: string,
      functionId: string,
      since: Date,
      now = new Date(),
    ): Promise<InvocationWindowStats> {
      const projectOid = toObjectId(projectId);
      const functionOid = toObjectId(functionId);
      const empty = { count: 0, errors: 0, byStatus: {}, p50Ms: null, p95Ms: null };
      if (!projectOid || !functionOid) return empty;
      // The entry's id is made as it is logged: the newest-first index bounds the window.
      const query = {
        projectId: projectOid,
        functionId: functionOid,
        _id: { $gte: ObjectId.createFromTime(Math.floor(since.getTime() / 1000)) },
        at: { $gte: since },
        expiresAt: { $gt: now },
      };
      const groups = await entries
        .aggregate<{ _id: string; n: number }>([
          { $match: query },
          { $group: { _id: '$status', n: { $sum: 1 } } },
        ])
        .toArray();
      const byStatus = Object.fromEntries(groups.map((g) => [g._id, g.n]));
      const count = groups.reduce((sum, g) => sum + g.n, 0);
      if (!count) return empty;
      const errors = count - (byStatus.ok ?? 0) - (byStatus.refused ?? 0);
      const at = async (rank: number) => {
        const [doc] = await entries
          .find(query, { projection: { durationMs: 1 } })
          .sort({ durationMs: 1 })
          .skip(rank)
          .limit(1)
          .toArray();
        return doc?.durationMs ?? null;
      };
      const rank = (p: number) => Math.max(0, Math.ceil(p * count) - 1);
      const [p50Ms, p95Ms] = await Promise.all([at(rank(0.5)), at(rank(0.95))]);
      return { count, errors, byStatus, p50Ms, p95Ms };
    },
    async deleteAll(projectId: string): Promise<void> {
      const oid = toObjectId(projectId);
      if (oid) await entries.deleteMany({ projectId: oid });
    },
  };
}

export type FunctionInvocationsRepo = ReturnType<typeof functionInvocationsRepo>;
