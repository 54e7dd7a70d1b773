// Webhooks of a project (platform database, collection `webhooks`) with their secret encrypted,
// and the per-project count that enforces the plan limit (collection `webhook_counts`): a webhook
// is created only after its slot was taken by one conditional increment, so two concurrent
// creations can never pass the limit.
import type { Db } from 'mongodb';
import { ObjectId, toObjectId } from './ids.js';
import { registerPlatformIndexes } from './platform.js';
import { replaceInProject } from './restored.js';
import { countedSlots } from './counted-slots.js';

registerPlatformIndexes('webhooks', [{ key: { projectId: 1, createdAt: 1 }, name: 'projectId' }]);

export interface WebhookFields {
  url: string;
  description: string | null;
  events: string[];
  /** Empty: every collection. */
  collections: string[];
  enabled: boolean;
}

/** How deliveries have been going, and what the service did about it (kept apart from settings). */
export interface WebhookHealth {
  /** Deliveries that failed for good in a row (a success resets it). */
  consecutiveFailures: number;
  /** The first failed attempt of that run of failures. */
  failingSince: Date | null;
  /** Set when the service paused the webhook (then `enabled` is false). */
  pausedAt: Date | null;
  pausedReason: string | null;
  /** Events not queued because the project's outbox was full. */
  droppedEvents: number;
  lastDroppedAt: Date | null;
}

export const HEALTHY: Readonly<WebhookHealth> = Object.freeze({
  consecutiveFailures: 0,
  failingSince: null,
  pausedAt: null,
  pausedReason: null,
  droppedEvents: 0,
  lastDroppedAt: null,
});

export interface StoredWebhook extends WebhookFields, WebhookHealth {
  id: string;
  projectId: string;
  secretEnc: string;
  createdAt: Date;
  updatedAt: Date;
}

interface WebhookDoc extends WebhookFields, Partial<WebhookHealth> {
  _id: ObjectId;
  projectId: ObjectId;
  secretEnc: string;
  createdAt: Date;
  updatedAt: Date;
}

const toWebhook = (doc: WebhookDoc): StoredWebhook => ({
  id: doc._id.toHexString(),
  projectId: doc.projectId.toHexString(),
  url: doc.url,
  description: doc.description,
  events: doc.events,
  collections: doc.collections,
  enabled: doc.enabled,
  consecutiveFailures: doc.consecutiveFailures ?? 0,
  failingSince: doc.failingSince ?? null,
  pausedAt: doc.pausedAt ?? null,
  pausedReason: doc.pausedReason ?? null,
  droppedEvents: doc.droppedEvents ?? 0,
  lastDroppedAt: doc.lastDroppedAt ?? null,
  secretEnc: doc.secretEnc,
  createdAt: doc.createdAt,
  updatedAt: doc.updatedAt,
});

export function webhooksRepo(db: Db) {
  const webhooks = db.collection<WebhookDoc>('webhooks');
  const slots = countedSlots(db, 'webhook_counts');
  const scope = (projectId: string) => ({ projectId: toObjectId(projectId) ?? new ObjectId(0) });
  const one = (projectId: string, id: string) => {
    const _id = toObjectId(id);
    return _id ? { ...scope(projectId), _id } : undefined;
  };

  return {
    reserveSlot: slots.reserveSlot,
    releaseSlot: slots.releaseSlot,

    async create(projectId: string, fields: WebhookFields, secretEnc: string): Promise<StoredWebhook> {
      const now = new Date();
      const doc: WebhookDoc = {
        _id: new ObjectId(),
        projectId: toObjectId(projectId)!,
        ...fields,
        ...HEALTHY,
        secretEnc,
        createdAt: now,
        updatedAt: now,
      };
      await webhooks.insertOne(doc);
      return toWebhook(doc);
    },
    async list(projectId: string): Promise<StoredWebhook[]> {
      return (await webhooks.find(scope(projectId)).sort({ createdAt: 1 }).limit(1000).toArray()).map(
        toWebhook,
      );
    },
    async find(projectId: string, id: string): Promise<StoredWebhook | undefined> {
      const filter = one(projectId, id);
      const doc = filter && (await webhooks.findOne(filter));
      return doc ? toWebhook(doc) : undefined;
    },
    /** For the worker, which knows only the delivery's webhook id. */
    async findById(id: string): Promise<StoredWebhook | undefined> {
      const _id = toObjectId(id);
      const doc = _id && (await webhooks.findOne({ _id }));
      return doc ? toWebhook(doc) : undefined;
    },
    async update(
      projectId: string,
      id: string,
      changes: Partial<WebhookFields & WebhookHealth> & { secretEnc?: string },
    ): Promise<StoredWebhook | undefined> {
      const filter = one(projectId, id);
      if (!filter) return undefined;
      const doc = await webhooks.findOneAndUpdate(
        filter,
        { $set: { ...changes, updatedAt: new Date() } },
        { returnDocument: 'after' },
      );
      return doc ? toWebhook(doc) : undefined;
    },
    /** A delivery succeeded: the run of failures, if any, is over. */
    async recordSuccess(projectId: string, id: string): Promise<void> {
      const filter = one(projectId, id);
      if (filter)
        await webhooks.updateOne(
          { ...filter, consecutiveFailures: { $gt: 0 } },
          { $set: { consecutiveFailures: 0, failingSince: null } },
        );
    },
    /** A delivery failed for good: counted, the run's start kept; returns the webhook after. */
    async recordFailure(projectId: string, id: string, since: Date): Promise<StoredWebhook | undefined> {
      const filter = one(projectId, id);
      if (!filter) return undefined;
      await webhooks.updateOne(
        { ...filter, failingSince: { $in: [null] } },
        { $set: { failingSince: since } },
      );
      const doc = await webhooks.findOneAndUpdate(
        filter,
        { $inc: { consecutiveFailures: 1 } },
        { returnDocument: 'after' },
      );
      return doc ? toWebhook(doc) : undefined;
    },
    /** Disables the webhook with the service's reason; false when it was not enabled. */
    async pause(projectId: string, id: string, reason: string, at: Date): Promise<boolean> {
      const filter = one(projectId, id);
      if (!filter) return false;
      const res = await webhooks.updateOne(
        { ...filter, enabled: true },
        { $set: { enabled: false, pausedAt: at, pausedReason: reason, updatedAt: at } },
      );
      return res.modifiedCount === 1;
    },
    /** An event of these webhooks was not queued (the outbox was full). */
    async countDropped(projectId: string, ids: string[], at: Date): Promise<void> {
      const _ids = ids.map((id) => toObjectId(id)).filter((id): id is ObjectId => !!id);
      await webhooks.updateMany(
        { ...scope(projectId), _id: { $in: _ids } },
        { $inc: { droppedEvents: 1 }, $set: { lastDroppedAt: at } },
      );
    },
    async delete(projectId: string, id: string): Promise<boolean> {
      const filter = one(projectId, id);
      return !!filter && (await webhooks.deleteOne(filter)).deletedCount === 1;
    },
    /** A webhook a restore brings back under `id` into `projectId` (health as given: new or paused). */
    async restore(
      projectId: string,
      id: string,
      record: WebhookFields & WebhookHealth & { secretEnc: string; createdAt: Date; updatedAt: Date },
    ): Promise<void> {
      await replaceInProject(webhooks, projectId, id, record);
    },
    async deleteAll(projectId: string): Promise<void> {
      await webhooks.deleteMany(scope(projectId));
      await slots.remove(projectId);
    },
  };
}

export type WebhooksRepo = ReturnType<typeof webhooksRepo>;
