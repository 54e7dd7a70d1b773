// Webhook delivery end to end on the real stack: the data API writes the outbox with the change,
// the worker loop delivers, and a receiver started here verifies every signature with the
// `standardwebhooks` package. Retries (500, 500, 200), no retry on 400, the delivery log, payloads
// (no password of a user), the test ping and redelivery.
import { expect } from 'chai';
import { ObjectId } from 'mongodb';
import { startTestApps } from '../helpers/app.js';
import { createCollectionFixture, createProjectFixture, type ProjectFixture } from '../helpers/fixtures.js';
import type { ApiClient } from '../helpers/client.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';
import { startTestWorker, FAST_WEBHOOKS } from '../helpers/worker.js';

describe('webhooks: delivery', () => {
  let apps: Awaited<ReturnType<typeof startTestApps>>;
  let worker: Awaited<ReturnType<typeof startTestWorker>>;
  let receiver: Receiver;
  let fx: ProjectFixture;
  let dash: ApiClient;
  let data: ApiClient;
  const hooks = () => `/api/projects/${fx.project.id}/webhooks`;

  async function subscribe(path: string, body: Record<string, unknown> = {}) {
    const res = await dash.post(hooks(), { url: receiver.url(path), events: ['document.created'], ...body });
    expect(res.status).to.equal(201);
    receiver.secret(path, res.body.data.secret);
    return { id: res.body.data.webhook.id as string, secret: res.body.data.secret as string };
  }
  const deliveries = async (webhookId: string) =>
    (await dash.get(`${hooks()}/${webhookId}/deliveries`)).body.data.deliveries as any[];
  async function waitDeliveries(webhookId: string, count: number) {
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline) {
      const list = await deliveries(webhookId);
      if (list.length >= count && list.every((d) => d.status !== 'pending')) return list;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error('deliveries did not settle');
  }

  before(async () => {
    apps = await startTestApps('wh_delivery', { ALLOW_PRIVATE_HOSTS: 'true' });
    worker = await startTestWorker(apps.public.deps.config.platformDb, { ALLOW_PRIVATE_HOSTS: 'true' });
    receiver = await startReceiver();
    fx = await createProjectFixture(apps.dashboard.services);
    await apps.dashboard.services.repos.developers.setPlan(fx.developer.id, 'pro');
    dash = apps.dashboard.client.with({ cookie: fx.cookie });
    data = apps.public.client.with({ 'x-api-key': fx.secretKey });
    for (const name of ['posts', 'notes'])
      await createCollectionFixture(apps.public.services, fx.project.id, { name });
  });
  after(async () => {
    await worker?.stop();
    await apps?.close();
    await receiver?.close();
  });

  it('delivers signed document events of the subscribed collection, in order, with the document', async () => {
    const hook = await subscribe('/docs', {
      events: ['document.created', 'document.updated', 'document.deleted', 'document.restored'],
      collections: ['posts'],
    });
    const created = await data.post('/api/data/posts', { title: 'Hello' });
    const id = created.body.data._id;
    await data.post('/api/data/notes', { title: 'not subscribed' });
    await data.put(`/api/data/posts/${id}`, { title: 'Hello again' });
    await data.delete(`/api/data/posts/${id}`);
    await data.post(`/api/data/posts/${id}/restore`);
    const got = await receiver.waitFor(() => receiver.on('/docs').length >= 4 && receiver.on('/docs'));
    expect(got.map((r) => r.verified)).to.deep.equal([true, true, true, true]);
    expect(got.map((r) => r.payload.event).sort()).to.deep.equal([
      'document.created',
      'document.deleted',
      'document.restored',
      'document.updated',
    ]);
    const first = got.find((r) => r.payload.event === 'document.created')!;
    expect(first.payload).to.deep.include({ project: fx.project.id, collection: 'posts', documentId: id });
    expect(first.payload.document).to.include({ _id: id, title: 'Hello' });
    expect(first.payload.timestamp).to.match(/^\d{4}-\d\d-\d\dT/);
    expect(got.find((r) => r.payload.event === 'document.deleted')!.payload.document).to.equal(null);
    const log = await waitDeliveries(hook.id, 4);
    expect(log.map((d) => d.status)).to.deep.equal(['succeeded', 'succeeded', 'succeeded', 'succeeded']);
    expect(got.map((r) => r.id).sort()).to.deep.equal(log.map((d) => d.messageId).sort());
    await new Promise((r) => setTimeout(r, 200));
    expect(receiver.on('/docs')).to.have.length(4);
  });

  it('delivers one event per document of a bulk trash and restore, and leaves no intent behind', async () => {
    const hook = await subscribe('/bulk', {
      events: ['document.deleted', 'document.restored'],
      collections: ['posts'],
    });
    const ids: string[] = [];
    for (const title of ['b1', 'b2', 'b3'])
      ids.push((await data.post('/api/data/posts', { title })).body.data._id);
    const missing = '0123456789abcdef01234567';
    const trashed = await data.post('/api/data/posts/bulk/delete', { ids: [...ids, missing] });
    expect(trashed.body.data.counts).to.include({ trashed: 3, notFound: 1 });
    await data.post('/api/data/posts/bulk/restore', { ids: ids.slice(0, 2) });
    const got = await receiver.waitFor(() => receiver.on('/bulk').length >= 5 && receiver.on('/bulk'));
    expect(got.every((r) => r.verified)).to.equal(true);
    expect(got.map((r) => [r.payload.event, r.payload.documentId]).sort()).to.deep.equal(
      [
        ...ids.map((id) => ['document.deleted', id]),
        ...ids.slice(0, 2).map((id) => ['document.restored', id]),
      ].sort(),
    );
    await waitDeliveries(hook.id, 5);
    const left = await apps.public.deps.db.platform
      .collection('webhook_deliveries')
      .countDocuments({ webhookId: new ObjectId(hook.id), status: 'intent' });
    expect(left).to.equal(0);
    await new Promise((r) => setTimeout(r, 200));
    expect(receiver.on('/bulk')).to.have.length(5);
  });

  it('two bulk trashes of the same documents at once: one event per document, no intent left over', async () => {
    const hook = await subscribe('/race', { events: ['document.deleted'], collections: ['notes'] });
    const created = await data.post('/api/data/notes/bulk', {
      documents: Array.from({ length: 40 }, (_, i) => ({ title: `race ${i}` })),
    });
    const ids = (created.body.data as { _id: string }[]).map((d) => d._id);
    // Both requests read the documents as active before either writes them all: the loser of each
    // document's write announced an event that did not happen.
    const answers = await Promise.all([
      data.post('/api/data/notes/bulk/delete', { ids }),
      data.post('/api/data/notes/bulk/delete', { ids: [...ids].reverse() }),
    ]);
    const trashed = answers.map((a) => a.body.data.counts.trashed as number);
    expect(trashed[0]! + trashed[1]!).to.equal(40);
    const left = await apps.public.deps.db.platform
      .collection('webhook_deliveries')
      .countDocuments({ webhookId: new ObjectId(hook.id), status: 'intent' });
    expect(left).to.equal(0);
    const got = await receiver.waitFor(() => receiver.on('/race').length >= 40 && receiver.on('/race'));
    expect(new Set(got.map((r) => r.payload.documentId)).size).to.equal(40);
    await new Promise((r) => setTimeout(r, 300));
    expect(receiver.on('/race')).to.have.length(40);
  });

  it('retries 500, 500 then 200: three signed attempts, all logged', async () => {
    receiver.script('/flaky', [500, 500, 200]);
    const hook = await subscribe('/flaky');
    await data.post('/api/data/posts', { title: 'retry me' });
    const [delivery] = await waitDeliveries(hook.id, 1);
    expect(delivery.status).to.equal('succeeded');
    expect(delivery.attempts.map((a: any) => a.status)).to.deep.equal([500, 500, 200]);
    expect(delivery.attempts.map((a: any) => a.error)).to.deep.equal(['HTTP 500', 'HTTP 500', null]);
    expect(delivery.attempts.map((a: any) => a.number)).to.deep.equal([1, 2, 3]);
    for (const attempt of delivery.attempts) {
      expect(attempt.durationMs).to.be.a('number');
      expect(attempt.response).to.match(/^answer \d{3} x+$/);
      expect(Buffer.byteLength(attempt.response)).to.equal(1024);
    }
    const got = receiver.on('/flaky');
    expect(got).to.have.length(3);
    expect(got.every((r) => r.verified === true)).to.equal(true);
    expect(new Set(got.map((r) => r.id)).size, 'one webhook-id across retries').to.equal(1);
  });

  it('does not retry a 400, and fails after the last retry of a 503', async () => {
    receiver.script('/bad', [400]);
    const bad = await subscribe('/bad');
    receiver.script('/down', [503, 503, 503, 503, 503]);
    const down = await subscribe('/down');
    await data.post('/api/data/posts', { title: 'no luck' });
    const [refused] = await waitDeliveries(bad.id, 1);
    expect(refused.status).to.equal('failed');
    expect(refused.attempts.map((a: any) => a.status)).to.deep.equal([400]);
    const [exhausted] = await waitDeliveries(down.id, 1);
    expect(exhausted.status).to.equal('failed');
    expect(exhausted.attempts).to.have.length(1 + FAST_WEBHOOKS.WEBHOOK_RETRY_SCHEDULE.split(',').length);
    await new Promise((r) => setTimeout(r, 300));
    expect(receiver.on('/bad')).to.have.length(1);
  });

  it('retries after a timeout, and never follows a redirect', async () => {
    receiver.script('/sleepy', ['hold']);
    const sleepy = await subscribe('/sleepy');
    receiver.script('/moved', [302]);
    const moved = await subscribe('/moved');
    await data.post('/api/data/posts', { title: 'slow and moved' });
    const [timedOut] = await waitDeliveries(sleepy.id, 1);
    expect(timedOut.status).to.equal('succeeded');
    expect(timedOut.attempts.map((a: any) => [a.status, a.error])).to.deep.equal([
      [null, `timed out after ${FAST_WEBHOOKS.WEBHOOK_TIMEOUT_MS} ms`],
      [200, null],
    ]);
    const [redirected] = await waitDeliveries(moved.id, 1);
    expect(redirected.status).to.equal('failed');
    expect(redirected.attempts.map((a: any) => a.status)).to.deep.equal([302]);
    expect(receiver.on('/moved/redirected')).to.have.length(0);
  });

  it('sends user.created without the password or anything the end-user API hides', async () => {
    await createCollectionFixture(apps.public.services, fx.project.id, {
      name: 'users',
      mode: 'schema',
      fields: [
        { name: 'email', type: 'String', required: true, unique: true },
        { name: 'password', type: 'String', required: true },
        { name: 'name', type: 'String' },
      ],
    });
    await subscribe('/users', { events: ['user.created'], collections: ['users'] });
    const res = await apps.public.client
      .with({ 'x-api-key': fx.publishableKey })
      .post('/api/userAuth/signup', {
        email: 'ada@example.test',
        password: 'correct horse battery',
        name: 'Ada',
      });
    expect(res.status).to.equal(201);
    const [got] = await receiver.waitFor(() => receiver.on('/users').length >= 1 && receiver.on('/users'));
    expect(got!.verified).to.equal(true);
    expect(got!.payload).to.deep.include({
      event: 'user.created',
      collection: 'users',
      documentId: res.body.data.user._id,
    });
    expect(got!.payload.document).to.include({ email: 'ada@example.test', name: 'Ada' });
    expect(got!.payload.document).not.to.have.any.keys('password', 'passwordHash', 'isDeleted', 'deletedAt');
    expect(got!.body).not.to.match(/argon2|correct horse/);
  });

  it('queues a signed test ping, and redelivers a finished delivery with the same webhook-id', async () => {
    const hook = await subscribe('/ping', { events: ['document.deleted'] });
    const ping = await dash.post(`${hooks()}/${hook.id}/test`);
    expect(ping.status).to.equal(202);
    expect(ping.body.data.delivery).to.include({ event: 'webhook.ping', status: 'pending' });
    const [first] = await receiver.waitFor(() => receiver.on('/ping').length >= 1 && receiver.on('/ping'));
    expect(first!.verified).to.equal(true);
    expect(first!.payload).to.include({ event: 'webhook.ping', project: fx.project.id, webhookId: hook.id });
    const [done] = await waitDeliveries(hook.id, 1);
    expect(done.status).to.equal('succeeded');

    const again = await dash.post(`${hooks()}/${hook.id}/deliveries/${done.id}/redeliver`);
    expect(again.status).to.equal(202);
    expect(again.body.data.delivery.status).to.equal('pending');
    await receiver.waitFor(() => receiver.on('/ping').length >= 2);
    const [redone] = await waitDeliveries(hook.id, 1);
    expect(redone.attempts.map((a: any) => a.status)).to.deep.equal([200, 200]);
    const both = receiver.on('/ping');
    expect(both[1]!.id).to.equal(both[0]!.id);
    expect(both[1]!.verified).to.equal(true);
    const missing = await dash.post(`${hooks()}/${hook.id}/deliveries/65f1c2a4b7e8d9001234567b/redeliver`);
    expect(missing.status).to.equal(404);
  });

  it('answers 409 to a redelivery while the delivery is in flight; rotated secrets sign new attempts', async () => {
    receiver.script('/slow', ['hold']);
    const hook = await subscribe('/slow');
    await data.post('/api/data/posts', { title: 'slow' });
    await receiver.waitFor(() => receiver.on('/slow').length >= 1);
    const [pending] = await deliveries(hook.id);
    const busy = await dash.post(`${hooks()}/${hook.id}/deliveries/${pending.id}/redeliver`);
    expect(busy.status).to.equal(409);
    expect(busy.body.code).to.equal('DELIVERY_PENDING');
    receiver.release('/slow', 200);
    const [released] = await waitDeliveries(hook.id, 1);
    expect(released.attempts.map((a: any) => a.status)).to.deep.equal([200]);

    const rotated = await dash.post(`${hooks()}/${hook.id}/rotate-secret`);
    const oldSecret = hook.secret;
    receiver.secret('/slow', rotated.body.data.secret);
    await dash.post(`${hooks()}/${hook.id}/test`);
    const latest = await receiver.waitFor(() => receiver.on('/slow').length >= 2 && receiver.on('/slow')[1]);
    expect(latest.verified, 'verifies with the new secret').to.equal(true);
    expect(rotated.body.data.secret).not.to.equal(oldSecret);
  });

  it('pages the delivery log', async () => {
    const hook = await subscribe('/paged');
    for (let i = 0; i < 3; i++) await data.post('/api/data/posts', { title: `p${i}` });
    await waitDeliveries(hook.id, 3);
    const page1 = await dash.get(`${hooks()}/${hook.id}/deliveries`, { query: { page: 1, limit: 2 } });
    expect(page1.status).to.equal(200);
    expect(page1.body.data.deliveries).to.have.length(2);
    expect(page1.body.data.pagination).to.deep.equal({ page: 1, limit: 2, hasMore: true });
    const page2 = await dash.get(`${hooks()}/${hook.id}/deliveries`, { query: { page: 2, limit: 2 } });
    expect(page2.body.data.deliveries).to.have.length(1);
    expect(page2.body.data.pagination.hasMore).to.equal(false);
  });
});
