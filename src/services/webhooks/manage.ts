// Webhooks on the dashboard: create (the secret shown once), list, read, change, delete, rotate
// the secret, queue a test ping, list deliveries with their attempts, redeliver one. The plan's
// limit is a counted slot per project, taken before the webhook is written.
import type { Config } from '../../config.js';
import { ApiError, badRequest, conflict, forbidden, notFound, tooManyRequests } from '../../http/errors.js';
import type { Cache } from '../../cache/index.js';
import { checkHost } from '../../lib/restricted-hosts.js';
import { ownOriginsOf } from '../../lib/own-origins.js';
import { randomToken } from '../../lib/secrets.js';
import type { StoredWebhook, WebhookFields, WebhookHealth, WebhooksRepo } from '../../db/webhooks.js';
import type { StoredDelivery, WebhookDeliveriesRepo } from '../../db/webhook-deliveries.js';
import type { PlanLimits, Project } from '../types.js';
import type { EventName } from '../events.js';
import { targetAllowance, targetHost, urlProblem } from './http.js';
import { messageId } from './delivery.js';
import { PING_EVENT, pingPayload } from './payload.js';
import { generateSecret } from './signing.js';
import { counted } from '../../lib/words.js';

export const RESTRICTED_URL_MESSAGE =
  'The webhook URL points to a restricted host (an internal, private, link-local or metadata address, or a name that does not resolve): use a public https:// address, or localhost in the development profile.';

export interface WebhookInput {
  url: string;
  events: string[];
  collections?: string[];
  description?: string | null;
  enabled?: boolean;
}

export const webhookView = (w: StoredWebhook) => ({
  id: w.id,
  url: w.url,
  description: w.description,
  events: w.events as EventName[],
  collections: w.collections,
  enabled: w.enabled,
  pausedAt: w.pausedAt?.toISOString() ?? null,
  pausedReason: w.pausedReason,
  consecutiveFailures: w.consecutiveFailures,
  failingSince: w.failingSince?.toISOString() ?? null,
  droppedEvents: w.droppedEvents,
  lastDroppedAt: w.lastDroppedAt?.toISOString() ?? null,
  createdAt: w.createdAt.toISOString(),
  updatedAt: w.updatedAt.toISOString(),
});

export function deliveryView(d: StoredDelivery) {
  let payload: unknown;
  try {
    payload = JSON.parse(d.body);
  } catch {
    payload = null;
  }
  return {
    id: d.id,
    webhookId: d.webhookId,
    messageId: messageId(d.id),
    event: d.event,
    status: d.status,
    payload: payload as Record<string, unknown>,
    attempts: d.attempts.map((a) => ({ ...a, at: a.at.toISOString() })),
    nextAttemptAt: d.nextAttemptAt?.toISOString() ?? null,
    createdAt: d.createdAt.toISOString(),
    updatedAt: d.updatedAt.toISOString(),
  };
}

export interface ManageDeps {
  config: Config;
  repo: WebhooksRepo;
  deliveries: WebhookDeliveriesRepo;
  limitsOf: (project: Project) => Promise<PlanLimits>;
  seal: (secret: string) => string;
  /** Counts pings and redeliveries per project and minute. */
  counters: Pick<Cache, 'incr'>;
}

const MANUAL_WINDOW_SECONDS = 60;

