// The webhook outbox (platform database, collection `webhook_deliveries`): one document per event
// and webhook with the log of every attempt. Workers claim a due delivery with one
// findOneAndUpdate that sets a lease, taking projects in turn and skipping those already holding
// their share of leases, and the target hosts holding theirs (`host`, the webhook URL's host name
// written with each entry); a worker that dies mid-delivery leaves a lease that expires, and the
// delivery is claimed again. Only the holder of the claim token can record the attempt's outcome.
// A finished delivery carries `expiresAt` (TTL index, and the expiry sweep). Intents: see
// webhook-intents.ts.
import type { Db } from 'mongodb';
import { randomBytes } from 'node:crypto';
import { ObjectId, toObjectId } from './ids.js';
import { registerPlatformIndexes } from './platform.js';

export const DELIVERIES = 'webhook_deliveries';
registerPlatformIndexes(DELIVERIES, [
  { key: { status: 1, nextAttemptAt: 1 }, name: 'due' },
  { key: { status: 1, projectId: 1, nextAttemptAt: 1 }, name: 'due_by_project' },
  { key: { leaseUntil: 1 }, name: 'leased' },
  { key: { webhookId: 1, createdAt: -1 }, name: 'webhookId' },
  { key: { webhookId: 1, eventKey: 1 }, name: 'u_webhook_event', unique: true },
  { key: { projectId: 1, status: 1 }, name: 'projectId_status' },
  { key: { expiresAt: 1 }, name: 'ttl_expiresAt', expireAfterSeconds: 0 },
]);

/**
 * What an entry is delivered to: a webhook (`webhookId` names it), or a function's after-trigger
 * (`webhookId` names the function; docs/functions.md), run with `runAs`'s rights.
 */
export type DeliveryTarget = 'webhook' | 'function';

export interface DeliveryRunAs {
  keyKind: 'publishable' | 'secret';
  userId: string | null;
  /** The writer's function depth (0: a client's write). */
  depth: number;
}

/** `intent`: written before the change it announces, not yet deliverable (webhook-intents.ts). */
export type DeliveryStatus = 'pending' | 'succeeded' | 'failed';
type StoredStatus = DeliveryStatus | 'intent';

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
  target: DeliveryTarget;
  /** A function target's caller: the writer of the change. */
  runAs: DeliveryRunAs | null;
  status: DeliveryStatus;
  attempts: DeliveryAttempt[];
  /** Failed attempts since the delivery was queued or redelivered; picks the next retry delay. */
  round: number;
  nextAttemptAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export interface DeliveryDoc extends Omit<
  StoredDelivery,
  'id' | 'projectId' | 'webhookId' | 'status' | 'target' | 'runAs'
> {
  _id: ObjectId;
  projectId: ObjectId;
  webhookId: ObjectId;
  status: StoredStatus;
  eventKey: string;
  /** What the event is about (null for a ping): intents are checked, erasures redacted, by it. */
  collection?: string | null;
  documentId?: string | null;
  /** An intent's event time (the write's own timestamp). */
  eventAt?: Date | null;
  /** An intent's failed checks (webhook-intents.ts). */
  intentFailures?: number;
  /** The target's host name (the per-host cap); absent on entries written before it existed. */
  host?: string | null;
  /** Absent: a webhook. */
  target?: 'function';
  runAs?: DeliveryRunAs | null;
  leaseUntil: Date;
  leaseToken: string | null;
  /** Set when the delivery finishes; the TTL index and the expiry sweep remove it then. */
  expiresAt?: Date | null;
}

export interface NewDelivery {
  projectId: string;
  webhookId: string;
  /** Identifies the event: queuing the same event twice for a webhook writes one delivery. */
  eventKey: string;
  event: string;
  body: string;
  collection?: string | null;
  documentId?: string | null;
  host: string;
}

export interface Claim {
  delivery: StoredDelivery;
  token: string;
}

export const EPOCH = new Date(0);

export const toDelivery = (doc: DeliveryDoc): StoredDelivery => ({
  id: doc._id.toHexString(),
  projectId: doc.projectId.toHexString(),
  webhookId: doc.webhookId.toHexString(),
  event: doc.event,
  body: doc.body,
  target: doc.target ?? 'webhook',
  runAs: doc.runAs ?? null,
  status: doc.status === 'intent' ? 'pending' : doc.status,
  attempts: doc.attempts ?? [],
  round: doc.round ?? 0,
  nextAttemptAt: doc.nextAttemptAt,
  createdAt: doc.createdAt,
  updatedAt: doc.updatedAt,
});

/**
 * The upsert that writes a new entry of the outbox once per (webhook, event): a delivery due now,
 * or (webhook-intents.ts) an intent; `fields` are what differs between the two.
 */
