// The worker's lanes against receivers that hold them, over HTTP on the real stack: two projects
// whose endpoints answer 200 but slowly do not take the worker from a third project (its delivery
// latency stays within twice its baseline, the slow ones share half of the lanes); one target host
// gets at most WEBHOOK_LANES_PER_HOST requests at once over every project while another host is
// served; test pings and redeliveries are refused past the outbox bound and past their rate.
import { expect } from 'chai';
import { startTestApps } from '../helpers/app.js';
import { createCollectionFixture, createProjectFixture } from '../helpers/fixtures.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';
import { startTestWorker } from '../helpers/worker.js';

type Apps = Awaited<ReturnType<typeof startTestApps>>;
type Worker = Awaited<ReturnType<typeof startTestWorker>>;

const SLOW_ANSWER_MS = 1500;
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

async function projectWithPosts(apps: Apps) {
  const fx = await createProjectFixture(apps.dashboard.services);
  await apps.dashboard.services.repos.developers.setPlan(fx.developer.id, 'pro');
  await createCollectionFixture(apps.public.services, fx.project.id, { name: 'posts' });
  const dash = apps.dashboard.client.with({ cookie: fx.cookie });
  const hooks = `/api/projects/${fx.project.id}/webhooks`;
  const data = apps.public.client.with({ 'x-api-key': fx.secretKey });
  return {
    fx,
    dash,
    hooks,
    data,
    async subscribe(url: string) {
      const res = await dash.post(hooks, { url, events: ['document.created'] });
      expect(res.status, res.text).to.equal(201);
      return res.body.data.webhook.id as string;
    },
    async backlog(count: number) {
      const bulk = await data.post('/api/data/posts/bulk', {
        documents: Array.from({ length: count }, (_, i) => ({ title: `backlog ${i}` })),
      });
      expect(bulk.status, bulk.text).to.equal(201);
    },
  };
}

/** Milliseconds from a write to its delivery, for 11 writes one after the other. */
async function latencies(p: Awaited<ReturnType<typeof projectWithPosts>>, r: Receiver, path: string) {
  const out: number[] = [];
  for (let i = 0; i < 11; i++) {
    const seen = r.on(path).length;
    const started = Date.now();
    const res = await p.data.post('/api/data/posts', { title: `timed ${i}` });
    expect(res.status).to.equal(201);
    await r.waitFor(() => r.on(path).length > seen, 10_000);
    out.push(Date.now() - started);
    await pause(30);
  }
  return out;
}

/** Requests received on `paths` and not answered yet. */
const inFlight = (r: Receiver, paths: string[]) =>
  r.received.filter((x) => paths.includes(x.path) && !x.completed).length;

