// The webhook outbox (platform database, collection `webhook_deliveries`): one document per event
// and webhook, written right after the change, with the log of every attempt. Workers claim a due
// delivery with one findOneAndUpdate that sets a lease; a worker that dies mid-delivery leaves a
// lease that expires, and the delivery is claimed again. Only the holder of the claim token can
// record the attempt's outcome.
import type { Db } from 'mongodb';
import { randomBytes } from 'node:crypto';
import { ObjectId, toObjectId } from './ids.js';
import { registerPlatformIndexes } from './platform.js';

const COLLECTION = 'webhook_deliveries';
registerPlatformIndexes(COLLECTION, [
  { key: { status: 1, nextAttemptAt: 1 }, name: 'due' },
  { key: { webhookId: 1, createdAt: -1 }, name: 'webhookId' },
  { key: { webhookId: 1, eventKey: 1 }, name: 'u_webhook_event', unique: true },
  { key: { projectId: 1 }, name: 'projectId' },
]);

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed';

export interface DeliveryAttempt {
  number: number;
  at: Date;
  /** HTTP status, or null when no response came (network error, timeout, refused target). */
  status: number | null;
  durationMs: number;
  /** The first 1 KiB of the response body. */
  response: string | null;
  error: string | null;
}

export interface StoredDelivery {
  id: string;
  projectId: string;
  webhookId: string;
  event: string;
  body: string;
  status: DeliveryStatus;
  attempts: DeliveryAttempt[];
  /** Failed attempts since the delivery was queued or redelivered; picks the next retry delay. */
  round: number;
  nextAttemptAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

interface DeliveryDoc extends Omit<StoredDelivery, 'id' | 'projectId' | 'webhookId'> {
  _id: ObjectId;
  projectId: ObjectId;
  webhookId: ObjectId;
  eventKey: string;
  leaseUntil: Date;
  leaseToken: string | null;
}

export interface NewDelivery {
  projectId: string;
  webhookId: string;
  /** Identifies the event: queuing the same event twice for a webhook writes one delivery. */
  eventKey: string;
  event: string;
  body: string;
}

export interface Claim {
  delivery: StoredDelivery;
  token: string;
}

const EPOCH = new Date(0);

const toDelivery = (doc: DeliveryDoc): StoredDelivery => ({
  id: doc._id.toHexString(),
  projectId: doc.projectId.toHexString(),
  webhookId: doc.webhookId.toHexString(),
  event: doc.event,
  body: doc.body,
  status: doc.status,
  attempts: doc.attempts ?? [],
  round: doc.round ?? 0,
  nextAttemptAt: doc.nextAttemptAt,
  createdAt: doc.createdAt,
  updatedAt: doc.updatedAt,
});

export function webhookDeliveriesRepo(db: Db) {
  const deliveries = db.collection<DeliveryDoc>(COLLECTION);

  return {
    /** Idempotent: an upsert per (webhook, event). */
    async enqueue(items: NewDelivery[]): Promise<void> {
      if (!items.length) return;
      const now = new Date();
      await deliveries.bulkWrite(
        items.map((item) => {
          const webhookId = toObjectId(item.webhookId)!;
          return {
            updateOne: {
              filter: { webhookId, eventKey: item.eventKey },
              update: {
                $setOnInsert: {
                  projectId: toObjectId(item.projectId)!,
                  event: item.event,
                  body: item.body,
                  status: 'pending' as const,
                  attempts: [],
                  round: 0,
                  nextAttemptAt: now,
                  leaseUntil: EPOCH,
                  leaseToken: null,
                  createdAt: now,
                  updatedAt: now,
                },
              },
              upsert: true,
            },
          };
        }),
        { ordered: false },
      );
    },

    /** The next due delivery, leased to the caller until `now + leaseMs`. */
    async claim(now: Date, leaseMs: number): Promise<Claim | undefined> {
      const token = randomBytes(12).toString('hex');
      const doc = await deliveries.findOneAndUpdate(
        { status: 'pending', nextAttemptAt: { $lte: now }, leaseUntil: { $lte: now } },
        { $set: { leaseUntil: new Date(now.getTime() + leaseMs), leaseToken: token } },
        { sort: { nextAttemptAt: 1 }, returnDocument: 'after' },
      );
      return doc ? { delivery: toDelivery(doc), token } : undefined;
    },

    /** Records an attempt and what follows it; false when the lease was lost meanwhile. */
    async record(
      claim: Claim,
      attempt: DeliveryAttempt,
      next: { status: DeliveryStatus; round: number; nextAttemptAt: Date | null },
    ): Promise<boolean> {
      const res = await deliveries.updateOne(
        { _id: toObjectId(claim.delivery.id)!, leaseToken: claim.token },
        {
          $push: { attempts: attempt },
          $set: { ...next, leaseUntil: EPOCH, leaseToken: null, updatedAt: new Date() },
        },
      );
      return res.modifiedCount === 1;
    },

    async list(
      projectId: string,
      webhookId: string,
      page: number,
      limit: number,
    ): Promise<{ items: StoredDelivery[]; hasMore: boolean }> {
      const docs = await deliveries
        .find({ projectId: toObjectId(projectId)!, webhookId: toObjectId(webhookId)! })
        .sort({ createdAt: -1, _id: -1 })
        .skip((page - 1) * limit)
        .limit(limit + 1)
        .toArray();
      return { items: docs.slice(0, limit).map(toDelivery), hasMore: docs.length > limit };
    },

    async find(projectId: string, webhookId: string, id: string): Promise<StoredDelivery | undefined> {
      const _id = toObjectId(id);
      const doc =
        _id &&
        (await deliveries.findOne({
          _id,
          projectId: toObjectId(projectId)!,
          webhookId: toObjectId(webhookId)!,
        }));
      return doc ? toDelivery(doc) : undefined;
    },

    /** Queues a finished delivery again, due now; undefined when it is still pending. */
    async redeliver(projectId: string, webhookId: string, id: string): Promise<StoredDelivery | undefined> {
      const _id = toObjectId(id);
      if (!_id) return undefined;
      const now = new Date();
      const doc = await deliveries.findOneAndUpdate(
        {
          _id,
          projectId: toObjectId(projectId)!,
          webhookId: toObjectId(webhookId)!,
          status: { $in: ['succeeded', 'failed'] },
        },
        { $set: { status: 'pending', round: 0, nextAttemptAt: now, updatedAt: now } },
        { returnDocument: 'after' },
      );
      return doc ? toDelivery(doc) : undefined;
    },

    async deleteForWebhook(webhookId: string): Promise<void> {
      const _id = toObjectId(webhookId);
      if (_id) await deliveries.deleteMany({ webhookId: _id });
    },
    async deleteAll(projectId: string): Promise<void> {
      const _id = toObjectId(projectId);
      if (_id) await deliveries.deleteMany({ projectId: _id });
    },
  };
}

export type WebhookDeliveriesRepo = ReturnType<typeof webhookDeliveriesRepo>;