export function webhooksManager({ config, repo, deliveries, limitsOf, seal, counters }: ManageDeps) {
  const allow = { allowHttp: config.webhooks.allowHttp, allowPrivate: targetAllowance(config) };

  /**
   * A ping or a redelivery queues a delivery like an event does: it is refused once the project's
   * outbox holds its bound, and a project may queue only so many a minute (counted before the
   * check, so parallel requests cannot all pass it), so neither can flood the worker's lanes.
   */
  async function admitManual(project: Project): Promise<void> {
    const perMinute = config.webhooks.manualPerMinute;
    if ((await counters.incr(`webhooks:manual:${project.id}`, MANUAL_WINDOW_SECONDS)) > perMinute) {
      throw tooManyRequests(
        MANUAL_WINDOW_SECONDS,
        `Too many test pings and redeliveries: at most ${perMinute} per project and minute`,
      );
    }
    const bound = config.webhooks.maxPendingPerProject;
    if ((await deliveries.countPending(project.id, bound)) >= bound) {
      throw new ApiError(
        429,
        'WEBHOOK_OUTBOX_FULL',
        `The project already has ${bound} deliveries waiting; try again once they have gone out`,
        undefined,
        { 'Retry-After': String(MANUAL_WINDOW_SECONDS) },
      );
    }
  }

  async function checkUrl(url: string): Promise<void> {
    const problem = urlProblem(url, allow);
    if (problem)
      throw badRequest(`The webhook URL is refused. ${problem}`, [{ path: 'body.url', message: problem }]);
    const host = await checkHost(new URL(url).hostname, allow.allowPrivate);
    if (!host.ok) {
      throw badRequest(
        RESTRICTED_URL_MESSAGE,
        [{ path: 'body.url', message: host.reason }],
        'RESTRICTED_HOST',
      );
    }
    const own = await ownOriginsOf(config).check(new URL(url), true);
    if (own)
      throw badRequest(
        `The webhook URL is refused. ${own}`,
        [{ path: 'body.url', message: own }],
        'RESTRICTED_HOST',
      );
  }

  function fields(input: Partial<WebhookInput>): Partial<WebhookFields & WebhookHealth> {
    const out: Partial<WebhookFields & WebhookHealth> = {};
    if (input.url !== undefined) out.url = input.url;
    if (input.events !== undefined) out.events = [...new Set(input.events)];
    if (input.collections !== undefined) out.collections = [...new Set(input.collections)];
    if (input.description !== undefined) out.description = input.description || null;
    if (input.enabled !== undefined) out.enabled = input.enabled;
    // Enabling (again) starts afresh: a pause and its run of failures are over.
    if (input.enabled === true)
      Object.assign(out, { pausedAt: null, pausedReason: null, consecutiveFailures: 0, failingSince: null });
    return out;
  }

  async function require(project: Project, id: string): Promise<StoredWebhook> {
    const webhook = await repo.find(project.id, id);
    if (!webhook) throw notFound('Webhook not found', 'WEBHOOK_NOT_FOUND');
    return webhook;
  }

  return {
    async create(project: Project, input: WebhookInput) {
      await checkUrl(input.url);
      const limit = (await limitsOf(project)).webhooksPerProject;
      if (!(await repo.reserveSlot(project.id, limit))) {
        throw forbidden(
          `Plan limit reached: this project's plan allows ${counted(limit, 'webhook')}`,
          'PLAN_LIMIT',
        );
      }
      const secret = generateSecret();
      try {
        const { url, events, collections, description, enabled } = {
          description: null,
          collections: [],
          enabled: true,
          ...fields(input),
        } as WebhookFields;
        const webhook = await repo.create(
          project.id,
          { url, events, collections, description, enabled },
          seal(secret),
        );
        return { webhook: webhookView(webhook), secret };
      } catch (err) {
        await repo.releaseSlot(project.id);
        throw err;
      }
    },

    list: async (project: Project) => (await repo.list(project.id)).map(webhookView),
    /** Whether the development profile's localhost targets are on (the Webhooks page says so). */
    loopbackTargets: allow.allowPrivate === 'loopback',

    get: async (project: Project, id: string) => webhookView(await require(project, id)),

    async update(project: Project, id: string, input: Partial<WebhookInput>) {
      await require(project, id);
      if (input.url !== undefined) await checkUrl(input.url);
      const updated = await repo.update(project.id, id, fields(input));
      if (!updated) throw notFound('Webhook not found', 'WEBHOOK_NOT_FOUND');
      if (input.url !== undefined) await deliveries.retarget(project.id, id, targetHost(input.url));
      return webhookView(updated);
    },

    async remove(project: Project, id: string): Promise<void> {
      if (!(await repo.delete(project.id, id))) throw notFound('Webhook not found', 'WEBHOOK_NOT_FOUND');
      await repo.releaseSlot(project.id);
      await deliveries.deleteForWebhook(id);
    },

    async rotateSecret(project: Project, id: string) {
      await require(project, id);
      const secret = generateSecret();
      const updated = await repo.update(project.id, id, { secretEnc: seal(secret) });
      if (!updated) throw notFound('Webhook not found', 'WEBHOOK_NOT_FOUND');
      return { webhook: webhookView(updated), secret };
    },

    async ping(project: Project, id: string) {
      const webhook = await require(project, id);
      await admitManual(project);
      const key = `ping_${randomToken(12)}`;
      await deliveries.enqueue([
        {
          projectId: project.id,
          webhookId: webhook.id,
          eventKey: key,
          event: PING_EVENT,
          body: pingPayload(project.id, webhook.id, key, new Date()),
          host: targetHost(webhook.url),
        },
      ]);
      const queued = (await deliveries.list(project.id, webhook.id, 1, 1)).items[0]!;
      return deliveryView(queued);
    },

    async deliveries(project: Project, id: string, page: number, limit: number) {
      await require(project, id);
      const { items, hasMore } = await deliveries.list(project.id, id, page, limit);
      return { deliveries: items.map(deliveryView), pagination: { page, limit, hasMore } };
    },

    async redeliver(project: Project, id: string, deliveryId: string) {
      await require(project, id);
      await admitManual(project);
      const queued = await deliveries.redeliver(project.id, id, deliveryId);
      if (queued) return deliveryView(queued);
      if (await deliveries.find(project.id, id, deliveryId)) {
        throw conflict(
          'The delivery is still pending; it can be redelivered once it has finished',
          'DELIVERY_PENDING',
        );
      }
      throw notFound('Delivery not found', 'DELIVERY_NOT_FOUND');
    },
  };
}

export type WebhooksManager = ReturnType<typeof webhooksManager>;