describe('webhooks: lanes, slow receivers, hosts, manual deliveries', () => {
  let apps: Apps;
  let receiver: Receiver;
  let worker: Worker | undefined;

  before(async () => {
    apps = await startTestApps('wh_lanes', { ALLOW_PRIVATE_HOSTS: 'true' });
    receiver = await startReceiver();
  });
  afterEach(async () => {
    await worker?.stop();
    worker = undefined;
  });
  after(async () => {
    await receiver?.close();
    await apps?.close();
  });

  it("two slow projects: a third project's delivery latency stays within twice its baseline", async () => {
    worker = await startTestWorker(apps.public.deps.config.platformDb, {
      ALLOW_PRIVATE_HOSTS: 'true',
      WEBHOOK_POLL_INTERVAL_MS: '20',
      WEBHOOK_TIMEOUT_MS: '5000',
      WEBHOOK_LEASE_MS: '10000',
      WEBHOOK_SLOW_DELIVERY_MS: '400',
      // One receiver (one host) serves every project here: the host cap is another test's.
      WEBHOOK_LANES_PER_HOST: '100',
    });
    const [a, b, c] = [
      await projectWithPosts(apps),
      await projectWithPosts(apps),
      await projectWithPosts(apps),
    ];
    const slowPaths = ['/slow-a', '/slow-b'];
    receiver.delay('/slow-a', SLOW_ANSWER_MS);
    receiver.delay('/slow-b', SLOW_ANSWER_MS);
    await a.subscribe(receiver.url('/slow-a'));
    await b.subscribe(receiver.url('/slow-b'));
    await c.subscribe(receiver.url('/c'));

    const baseline = median(await latencies(c, receiver, '/c'));

    await a.backlog(20);
    await b.backlog(20);
    // Both start with their per-project share (all 4 lanes) until a delivery has shown them slow.
    await receiver.waitFor(() => slowPaths.every((path) => receiver.on(path).length >= 2), 10_000);
    await pause(SLOW_ANSWER_MS + 200);

    let mostInFlight = 0;
    const watch = setInterval(
      () => (mostInFlight = Math.max(mostInFlight, inFlight(receiver, slowPaths))),
      10,
    );
    let during: number[];
    try {
      during = await latencies(c, receiver, '/c');
    } finally {
      clearInterval(watch);
    }
    const slowed = median(during);
    console.log(
      `      third project's median delivery latency: ${baseline} ms alone, ${slowed} ms beside two slow projects (${JSON.stringify(during)}); slow requests in flight at most ${mostInFlight}`,
    );
    expect(slowed, `median ${slowed} ms against a baseline of ${baseline} ms`).to.be.at.most(2 * baseline);
    expect(mostInFlight, 'lanes held by the slow projects').to.equal(2);
    expect(inFlight(receiver, slowPaths), 'the slow projects are still being served').to.be.greaterThan(0);
  });

  it('one host gets at most WEBHOOK_LANES_PER_HOST requests at once over every project; another host is served', async function () {
    let other: Receiver;
    try {
      other = await startReceiver('127.0.0.2');
    } catch {
      this.skip(); // no second loopback address on this machine
    }
    try {
      worker = await startTestWorker(apps.public.deps.config.platformDb, {
        ALLOW_PRIVATE_HOSTS: 'true',
        WEBHOOK_POLL_INTERVAL_MS: '50',
        WEBHOOK_TIMEOUT_MS: '3000',
        WEBHOOK_LEASE_MS: '10000',
        WEBHOOK_LANES_PER_WORKER: '6',
        WEBHOOK_LANES_PER_PROJECT: '3',
        WEBHOOK_LANES_PER_HOST: '2',
        WEBHOOK_SLOW_DELIVERY_MS: '60000',
      });
      const held = ['/hold-a', '/hold-b'];
      const [a, b, c] = [
        await projectWithPosts(apps),
        await projectWithPosts(apps),
        await projectWithPosts(apps),
      ];
      receiver.script(
        '/hold-a',
        Array.from({ length: 10 }, () => 'hold' as const),
      );
      receiver.script(
        '/hold-b',
        Array.from({ length: 10 }, () => 'hold' as const),
      );
      await a.subscribe(receiver.url('/hold-a'));
      await b.subscribe(receiver.url('/hold-b'));
      await c.subscribe(other!.url('/elsewhere'));
      await a.backlog(3);
      await b.backlog(3);
      await receiver.waitFor(() => inFlight(receiver, held) >= 2);
      // Time for the 4 idle lanes to claim, had the host's cap not held them back.
      await pause(500);
      expect(inFlight(receiver, held), 'requests held by one host over two projects').to.equal(2);

      const started = Date.now();
      expect((await c.data.post('/api/data/posts', { title: 'other host' })).status).to.equal(201);
      await other!.waitFor(() => other!.on('/elsewhere').length >= 1, 5000);
      expect(Date.now() - started, 'delivery to another host (ms)').to.be.below(1500);
      expect(inFlight(receiver, held)).to.equal(2);
    } finally {
      await other!.close();
    }
  });

  it('test pings and redeliveries are admitted like events and rate-limited', async () => {
    // Apps of their own: a bound of 3 would drop the other tests' events.
    const small = await startTestApps('wh_lanes_manual', {
      ALLOW_PRIVATE_HOSTS: 'true',
      WEBHOOK_MAX_PENDING_PER_PROJECT: '3',
      WEBHOOK_MANUAL_PER_MINUTE: '5',
    });
    try {
      await manualDeliveries(small);
    } finally {
      await worker?.stop();
      worker = undefined;
      await small.close();
    }
  });

  async function manualDeliveries(apps: Apps) {
    const p = await projectWithPosts(apps);
    const hook = await p.subscribe(receiver.url('/manual'));
    const ping = () => p.dash.post(`${p.hooks}/${hook}/test`);
    // One delivered ping to redeliver later.
    worker = await startTestWorker(apps.public.deps.config.platformDb, { ALLOW_PRIVATE_HOSTS: 'true' });
    const first = await ping();
    expect(first.status, first.text).to.equal(202);
    await receiver.waitFor(() => receiver.on('/manual').length >= 1);
    await worker.stop();
    worker = undefined;

    // No worker now: pings wait in the outbox until its bound (3).
    for (let i = 0; i < 3; i++) expect((await ping()).status).to.equal(202);
    let finished: any;
    for (let i = 0; i < 50 && !finished; i++) {
      const list = (await p.dash.get(`${p.hooks}/${hook}/deliveries`)).body.data.deliveries as any[];
      finished = list.find((d) => d.status === 'succeeded');
      if (!finished) await pause(50);
    }
    expect(finished, 'the delivered ping').to.not.equal(undefined);
    const full = await p.dash.post(`${p.hooks}/${hook}/deliveries/${finished.id}/redeliver`);
    expect(full.status, full.text).to.equal(429);
    expect(full.body.code).to.equal('WEBHOOK_OUTBOX_FULL');
    expect(full.body.message).to.equal(
      'The project already has 3 deliveries waiting; try again once they have gone out',
    );
    expect(full.headers.get('retry-after')).to.equal('60');
    const list = (await p.dash.get(`${p.hooks}/${hook}/deliveries`)).body.data.deliveries as any[];
    expect(
      list.filter((d) => d.status === 'pending'),
      'nothing queued past the bound',
    ).to.have.length(3);
    expect(list.find((d) => d.id === finished.id).status).to.equal('succeeded');

    // Five manual requests in this minute: the sixth is over the rate, whatever the outbox.
    const limited = await ping();
    expect(limited.status, limited.text).to.equal(429);
    expect(limited.body.code).to.equal('RATE_LIMITED');
    expect(limited.body.message).to.equal(
      'Too many test pings and redeliveries: at most 5 per project and minute',
    );
    expect(limited.headers.get('retry-after')).to.equal('60');
    // Another project has its own count and outbox.
    const q = await projectWithPosts(apps);
    const qHook = await q.subscribe(receiver.url('/manual-q'));
    expect((await q.dash.post(`${q.hooks}/${qHook}/test`)).status).to.equal(202);
  }
});
