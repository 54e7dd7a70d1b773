// Webhooks: the dashboard management, the outbox writer on the event seam (outbox.ts: intents
// before the change, confirmed after it), and what the worker role runs: the deliverer and the
// recovery of intents a dead process left unconfirmed. Delivered off the request path.
import type { Config } from '../../config.js';
import type { Cache } from '../../cache/index.js';
import type { Logger } from '../../lib/logger.js';
import type { Database } from '../../db/client.js';
import { webhooksRepo } from '../../db/webhooks.js';
import { webhookDeliveriesRepo } from '../../db/webhook-deliveries.js';
import { webhookIntentsRepo } from '../../db/webhook-intents.js';
import { decrypt, deriveKey, encrypt } from '../../lib/secrets.js';
import { invalidating, type ProjectCache } from '../project-cache.js';
import type { EventBus } from '../events.js';
import type { ProjectsService } from '../projects.js';
import { webhooksManager } from './manage.js';
import { generateSecret } from './signing.js';
import { webhookDeliverer } from './delivery.js';
import { targetAllowance } from './http.js';
import type { UsageCounter } from '../usage/counter.js';
import { webhookOutbox } from './outbox.js';
import { intentRecovery, type DocumentReader } from './recovery.js';
import type { AfterTriggers } from '../functions/after-triggers.js';
import { ownOriginsOf } from '../../lib/own-origins.js';

export const WEBHOOK_EVENTS = [
  'document.created',
  'document.updated',
  'document.deleted',
  'document.restored',
  'user.created',
] as const;

export function webhookServices(
  config: Config,
  log: Logger,
  platform: Database['platform'],
  cache: ProjectCache,
  events: EventBus,
  projects: ProjectsService,
  readDocument: DocumentReader,
  counters: Pick<Cache, 'incr'>,
  counter?: Pick<UsageCounter, 'add'>,
  /** The functions' after-triggers, queued and delivered through this outbox. */
  functions?: AfterTriggers,
) {
  // Webhook changes mark the project changed, so every process sees them in its cached list.
  const repo = invalidating(
    webhooksRepo(platform),
    ['create', 'update', 'delete', 'deleteAll', 'pause'],
    cache,
  );
  const deliveries = webhookDeliveriesRepo(platform);
  const intents = webhookIntentsRepo(platform);
  const key = deriveKey(config.encryptionKey, 'webhook-secret');
  const manager = webhooksManager({
    config,
    repo,
    deliveries,
    limitsOf: projects.limitsOf,
    seal: (secret) => encrypt(key, secret),
    counters,
  });

  events.onDurable(
    webhookOutbox({ settings: config.webhooks, log, cache, webhooks: repo, deliveries, intents, functions }),
  );

  projects.onDelete(async (projectId) => {
    await deliveries.deleteAll(projectId);
    await repo.deleteAll(projectId);
  });

  const workerLog = log.child({ job: 'webhook-delivery' });
  const recovery = intentRecovery(intents, readDocument, workerLog, {
    graceMs: config.webhooks.intentGraceMs,
    leaseMs: config.webhooks.leaseMs,
    maxPayloadBytes: config.webhooks.maxPayloadBytes,
    maxFailures: config.webhooks.intentMaxFailures,
    taskTimeoutMs: config.workerTaskTimeoutMs,
  });
  return {
    manage: manager,
    /** A new signing secret as stored (sealed), for a webhook made other than through `manage`. */
    newSealedSecret: () => encrypt(key, generateSecret()),
    deliverer: {
      ...webhookDeliverer(deliveries, repo, workerLog, {
        settings: config.webhooks,
        allowPrivateHosts: targetAllowance(config),
        own: ownOriginsOf(config),
        openSecret: (sealed) => decrypt(key, sealed),
        onAttempt: (projectId) => counter?.add(projectId, 'webhookDeliveries'),
        functions,
      }),
      settleIntent: recovery.settleNext,
    },
    /** An erased end user's documents leave the payloads of queued and logged deliveries. */
    redact: (projectId: string, collection: string, documentIds: string[]) =>
      intents.redact(projectId, collection, documentIds),
  };
}

export type WebhookServices = ReturnType<typeof webhookServices>;
