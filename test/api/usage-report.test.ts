// The usage report (GET /api/projects/{projectId}/usage): its figures equal what the test did —
// API calls with the project's keys, mail sent, webhook delivery attempts, bytes stored — with
// the plan limit next to each, and a 90-day daily series. API calls are counted in the public
// process's memory and written by its flush, never one database write per request.
import { expect } from 'chai';
import { startTestApps } from '../helpers/app.js';
import {
  createCollectionFixture,
  createDeveloper,
  createOperator,
  createProjectFixture,
  type ProjectFixture,
} from '../helpers/fixtures.js';
import { ApiClient } from '../helpers/client.js';
import type { AddressInfo } from 'node:net';
import { createServices } from '../../src/services/index.js';
import { createApp } from '../../src/app.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';
import { bytes, upload } from './storage-shared.js';

describe('usage report', () => {
  let apps: Awaited<ReturnType<typeof startTestApps>>;
  let receiver: Receiver;
  let fx: ProjectFixture;
  let dash: ApiClient;
  let secret: ApiClient;
  const path = () => `/api/projects/${fx.project.id}/usage`;

  before(async () => {
    apps = await startTestApps('usage_report', { ALLOW_PRIVATE_HOSTS: 'true' });
    await createOperator(apps.dashboard.services);
    receiver = await startReceiver();
    fx = await createProjectFixture(apps.dashboard.services);
    dash = apps.dashboard.client.with({ cookie: fx.cookie });
    secret = apps.public.client.with({ 'x-api-key': fx.secretKey });
    await createCollectionFixture(apps.public.services, fx.project.id, { name: 'posts' });
  });
  after(async () => {
    await apps?.public.deps.db
      .project(fx.project.id)
      .dropDatabase()
      .catch(() => undefined);
    await apps?.close();
    await receiver?.close();
  });

  it('reports the API calls, mail, webhook deliveries and bytes the project used, next to its limits', async () => {
    const before = await dash.get(path());
    expect(before.status).to.equal(200);
    expect(before.body.data.figures.apiCalls).to.include({ used: 0, today: 0 });

    const hook = await dash.post(`/api/projects/${fx.project.id}/webhooks`, {
      url: receiver.url('/usage'),
      events: ['document.created'],
    });
    expect(hook.status).to.equal(201);

    const N = 4;
    for (let i = 0; i < N; i++) expect((await secret.get('/api/data/posts')).status).to.equal(200);
    const K = 3;
    for (let i = 0; i < K; i++)
      expect((await secret.post('/api/data/posts', { title: `post ${i}`, slug: `p-${i}` })).status).to.equal(
        201,
      );
    const M = 2;
    for (let i = 0; i < M; i++) {
      const sent = await secret.post('/api/mail/send', {
        to: 'someone@example.test',
        subject: 'Hi',
        text: 'Hello',
      });
      expect(sent.status, sent.text).to.equal(200);
    }
    const file = bytes(1234);
    const ticket = await upload({ client: secret }, file);
    expect(
      (await secret.post('/api/storage/upload-confirm', { filePath: ticket.filePath, size: file.length }))
        .status,
    ).to.equal(200);
    // Not counted: no project key resolved.
    expect(
      (await apps.public.client.with({ 'x-api-key': 'pk_live_nope' }).get('/api/data/posts')).status,
    ).to.equal(401);
    const calls = N + K + M + 2;

    // The worker's delivery loop, run here on the public process's services.
    while (await apps.public.services.webhooks.deliverer.deliverNext());
    expect(receiver.on('/usage')).to.have.length(K);
    await apps.public.services.usage.counter.flush();

    const res = await dash.get(path());
    expect(res.status).to.equal(200);
    const { figures, daily, month } = res.body.data;
    const stored = await apps.public.services.repos.projects.usage(fx.project.id);
    expect(stored.databaseUsed).to.equal(await apps.public.services.documents.databaseSize(fx.project.id));
    expect(stored.storageUsed).to.equal(file.length);
    expect(figures).to.deep.equal({
      apiCalls: { used: calls, today: calls, limit: 300, limitName: 'requestsPerMinute' },
      databaseBytes: { used: stored.databaseUsed, limit: 50 * 1024 * 1024, limitName: 'databaseBytes' },
      storageBytes: { used: file.length, limit: 20 * 1024 * 1024, limitName: 'storageBytes' },
      backupBytes: { used: 0, limit: 250 * 1024 * 1024, limitName: 'backupBytes' },
      mailSent: { used: M, limit: 100, limitName: 'mailPerMonth' },
      webhooks: { used: 1, limit: 2, limitName: 'webhooksPerProject' },
      webhookDeliveries: { used: K, limit: null, limitName: null },
      aiQueryBuilder: { used: 0, limit: 5, limitName: 'aiQueryBuilderPerMonth' },
      aiCollectionCreator: { used: 0, limit: 1, limitName: 'aiCollectionCreatorPerMonth' },
      functionInvocations: { used: 0, limit: 50_000, limitName: 'functionInvocationsPerMonth' },
      functionMs: { used: 0, limit: null, limitName: null },
    });
    expect(month).to.equal(new Date().toISOString().slice(0, 7));
    expect(daily).to.have.length(90);
    const today = daily[89];
    expect(today).to.deep.equal({
      day: new Date().toISOString().slice(0, 10),
      apiCalls: calls,
      mailSent: M,
      webhookDeliveries: K,
      aiQueryBuilder: 0,
      aiCollectionCreator: 0,
      functionInvocations: 0,
      functionMs: 0,
      databaseBytes: stored.databaseUsed,
      storageBytes: file.length,
    });
    expect(daily[0]).to.include({ apiCalls: 0, databaseBytes: null });
  });

  it('adds up the API calls counted by several processes, flushing at the same time', async () => {
    // A second public process over the same databases: its own services, so its own counter.
    const services = createServices(apps.public.deps);
    const server = createApp('public', apps.public.deps, services).listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => server.once('listening', resolve));
    try {
      const other = new ApiClient(
        `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        'public',
      ).with({
        'x-api-key': fx.secretKey,
      });
      const usedBefore = (await dash.get(path())).body.data.figures.apiCalls.used;
      await Promise.all([
        ...Array.from({ length: 3 }, () => secret.get('/api/data/posts')),
        ...Array.from({ length: 4 }, () => other.get('/api/data/posts')),
      ]);
      await Promise.all([apps.public.services.usage.counter.flush(), services.usage.counter.flush()]);
      expect((await dash.get(path())).body.data.figures.apiCalls.used).to.equal(usedBefore + 7);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('shows operator overrides as the limits in force', async () => {
    await apps.dashboard.services.repos.projects.setLimits(fx.project.id, { mailPerMonth: 7 });
    const res = await dash.get(path());
    expect(res.body.data.figures.mailSent).to.include({ limit: 7 });
  });

  it('is readable by every member, and by nobody else', async () => {
    const member = await createDeveloper(apps.dashboard.services);
    await apps.dashboard.services.repos.projects.addMember(fx.project.id, member.developer.id, 'member');
    expect((await apps.dashboard.client.with({ cookie: member.cookie }).get(path())).status).to.equal(200);
    const stranger = await createDeveloper(apps.dashboard.services);
    const denied = await apps.dashboard.client.with({ cookie: stranger.cookie }).get(path());
    expect(denied.status).to.equal(404);
    expect(denied.body.message).to.equal('Project not found or access denied');
    expect((await apps.dashboard.client.get(path())).status).to.equal(401);
    expect((await dash.get('/api/projects/not-an-id/usage')).status).to.equal(400);
  });
});
