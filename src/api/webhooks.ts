// Webhooks on the dashboard: CRUD, secret rotation, test ping, the delivery log and redelivery.
// Members read; admins change.
import type { operations } from '../../generated/dashboard.js';
import type { Handler } from '../http/types.js';
import type { Services } from '../services/index.js';

type Ops = operations;

export function webhookHandlers({ projects, webhooks }: Services) {
  const ok = <T>(data: T, message = '') => ({ success: true as const, data, message });

  const listWebhooks: Handler<Ops['listWebhooks']> = async ({ params }, ctx) => {
    const project = await projects.requireAccess(ctx, params.projectId, 'member');
    const list = await webhooks.manage.list(project);
    return { status: 200, body: ok({ webhooks: list, loopbackTargets: webhooks.manage.loopbackTargets }) };
  };

  const createWebhook: Handler<Ops['createWebhook']> = async ({ params, body }, ctx) => {
    const project = await projects.requireAccess(ctx, params.projectId, 'admin');
    const data = await webhooks.manage.create(project, body);
    return { status: 201, body: ok(data, 'Webhook created; the secret is shown only now') };
  };

  const getWebhook: Handler<Ops['getWebhook']> = async ({ params }, ctx) => {
    const project = await projects.requireAccess(ctx, params.projectId, 'member');
    return { status: 200, body: ok({ webhook: await webhooks.manage.get(project, params.webhookId) }) };
  };

  const updateWebhook: Handler<Ops['updateWebhook']> = async ({ params, body }, ctx) => {
    const project = await projects.requireAccess(ctx, params.projectId, 'admin');
    const webhook = await webhooks.manage.update(project, params.webhookId, body);
    return { status: 200, body: ok({ webhook }, 'Webhook saved') };
  };

  const deleteWebhook: Handler<Ops['deleteWebhook']> = async ({ params }, ctx) => {
    const project = await projects.requireAccess(ctx, params.projectId, 'admin');
    await webhooks.manage.remove(project, params.webhookId);
    return { status: 200, body: ok({}, 'Webhook deleted') };
  };

  const rotateWebhookSecret: Handler<Ops['rotateWebhookSecret']> = async ({ params }, ctx) => {
    const project = await projects.requireAccess(ctx, params.projectId, 'admin');
    const data = await webhooks.manage.rotateSecret(project, params.webhookId);
    return { status: 200, body: ok(data, 'Secret replaced; the new one is shown only now') };
  };

  const pingWebhook: Handler<Ops['pingWebhook']> = async ({ params }, ctx) => {
    const project = await projects.requireAccess(ctx, params.projectId, 'admin');
    const delivery = await webhooks.manage.ping(project, params.webhookId);
    return { status: 202, body: ok({ delivery }, 'Test ping queued') };
  };

  const listWebhookDeliveries: Handler<Ops['listWebhookDeliveries']> = async ({ params, query }, ctx) => {
    const project = await projects.requireAccess(ctx, params.projectId, 'member');
    const data = await webhooks.manage.deliveries(
      project,
      params.webhookId,
      query.page ?? 1,
      query.limit ?? 20,
    );
    return { status: 200, body: ok(data) };
  };

  const redeliverWebhookDelivery: Handler<Ops['redeliverWebhookDelivery']> = async ({ params }, ctx) => {
    const project = await projects.requireAccess(ctx, params.projectId, 'admin');
    const delivery = await webhooks.manage.redeliver(project, params.webhookId, params.deliveryId);
    return { status: 202, body: ok({ delivery }, 'Delivery queued again') };
  };

  return {
    listWebhooks,
    createWebhook,
    getWebhook,
    updateWebhook,
    deleteWebhook,
    rotateWebhookSecret,
    pingWebhook,
    listWebhookDeliveries,
    redeliverWebhookDelivery,
  };
}
