// Intents in the webhook outbox: an event's deliveries are written before the change that causes
// them (status `intent`, not deliverable), and confirmed with their body after it. There are no
// transactions, so a process that dies between the change and the confirmation leaves intents
// behind; the worker claims old ones and, having checked whether the change was written, confirms
// or drops them. Also the erasure of an end user's data from payloads already queued or logged.
import type { Db } from 'mongodb';
import { randomBytes } from 'node:crypto';
import { toObjectId } from './ids.js';
import {
  DELIVERIES,
  EPOCH,
  newDeliveryUpsert,
  type DeliveryDoc,
  type DeliveryRunAs,
} from './webhook-deliveries.js';

export interface NewIntent {
  projectId: string;
  webhookId: string;
  eventKey: string;
  event: string;
  collection: string;
  documentId: string;
  /** The event's time, which the change writes into the document (updatedAt, deletedAt). */
  eventAt: Date;
  /** The target's host name (the per-host cap); null for a hosted function. */
  host: string | null;
  /** A function's after-trigger, run as `runAs` (webhook-deliveries.ts); absent: a webhook. */
  function?: { runAs: DeliveryRunAs };
}

export interface IntentRef {
  webhookId: string;
  eventKey: string;
}

/** An old intent taken by a worker: what it announced. */
export interface ClaimedIntent {
  projectId: string;
  eventKey: string;
  event: string;
  collection: string;
  documentId: string;
  eventAt: Date;
  /** Checks of this intent that failed so far (its project's database could not be read). */
  failures: number;
}

export function webhookIntentsRepo(db: Db) {
  const deliveries = db.collection<DeliveryDoc>(DELIVERIES);
  const refFilter = (ref: IntentRef) => ({
    webhookId: toObjectId(ref.webhookId)!,
    eventKey: ref.eventKey,
    status: 'intent' as const,
  });

  return {
    /** One write for every intent of a change; idempotent per (webhook, event). */
    async intend(items: NewIntent[]): Promise<void> {
      if (!items.length) return;
      const now = new Date();
      await deliveries.bulkWrite(
        items.map((item) =>
          newDeliveryUpsert(
            item,
            {
              body: '',
              status: 'intent',
              collection: item.collection,
              documentId: item.documentId,
              eventAt: item.eventAt,
              host: item.host,
              ...(item.function ? { target: 'function' as const, runAs: item.function.runAs } : {}),
            },
            now,
          ),
        ),
        { ordered: false },
      );
    },

    /** The change was written: the intents become deliveries, due now, with their bodies. */
    async confirm(items: (IntentRef & { body: string })[]): Promise<void> {
      if (!items.length) return;
      const now = new Date();
      await deliveries.bulkWrite(
        items.map((item) => ({
          updateOne: {
            filter: refFilter(item),
            update: {
              $set: { status: 'pending' as const, body: item.body, nextAttemptAt: now, updatedAt: now },
            },
          },
        })),
        { ordered: false },
      );
    },

    /** The change failed: its intents go. */
    async abandon(items: IntentRef[]): Promise<void> {
      if (!items.length) return;
      await deliveries.bulkWrite(
        items.map((item) => ({ deleteOne: { filter: refFilter(item) } })),
        { ordered: false },
      );
    },

    /** An intent written before `cutoff`, leased to the caller so that one worker settles it. */
    async claimStale(now: Date, cutoff: Date, leaseMs: number): Promise<ClaimedIntent | undefined> {
      const doc = await deliveries.findOneAndUpdate(
        { status: 'intent', nextAttemptAt: { $lte: cutoff }, leaseUntil: { $lte: now } },
        {
          $set: {
            leaseUntil: new Date(now.getTime() + leaseMs),
            leaseToken: randomBytes(12).toString('hex'),
          },
        },
        { sort: { nextAttemptAt: 1 }, returnDocument: 'after' },
      );
      if (!doc) return undefined;
      return {
        projectId: doc.projectId.toHexString(),
        eventKey: doc.eventKey,
        event: doc.event,
        collection: doc.collection ?? '',
        documentId: doc.documentId ?? '',
        eventAt: doc.eventAt ?? doc.createdAt,
        failures: doc.intentFailures ?? 0,
      };
    },

    /** Records a failed check on every intent of the event; the count decides when to give up. */
    async noteFailure(intent: ClaimedIntent, failures: number): Promise<void> {
      await deliveries.updateMany(
        { projectId: toObjectId(intent.projectId)!, eventKey: intent.eventKey, status: 'intent' },
        { $set: { intentFailures: failures } },
      );
    },

    /** Settles every intent of one event: confirmed with `body`, or dropped (null). */
    async settle(intent: ClaimedIntent, body: string | null): Promise<number> {
      const filter = {
        projectId: toObjectId(intent.projectId)!,
        eventKey: intent.eventKey,
        status: 'intent' as const,
      };
      if (body === null) return (await deliveries.deleteMany(filter)).deletedCount;
      const now = new Date();
      const res = await deliveries.updateMany(filter, {
        $set: {
          status: 'pending',
          body,
          nextAttemptAt: now,
          updatedAt: now,
          leaseUntil: EPOCH,
          leaseToken: null,
        },
      });
      return res.modifiedCount;
    },

    /**
     * Takes the document out of the payloads of the deliveries about these documents (queued or
     * logged): `document` becomes null and `redacted` true. Returns how many were changed.
     */
    async redact(projectId: string, collection: string, documentIds: string[]): Promise<number> {
      if (!documentIds.length) return 0;
      let changed = 0;
      const project = toObjectId(projectId)!;
      for (let i = 0; i < documentIds.length; i += 500) {
        const ids = documentIds.slice(i, i + 500);
        const docs = await deliveries
          .find(
            { projectId: project, collection, documentId: { $in: ids } },
            { projection: { _id: 1, body: 1 } },
          )
          .toArray();
        const writes = docs.map((doc) => ({
          updateOne: { filter: { _id: doc._id }, update: { $set: { body: redactedBody(doc.body) } } },
        }));
        if (writes.length) changed += (await deliveries.bulkWrite(writes, { ordered: false })).modifiedCount;
      }
      return changed;
    },
  };
}

function redactedBody(body: string): string {
  if (!body) return body;
  try {
    const payload = JSON.parse(body) as Record<string, unknown>;
    return JSON.stringify({ ...payload, document: null, redacted: true });
  } catch {
    return '';
  }
}

export type WebhookIntentsRepo = ReturnType<typeof webhookIntentsRepo>;