export function newDeliveryUpsert(
  item: { projectId: string; webhookId: string; eventKey: string; event: string },
  fields: Pick<DeliveryDoc, 'body' | 'collection' | 'documentId' | 'host' | 'target' | 'runAs'> & {
    status: DeliveryDoc['status'];
    eventAt?: Date;
  },
  now: Date,
) {
  return {
    updateOne: {
      filter: { webhookId: toObjectId(item.webhookId)!, eventKey: item.eventKey },
      update: {
        $setOnInsert: {
          projectId: toObjectId(item.projectId)!,
          event: item.event,
          ...fields,
          attempts: [],
          round: 0,
          // An intent's "due" time is when it was written: the recovery looks at old ones.
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
}

export function webhookDeliveriesRepo(db: Db) {
  const deliveries = db.collection<DeliveryDoc>(DELIVERIES);

  return {
    /** Idempotent: an upsert per (webhook, event). */
    async enqueue(items: NewDelivery[]): Promise<void> {
      if (!items.length) return;
      const now = new Date();
      await deliveries.bulkWrite(
        items.map((item) =>
          newDeliveryUpsert(
            item,
            {
              body: item.body,
              status: 'pending',
              collection: item.collection ?? null,
              documentId: item.documentId ?? null,
              host: item.host,
            },
            now,
          ),
        ),
        { ordered: false },
      );
    },

    /**
     * Projects holding at least `shares.project` leased deliveries now (every worker's), and
     * target hosts holding at least `shares.host`: one read of the leases, grouped by both.
     */
    async busy(now: Date, shares: { project: number; host: number }) {
      const rows = await deliveries
        .aggregate<{ _id: { p: ObjectId; h: string | null }; n: number }>([
          { $match: { leaseUntil: { $gt: now }, status: 'pending' } },
          { $group: { _id: { p: '$projectId', h: '$host' }, n: { $sum: 1 } } },
        ])
        .toArray();
      const byProject = new Map<string, number>();
      const byHost = new Map<string, number>();
      for (const { _id, n } of rows) {
        const project = _id.p.toHexString();
        byProject.set(project, (byProject.get(project) ?? 0) + n);
        if (_id.h) byHost.set(_id.h, (byHost.get(_id.h) ?? 0) + n);
      }
      const over = (counts: Map<string, number>, share: number) =>
        [...counts].filter(([, n]) => n >= share).map(([key]) => key);
      return { projects: over(byProject, shares.project), hosts: over(byHost, shares.host) };
    },

    /**
     * The next due delivery, leased to the caller until `now + leaseMs`: the oldest one of the
     * first project after `after` (in id order, wrapping around) that is not in `skip`, so
     * projects take turns whatever the size of their backlog.
     */
    async claim(
      now: Date,
      leaseMs: number,
      turn: { after?: string; skip?: string[]; skipHosts?: string[] } = {},
    ): Promise<Claim | undefined> {
      const token = randomBytes(12).toString('hex');
      const skip = (turn.skip ?? []).map((id) => toObjectId(id)!);
      const after = turn.after ? toObjectId(turn.after) : undefined;
      const hosts = turn.skipHosts?.length ? { host: { $nin: turn.skipHosts } } : {};
      const take = (projectId: Record<string, unknown>) =>
        deliveries.findOneAndUpdate(
          {
            status: 'pending',
            projectId,
            nextAttemptAt: { $lte: now },
            leaseUntil: { $lte: now },
            ...hosts,
          },
          { $set: { leaseUntil: new Date(now.getTime() + leaseMs), leaseToken: token } },
          { sort: { projectId: 1, nextAttemptAt: 1 }, returnDocument: 'after' },
        );
      const doc = (after && (await take({ $gt: after, $nin: skip }))) || (await take({ $nin: skip }));
      return doc ? { delivery: toDelivery(doc), token } : undefined;
    },

    /** Deliveries of the project waiting to be made (intents included), counted up to `limit`. */
    async countPending(projectId: string, limit: number): Promise<number> {
      return deliveries.countDocuments(
        { projectId: toObjectId(projectId)!, status: { $in: ['pending', 'intent'] } },
        { limit },
      );
    },

    /** Records an attempt and what follows it; false when the lease was lost meanwhile. */
    async record(
      claim: Claim,
      attempt: DeliveryAttempt,
      next: { status: DeliveryStatus; round: number; nextAttemptAt: Date | null; expiresAt: Date | null },
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
        .find({
          projectId: toObjectId(projectId)!,
          webhookId: toObjectId(webhookId)!,
          status: { $ne: 'intent' },
        })
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
          status: { $ne: 'intent' },
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
        { $set: { status: 'pending', round: 0, nextAttemptAt: now, updatedAt: now, expiresAt: null } },
        { returnDocument: 'after' },
      );
      return doc ? toDelivery(doc) : undefined;
    },

    /** Waiting entries of a webhook follow its new URL's host (the per-host cap counts it). */
    async retarget(projectId: string, webhookId: string, host: string): Promise<void> {
      await deliveries.updateMany(
        {
          projectId: toObjectId(projectId)!,
          webhookId: toObjectId(webhookId)!,
          status: { $in: ['pending', 'intent'] },
        },
        { $set: { host } },
      );
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
