// The outbox writer on the event seam: a durable listener that writes an event's deliveries as
// intents before the change (one write for every webhook and document of it) and confirms them
// with their bodies after it, so a process that dies in between loses nothing (the worker settles
// old intents, see recovery.ts). Bounded: a project's outbox takes at most
// WEBHOOK_MAX_PENDING_PER_PROJECT waiting entries, the event past it is dropped, counted on the
// webhooks it was for and logged; a payload over WEBHOOK_MAX_PAYLOAD_BYTES goes without its document.
// The functions' after-triggers ride the same outbox: an announced change also writes one entry
// per after-function of its collection (functions/after-triggers.ts), with the writer's rights.
import type { WebhookSettings } from '../../config.js';
import type { Logger } from '../../lib/logger.js';
import type { StoredWebhook, WebhooksRepo } from '../../db/webhooks.js';
import type { WebhookDeliveriesRepo } from '../../db/webhook-deliveries.js';
import type { IntentRef, NewIntent, WebhookIntentsRepo } from '../../db/webhook-intents.js';
import type { DurableListener, EventIntent, ServiceEvent } from '../events.js';
import type { ProjectCache } from '../project-cache.js';
import type { AfterTriggers } from '../functions/after-triggers.js';
import { targetHost } from './http.js';
import { eventKey, eventPayload } from './payload.js';

/** How long a process trusts its count of a project's waiting entries (plus what it added). */
const COUNT_TRUST_MS = 1000;
/** One log line per project and minute at most while its outbox refuses events. */
const WARN_EVERY_MS = 60_000;
const MAX_TRACKED = 10_000;

const subscribed = (webhook: StoredWebhook, event: Pick<EventIntent, 'name' | 'collection'>) =>
  webhook.enabled &&
  webhook.events.includes(event.name) &&
  (webhook.collections.length === 0 || webhook.collections.includes(event.collection));

export interface OutboxDeps {
  settings: WebhookSettings;
  log: Logger;
  cache: ProjectCache;
  webhooks: WebhooksRepo;
  deliveries: WebhookDeliveriesRepo;
  intents: WebhookIntentsRepo;
  /** The after-functions a change runs (none when absent). */
  functions?: Pick<AfterTriggers, 'targets'>;
}

export function webhookOutbox({
  settings,
  log,
  cache,
  webhooks,
  deliveries,
  intents,
  functions,
}: OutboxDeps): DurableListener<IntentRef[] | undefined> {
  const waiting = new Map<string, { at: number; count: number }>();
  const warned = new Map<string, number>();

  const targetsOf = async (event: EventIntent) =>
    (await cache.ofProject(event.projectId, 'webhooks', () => webhooks.list(event.projectId))).filter(
      (webhook) => subscribed(webhook, event),
    );

  /** Whether the project's outbox takes `entries` more; a refusal is counted and logged. */
  async function admit(event: EventIntent, targets: { id: string }[]): Promise<boolean> {
    const { projectId } = event;
    const bound = settings.maxPendingPerProject;
    const now = Date.now();
    let seen = waiting.get(projectId);
    if (!seen || now - seen.at > COUNT_TRUST_MS) {
      if (waiting.size >= MAX_TRACKED) waiting.clear();
      seen = { at: now, count: await deliveries.countPending(projectId, bound) };
      waiting.set(projectId, seen);
    }
    if (seen.count < bound) {
      seen.count += targets.length;
      return true;
    }
    await webhooks.countDropped(
      projectId,
      targets.map((webhook) => webhook.id),
      event.at,
    );
    if (now - (warned.get(projectId) ?? 0) >= WARN_EVERY_MS) {
      if (warned.size >= MAX_TRACKED) warned.clear();
      warned.set(projectId, now);
      log.warn(
        { projectId, event: event.name, pending: seen.count, bound },
        'webhook outbox full: event dropped (the project has too many deliveries waiting)',
      );
    }
    return false;
  }

  const body = (event: ServiceEvent, key: string) => eventPayload(event, key, settings.maxPayloadBytes);

  return {
    async intend(announced) {
      const items: NewIntent[] = [];
      for (const intent of announced) {
        const targets = await targetsOf(intent);
        const runs = (await functions?.targets(intent)) ?? [];
        if (!(targets.length + runs.length) || !(await admit(intent, [...targets, ...runs]))) continue;
        const key = eventKey(intent);
        for (const fn of runs) {
          items.push({
            projectId: intent.projectId,
            webhookId: fn.id,
            eventKey: key,
            event: intent.name,
            collection: intent.collection,
            documentId: intent.documentId,
            eventAt: intent.at,
            host: fn.runtime.type === 'http' ? targetHost(fn.runtime.url) : null,
            function: { runAs: intent.actor! },
          });
        }
        for (const webhook of targets) {
          items.push({
            projectId: intent.projectId,
            webhookId: webhook.id,
            eventKey: key,
            event: intent.name,
            collection: intent.collection,
            documentId: intent.documentId,
            eventAt: intent.at,
            host: targetHost(webhook.url),
          });
        }
      }
      if (!items.length) return undefined;
      await intents.intend(items);
      return items.map(({ webhookId, eventKey: key }) => ({ webhookId, eventKey: key }));
    },

    async confirm(recorded, events) {
      if (!recorded) return;
      const bodies = new Map<string, string>();
      for (const event of events) {
        const key = eventKey(event);
        bodies.set(key, body(event, key));
      }
      const confirmed: (IntentRef & { body: string })[] = [];
      // A change of several documents may have written only some (a bulk trash that lost a race):
      // the intents of the others go now, not to the worker's recovery.
      const dropped: IntentRef[] = [];
      for (const ref of recorded) {
        const text = bodies.get(ref.eventKey);
        if (text === undefined) dropped.push(ref);
        else confirmed.push({ ...ref, body: text });
      }
      await Promise.all([intents.confirm(confirmed), intents.abandon(dropped)]);
    },

    async abandon(recorded) {
      if (recorded) await intents.abandon(recorded);
    },

    /** An event nobody announced: its deliveries are written at once, ready. */
    async emit(event) {
      const targets = await targetsOf(event);
      if (!targets.length || !(await admit(event, targets))) return;
      const key = eventKey(event);
      const text = body(event, key);
      await deliveries.enqueue(
        targets.map((webhook) => ({
          projectId: event.projectId,
          webhookId: webhook.id,
          eventKey: key,
          event: event.name,
          body: text,
          collection: event.collection,
          documentId: event.documentId,
          host: targetHost(webhook.url),
        })),
      );
    },
  };
}
