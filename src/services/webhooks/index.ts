// Webhooks: the dashboard management, the outbox writer subscribed to the event seam, and the
// deliverer the worker role runs. An event's deliveries are written right after the change that
// emitted it (no transactions: the write is idempotent per event and webhook), and delivered off
// the request path.
import type { Config } from '../../config.js';
import type { Logger } from '../../lib/logger.js';
import type { Database } from '../../db/client.js';
import { webhooksRepo, type StoredWebhook } from '../../db/webhooks.js';
import { webhookDeliveriesRepo } from '../../db/webhook-deliveries.js';
import { decrypt, deriveKey, encrypt } from '../../lib/secrets.js';
import { invalidating, type ProjectCache } from '../project-cache.js';
import type { EventBus, ServiceEvent } from '../events.js';
import type { ProjectsService } from '../projects.js';
import { webhooksManager } from './manage.js';
import { webhookDeliverer } from './delivery.js';
import type { UsageCounter } from '../usage/counter.js';
import { eventKey, eventPayload } from './payload.js';

export const WEBHOOK_EVENTS = [
  'document.created',
  'document.updated',
  'document.deleted',
  'document.restored',
  'user.created',
] as const;

const subscribed = (webhook: StoredWebhook, event: ServiceEvent) =>
  webhook.enabled &&
  webhook.events.includes(event.name) &&
  (webhook.collections.length === 0 || webhook.collections.includes(event.collection));

export function webhookServices(
  config: Config,
  log: Logger,
  platform: Database['platform'],
  cache: ProjectCache,
  events: EventBus,
  projects: ProjectsService,
  counter?: Pick<UsageCounter, 'add'>,
) {
  // Webhook changes mark the project changed, so every process sees them in its cached list.
  const repo = invalidating(webhooksRepo(platform), ['create', 'update', 'delete', 'deleteAll'], cache);
  const deliveries = webhookDeliveriesRepo(platform);
  const key = deriveKey(config.encryptionKey, 'webhook-secret');
  const manager = webhooksManager({
    config,
    repo,
    deliveries,
    limitsOf: projects.limitsOf,
    seal: (secret) => encrypt(key, secret),
  });

  events.on(async (event) => {
    const hooks = await cache.ofProject(event.projectId, 'webhooks', () => repo.list(event.projectId));
    const targets = hooks.filter((webhook) => subscribed(webhook, event));
    if (!targets.length) return;
    const id = eventKey(event);
    const body = eventPayload(event, id);
    await deliveries.enqueue(
      targets.map((webhook) => ({
        projectId: event.projectId,
        webhookId: webhook.id,
        eventKey: id,
        event: event.name,
        body,
      })),
    );
  });

  projects.onDelete(async (projectId) => {
    await deliveries.deleteAll(projectId);
    await repo.deleteAll(projectId);
  });

  return {
    manage: manager,
    deliverer: webhookDeliverer(deliveries, repo, log.child({ job: 'webhook-delivery' }), {
      settings: config.webhooks,
      allowPrivateHosts: config.allowPrivateHosts,
      openSecret: (sealed) => decrypt(key, sealed),
      onAttempt: (projectId) => counter?.add(projectId, 'webhookDeliveries'),
    }),
  };
}

export type WebhookServices = ReturnType<typeof webhookServices>;
