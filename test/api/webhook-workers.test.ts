// Webhook workers under failure: a worker (a child process) killed while the receiver holds its
// request loses nothing, since its lease expires and a second worker finishes the delivery, which
// the receiver sees completed exactly once; two workers draining one outbox never deliver an event
// twice; and a target that resolves to loopback is refused at delivery time without the operator
// setting, even though it was saved while the setting was on.
import { spawn, type ChildProcess } from 'node:child_process';
import { expect } from 'chai';
import { startTestApps } from '../helpers/app.js';
import { createCollectionFixture, createProjectFixture, type ProjectFixture } from '../helpers/fixtures.js';
import type { ApiClient } from '../helpers/client.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';
import { startTestWorker } from '../helpers/worker.js';
import { repoPath } from '../../src/lib/paths.js';

type Apps = Awaited<ReturnType<typeof startTestApps>>;

async function projectWithPosts(apps: Apps) {
  const fx = await createProjectFixture(apps.dashboard.services);
  await apps.dashboard.services.repos.developers.setPlan(fx.developer.id, 'pro');
  await createCollectionFixture(apps.public.services, fx.project.id, { name: 'posts' });
  return {
    fx,
    dash: apps.dashboard.client.with({ cookie: fx.cookie }),
    data: apps.public.client.with({ 'x-api-key': fx.secretKey }),
  };
}

async function subscribe(
  dash: ApiClient,
  fx: ProjectFixture,
  receiver: Receiver,
  path: string,
  url?: string,
) {
  const res = await dash.post(`/api/projects/${fx.project.id}/webhooks`, {
    url: url ?? receiver.url(path),
    events: ['document.created'],
  });
  expect(res.status).to.equal(201);
  receiver.secret(path, res.body.data.secret);
  return res.body.data.webhook.id as string;
}

async function settle(
  dash: ApiClient,
  fx: ProjectFixture,
  webhookId: string,
  count: number,
  timeoutMs = 15_000,
) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const res = await dash.get(`/api/projects/${fx.project.id}/webhooks/${webhookId}/deliveries`, {
      query: { limit: 100 },
    });
    const list = res.body.data.deliveries as any[];
    if (list.length >= count && list.every((d) => d.status !== 'pending')) return list;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error('deliveries did not settle');
}

function startChildWorker(platformDb: string): Promise<ChildProcess> {
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', repoPath('test/helpers/webhook-worker-child.ts')],
    {
      env: {
        ...process.env,
        PLATFORM_DB: platformDb,
        ALLOW_PRIVATE_HOSTS: 'true',
        WEBHOOK_LEASE_MS: '2500',
        WEBHOOK_TIMEOUT_MS: '2000',
        WEBHOOK_POLL_INTERVAL_MS: '50',
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('ready')) resolve(child);
    });
    child.once('exit', (code) => reject(new Error(`worker child exited with ${code}`)));
  });
}

describe('webhooks: workers that die, race or meet restricted targets', () => {
  describe('leases', () => {
    let apps: Apps;
    let receiver: Receiver;
    let child: ChildProcess | undefined;
    const workers: Awaited<ReturnType<typeof startTestWorker>>[] = [];

    before(async () => {
      apps = await startTestApps('wh_workers', { ALLOW_PRIVATE_HOSTS: 'true' });
      receiver = await startReceiver();
    });
    after(async () => {
      child?.kill('SIGKILL');
      for (const worker of workers) await worker.stop();
      await apps?.close();
      await receiver?.close();
    });

    it('a worker killed mid-delivery loses nothing: another finishes it, completed exactly once', async () => {
      const { fx, dash, data } = await projectWithPosts(apps);
      receiver.script('/crash', ['hold']);
      const hook = await subscribe(dash, fx, receiver, '/crash');
      child = await startChildWorker(apps.public.deps.config.platformDb);
      await data.post('/api/data/posts', { title: 'survives a crash' });
      await receiver.waitFor(() => receiver.on('/crash').length >= 1, 20_000);
      child.kill('SIGKILL');
      await new Promise((resolve) => child!.once('exit', resolve));
      child = undefined;

      const [stuck] = (await dash.get(`/api/projects/${fx.project.id}/webhooks/${hook}/deliveries`)).body.data
        .deliveries;
      expect(stuck.status, 'still queued after the crash').to.equal('pending');
      expect(stuck.attempts).to.have.length(0);

      workers.push(
        await startTestWorker(apps.public.deps.config.platformDb, { ALLOW_PRIVATE_HOSTS: 'true' }),
      );
      const [done] = await settle(dash, fx, hook, 1);
      expect(done.status).to.equal('succeeded');
      expect(done.attempts.map((a: any) => a.status)).to.deep.equal([200]);
      const got = receiver.on('/crash');
      expect(got).to.have.length(2);
      expect(got.every((r) => r.verified === true)).to.equal(true);
      expect(got[1]!.id).to.equal(got[0]!.id);
      const completed = got.filter((r) => r.completed);
      expect(completed, 'completed deliveries of the event').to.have.length(1);
      expect(completed[0]!.id).to.equal(done.messageId);
    });

    it('two workers draining one outbox deliver every event once', async () => {
      const { fx, dash, data } = await projectWithPosts(apps);
      workers.push(
        await startTestWorker(apps.public.deps.config.platformDb, { ALLOW_PRIVATE_HOSTS: 'true' }),
      );
      const hook = await subscribe(dash, fx, receiver, '/race');
      await Promise.all(
        Array.from({ length: 12 }, (_, i) => data.post('/api/data/posts', { title: `race ${i}` })),
      );
      const list = await settle(dash, fx, hook, 12);
      expect(list.every((d) => d.status === 'succeeded' && d.attempts.length === 1)).to.equal(true);
      await new Promise((r) => setTimeout(r, 300));
      const got = receiver.on('/race');
      expect(got).to.have.length(12);
      expect(new Set(got.map((r) => r.id)).size).to.equal(12);
    });
  });

  describe('restricted targets at delivery time', () => {
    let apps: Apps;
    let receiver: Receiver;
    let worker: Awaited<ReturnType<typeof startTestWorker>>;

    before(async () => {
      // Saved while the operator allowed private hosts; delivered by a worker that does not.
      apps = await startTestApps('wh_restricted', { ALLOW_PRIVATE_HOSTS: 'true' });
      worker = await startTestWorker(apps.public.deps.config.platformDb, {
        ALLOW_PRIVATE_HOSTS: 'false',
        WEBHOOK_ALLOW_HTTP: 'true',
      });
      receiver = await startReceiver();
    });
    after(async () => {
      await worker?.stop();
      await apps?.close();
      await receiver?.close();
    });

    it('refuses a URL resolving to loopback (and a loopback literal), without retrying', async () => {
      const { fx, dash, data } = await projectWithPosts(apps);
      const byName = await subscribe(dash, fx, receiver, '/name', `http://localhost:${receiver.port}/name`);
      const byAddress = await subscribe(dash, fx, receiver, '/ip', receiver.url('/ip'));
      await data.post('/api/data/posts', { title: 'never leaves' });
      for (const hook of [byName, byAddress]) {
        const [delivery] = await settle(dash, fx, hook, 1);
        expect(delivery.status).to.equal('failed');
        expect(delivery.attempts).to.have.length(1);
        expect(delivery.attempts[0]).to.include({ status: null, response: null });
        expect(delivery.attempts[0].error).to.match(/restricted/);
      }
      await new Promise((r) => setTimeout(r, 300));
      expect(receiver.received).to.have.length(0);
    });
  });
});
