// The worker's side of the outbox intents: an intent older than WEBHOOK_INTENT_GRACE was left by
// a process that died between the change and its confirmation (or the change failed and the
// abandon was lost). The document tells which: the change happened when the document shows it
// (exists for a create, an updatedAt or deletedAt at or after the event's time for an update or a
// delete, active again for a restore); then the intent is confirmed with the document as it is now,
// otherwise dropped. Each check runs under the worker's task deadline; an intent whose document
// cannot be read (its project's own database not answering) is tried again when its lease ends,
// and dropped after WEBHOOK_INTENT_MAX_FAILURES failed checks (or a day).
import type { Logger } from '../../lib/logger.js';
import { withTaskDeadline } from '../../lib/task-deadline.js';
import type { ClaimedIntent, WebhookIntentsRepo } from '../../db/webhook-intents.js';
import type { EventName } from '../events.js';
import { eventPayload } from './payload.js';

/** Reads one document of a project (any state, trash included); undefined when there is none. */
export type DocumentReader = (
  projectId: string,
  collection: string,
  id: string,
) => Promise<Record<string, unknown> | undefined>;

const GIVE_UP_MS = 86_400_000;

const time = (value: unknown): number =>
  value instanceof Date ? value.getTime() : typeof value === 'string' ? Date.parse(value) : NaN;

/** Whether the stored document shows the change the intent announced. */
export function changeHappened(intent: ClaimedIntent, doc: Record<string, unknown> | undefined): boolean {
  if (!doc) return false;
  const at = intent.eventAt.getTime();
  switch (intent.event) {
    case 'document.updated':
      return time(doc.updatedAt) >= at;
    case 'document.deleted':
      return doc.isDeleted === true && time(doc.deletedAt) >= at;
    case 'document.restored':
      return doc.isDeleted !== true;
    default:
      return true;
  }
}

export interface RecoveryOptions {
  graceMs: number;
  leaseMs: number;
  maxPayloadBytes: number;
  /** Failed checks after which an intent is dropped. */
  maxFailures: number;
  /** The deadline of one check (WORKER_TASK_TIMEOUT_MS). */
  taskTimeoutMs: number;
  now?: () => Date;
}

export function intentRecovery(
  intents: WebhookIntentsRepo,
  readDocument: DocumentReader,
  log: Logger,
  { graceMs, leaseMs, maxPayloadBytes, maxFailures, taskTimeoutMs, now = () => new Date() }: RecoveryOptions,
) {
  return {
    /** Settles one stale intent (all deliveries of its event); false when there was none. */
    async settleNext(): Promise<boolean> {
      const at = now();
      const intent = await intents.claimStale(at, new Date(at.getTime() - graceMs), leaseMs);
      if (!intent) return false;
      let doc: Record<string, unknown> | undefined;
      try {
        doc = await withTaskDeadline(taskTimeoutMs, 'webhook intent check', () =>
          readDocument(intent.projectId, intent.collection, intent.documentId),
        );
      } catch (err) {
        // Tried again when the lease ends; an intent that failed too often, or cannot be checked
        // for a day, goes.
        const failures = intent.failures + 1;
        const stuck = failures >= maxFailures || at.getTime() - intent.eventAt.getTime() > GIVE_UP_MS;
        log.warn(
          { err, projectId: intent.projectId, failures, stuck },
          stuck
            ? 'webhook intent dropped: the document could not be read, given up'
            : 'webhook intent: the document could not be read',
        );
        if (stuck) await intents.settle(intent, null);
        else await intents.noteFailure(intent, failures);
        return true;
      }
      const happened = changeHappened(intent, doc);
      const body = happened
        ? eventPayload(
            {
              name: intent.event as EventName,
              projectId: intent.projectId,
              collection: intent.collection,
              documentId: intent.documentId,
              document: intent.event === 'document.deleted' ? null : (doc ?? null),
              at: intent.eventAt,
            },
            intent.eventKey,
            maxPayloadBytes,
          )
        : null;
      const settled = await intents.settle(intent, body);
      log.info(
        { projectId: intent.projectId, event: intent.event, documentId: intent.documentId, settled },
        happened
          ? 'unconfirmed webhook intent confirmed: the change was written'
          : 'unconfirmed webhook intent dropped: the change was not written',
      );
      return true;
    },
  };
}

export type IntentRecovery = ReturnType<typeof intentRecovery>;
