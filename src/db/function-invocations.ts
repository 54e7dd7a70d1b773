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
    async list(projectId: string, functionId: string, page: number, limit: number, now = new Date()) {
      const projectOid = toObjectId(projectId);
      const functionOid = toObjectId(functionId);
      if (!projectOid || !functionOid) return { items: [], hasMore: false };
      const docs = await entries
        .find({ projectId: projectOid, functionId: functionOid, expiresAt: { $gt: now } })
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
    async deleteAll(projectId: string): Promise<void> {
      const oid = toObjectId(projectId);
      if (oid) await entries.deleteMany({ projectId: oid });
    },
  };
}

export type FunctionInvocationsRepo = ReturnType<typeof functionInvocationsRepo>;
