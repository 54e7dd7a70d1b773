// The heartbeats of the service's processes (platform database, `instances`): one record per
// role of each running process, rewritten every half minute, expiring a day after it was last
// seen (TTL index, and the expiry sweep), so the operator sees what runs and what went away.
import type { Db } from 'mongodb';
import { registerPlatformIndexes } from './platform.js';

interface InstanceDoc {
  _id: string; // role@instance
  role: string;
  instance: string;
  version: string;
  startedAt: Date;
  lastSeenAt: Date;
  expiresAt: Date;
}

export type InstanceSeen = Omit<InstanceDoc, '_id' | 'expiresAt'>;

export const INSTANCES = 'instances';
/** How long a record outlives its last heartbeat. */
export const INSTANCE_KEPT_MS = 24 * 3600_000;
registerPlatformIndexes(INSTANCES, [{ key: { expiresAt: 1 }, name: 'ttl_expiresAt', expireAfterSeconds: 0 }]);

export function instancesRepo(db: Db) {
  const instances = db.collection<InstanceDoc>(INSTANCES);
  return {
    /** Records that `instance` runs `role` now. */
    async beat(
      input: { role: string; instance: string; version: string; startedAt: Date },
      now = new Date(),
    ) {
      await instances.updateOne(
        { _id: `${input.role}@${input.instance}` },
        {
          $set: {
            ...input,
            lastSeenAt: now,
            expiresAt: new Date(now.getTime() + INSTANCE_KEPT_MS),
          },
        },
        { upsert: true },
      );
    },

    /** The processes seen since `since`, by role, the newest first within each. */
    async seenSince(since: Date, limit: number): Promise<InstanceSeen[]> {
      const docs = await instances
        .find({ lastSeenAt: { $gt: since } })
        .sort({ role: 1, startedAt: -1, _id: 1 })
        .limit(limit)
        .toArray();
      return docs.map(({ _id, expiresAt: _e, ...rest }) => rest);
    },
  };
}

export type InstancesRepo = ReturnType<typeof instancesRepo>;
