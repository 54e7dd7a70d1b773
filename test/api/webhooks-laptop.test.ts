// Webhook and HTTP hook targets on a developer's laptop: the development profile (NODE_ENV
// development, what `npm start` runs) accepts localhost and loopback targets, plain http included,
// and a test ping reaches a receiver on 127.0.0.1; it still refuses metadata, link-local and
// private addresses. Production refuses loopback as before. Every refusal names the field and
// says what to do.
import { expect } from 'chai';
import { loadConfig } from '../../src/config.js';
import { startTestApp, startTestApps } from '../helpers/app.js';
import { testEnv } from '../helpers/env.js';
import { createCollectionFixture, createProjectFixture, type ProjectFixture } from '../helpers/fixtures.js';
import type { ApiClient } from '../helpers/client.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';
import { startHookReceiver } from '../helpers/hook-receiver.js';
import { startTestWorker } from '../helpers/worker.js';

type Apps = Awaited<ReturnType<typeof startTestApps>>;

async function project(apps: Apps): Promise<{ fx: ProjectFixture; dash: ApiClient }> {
  const fx = await createProjectFixture(apps.dashboard.services);
  await apps.dashboard.services.repos.developers.setPlan(fx.developer.id, 'pro');
  await createCollectionFixture(apps.dashboard.services, fx.project.id, { name: 'posts' });
  return { fx, dash: apps.dashboard.client.with({ cookie: fx.cookie }) };
}

const hook = (url: string) => ({
  name: 'checkPost',
  trigger: { type: 'beforeCreate', collection: 'posts' },
  runtime: { type: 'http', url },
});

/** Refused in every profile: metadata, link-local, private, and plain http to a public host. */
const ALWAYS_REFUSED: [string, RegExp][] = [
  ['https://169.254.169.254/latest/meta-data', /restricted host/],
  ['http://169.254.169.254/latest/meta-data', /Use an https:\/\/ address/],
  ['https://[::ffff:169.254.169.254]/', /restricted host/],
  ['https://[fe80::1]/in', /restricted host/],
  ['https://[fd00:ec2::254]/latest', /restricted host/],
  ['https://metadata.google.internal/computeMetadata/v1/', /restricted host/],
  ['https://100.100.100.200/latest', /restricted host/],
  ['https://10.0.0.1/in', /restricted host/],
  ['https://192.168.1.10/in', /restricted host/],
  [
    'http://93.184.215.14/in',
    /Use an https:\/\/ address: plain http is accepted only for localhost.*WEBHOOK_ALLOW_HTTP=true\.$/,
  ],
  ['http://10.0.0.1/in', /Use an https:\/\/ address/],
];

describe('webhooks: targets on a laptop (development profile)', () => {
  let apps: Apps;
  let worker: Awaited<ReturnType<typeof startTestWorker>>;
  let receiver: Receiver;
  let fx: ProjectFixture;
  let dash: ApiClient;
  const hooks = () => `/api/projects/${fx.project.id}/webhooks`;

  before(async () => {
    apps = await startTestApps('wh_laptop_dev', { NODE_ENV: 'development' });
    worker = await startTestWorker(apps.public.deps.config.platformDb, { NODE_ENV: 'development' });
    receiver = await startReceiver();
    ({ fx, dash } = await project(apps));
  });
  after(async () => {
    await worker?.stop();
    await apps?.close();
    await receiver?.close();
  });

  it('turns WEBHOOK_ALLOW_LOOPBACK on by default in development only, and the operator can turn it off', () => {
    const base = { ...testEnv };
    delete (base as Record<string, unknown>).WEBHOOK_ALLOW_LOOPBACK;
    expect(loadConfig({ ...base, NODE_ENV: 'development' }).webhooks.allowLoopback).to.equal(true);
    expect(loadConfig({ ...base, NODE_ENV: 'test' }).webhooks.allowLoopback).to.equal(false);
    expect(loadConfig({ ...base, NODE_ENV: 'production' }).webhooks.allowLoopback).to.equal(false);
    const off = { ...base, NODE_ENV: 'development', WEBHOOK_ALLOW_LOOPBACK: 'false' };
    expect(loadConfig(off).webhooks.allowLoopback).to.equal(false);
    expect(apps.dashboard.deps.config.webhooks.allowLoopback).to.equal(true);
  });

  it('tells the dashboard that the development profile is on (listWebhooks.loopbackTargets)', async () => {
    const res = await dash.get(hooks());
    expect(res.status).to.equal(200);
    expect(res.body.data.loopbackTargets).to.equal(true);
  });

  it('accepts http://127.0.0.1 and http://localhost, and a test ping reaches the loopback receiver signed', async () => {
    const created = await dash.post(hooks(), { url: receiver.url('/hook'), events: ['document.created'] });
    expect(created.status, created.text).to.equal(201);
    receiver.secret('/hook', created.body.data.secret);
    const id = created.body.data.webhook.id;
    const port = new URL(receiver.url('/')).port;
    const accepted = [
      `http://localhost:${port}/other`,
      `http://[::1]:${port}/v6`,
      'https://localhost/',
      // A laptop without DNS: the name is checked again when a delivery connects.
      'https://receiver.example.invalid/in',
    ];
    for (const url of accepted) {
      const res = await dash.post(hooks(), { url, events: ['document.created'] });
      expect(res.status, `${url}: ${res.text}`).to.equal(201);
    }
    const ping = await dash.post(`${hooks()}/${id}/test`);
    expect(ping.status).to.equal(202);
    const got = await receiver.waitFor(() => receiver.on('/hook').length >= 1 && receiver.on('/hook'));
    expect(got[0]!.verified).to.equal(true);
    expect(got[0]!.payload.event).to.equal('webhook.ping');
    const deadline = Date.now() + 10_000;
    let delivery: any;
    while (Date.now() < deadline) {
      delivery = (await dash.get(`${hooks()}/${id}/deliveries`)).body.data.deliveries[0];
      if (delivery && delivery.status !== 'pending') break;
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(delivery).to.deep.include({ status: 'succeeded', event: 'webhook.ping' });
  });

  it('still refuses metadata, link-local and private targets, and plain http off loopback', async () => {
    for (const [url, message] of ALWAYS_REFUSED) {
      const res = await dash.post(hooks(), { url, events: ['document.created'] });
      expect(res.status, url).to.equal(400);
      expect(res.body.message, url)
        .to.match(/^The webhook URL /)
        .and.match(message);
      expect(res.body.details[0].path, url).to.equal('body.url');
      const fn = await dash.post(`/api/projects/${fx.project.id}/functions`, hook(url));
      expect(fn.status, url).to.equal(400);
      expect(fn.body.message, url)
        .to.match(/^The hook URL \(runtime\.url\) /)
        .and.match(message);
    }
  });

  it('accepts an HTTP hook on http://127.0.0.1 through the same rule, and calls it', async () => {
    const hookReceiver = await startHookReceiver();
    try {
      const res = await dash.post(`/api/projects/${fx.project.id}/functions`, hook(hookReceiver.url('/h')));
      expect(res.status, res.text).to.equal(201);
      hookReceiver.secret('/h', res.body.data.signingSecret);
      hookReceiver.answer('/h', (event) => ({
        json: { document: { ...event.documents[0], title: String(event.documents[0].title).toUpperCase() } },
      }));
      const data = apps.public.client.with({ 'x-api-key': fx.secretKey });
      const created = await data.post('/api/data/posts', { title: 'from the laptop' });
      expect(created.status, created.text).to.equal(201);
      expect(created.body.data.title).to.equal('FROM THE LAPTOP');
      const [call] = hookReceiver.on('/h');
      expect(call!.verified, call!.verifyError).to.equal(true);
    } finally {
      await hookReceiver.close();
    }
  });
});

describe('webhooks: targets in production', () => {
  let apps: Apps;
  let fx: ProjectFixture;
  let dash: ApiClient;
  const hooks = () => `/api/projects/${fx.project.id}/webhooks`;

  before(async () => {
    apps = await startTestApps('wh_laptop_prod', { NODE_ENV: 'production' });
    ({ fx, dash } = await project(apps));
  });
  after(() => apps?.close());

  it('refuses loopback targets for webhooks and HTTP hooks, with sentences naming the field', async () => {
    expect(apps.dashboard.deps.config.webhooks.allowLoopback).to.equal(false);
    expect((await dash.get(hooks())).body.data.loopbackTargets).to.equal(false);
    const cases: [string, RegExp][] = [
      ['http://127.0.0.1:9999/hook', /Use an https:\/\/ address: plain http is accepted only for localhost/],
      ['http://localhost:9999/hook', /Use an https:\/\/ address/],
      ['https://127.0.0.1:9999/hook', /restricted host.*use a public https:\/\/ address/],
      ['https://localhost/hook', /restricted host/],
      ['https://[::1]/hook', /restricted host/],
      ['https://[::ffff:127.0.0.1]/hook', /restricted host/],
      ['https://receiver.example.invalid/hook', /restricted host/],
      ...ALWAYS_REFUSED,
    ];
    for (const [url, message] of cases) {
      const res = await dash.post(hooks(), { url, events: ['document.created'] });
      expect(res.status, url).to.equal(400);
      expect(res.body.message, url)
        .to.match(/^The webhook URL /)
        .and.match(message);
      const fn = await dash.post(`/api/projects/${fx.project.id}/functions`, hook(url));
      expect(fn.status, url).to.equal(400);
      expect(fn.body.message, url)
        .to.match(/^The hook URL \(runtime\.url\) /)
        .and.match(message);
    }
  });

  it('refuses at delivery time a loopback target saved under the development profile', async () => {
    // The same platform database seen by a development dashboard (a webhook saved on a laptop,
    // then the database moved, or a restore): the production worker must still refuse to connect.
    const laptop = await startTestApp('dashboard', 'wh_laptop_prod', {
      NODE_ENV: 'development',
      PLATFORM_DB: apps.public.deps.config.platformDb,
    });
    const worker = await startTestWorker(apps.public.deps.config.platformDb, { NODE_ENV: 'production' });
    const receiver = await startReceiver();
    try {
      const own = await project({ dashboard: laptop } as unknown as Apps);
      const at = `/api/projects/${own.fx.project.id}/webhooks`;
      const port = new URL(receiver.url('/')).port;
      const ids: string[] = [];
      for (const url of [receiver.url('/plain'), `https://localhost:${port}/tls`]) {
        const saved = await own.dash.post(at, {
          url,
          events: ['document.created'],
        });
        expect(saved.status, saved.text).to.equal(201);
        ids.push(saved.body.data.webhook.id);
        expect((await own.dash.post(`${at}/${saved.body.data.webhook.id}/test`)).status).to.equal(202);
      }
      const errors: string[] = [];
      for (const id of ids) {
        const deadline = Date.now() + 10_000;
        let delivery: any;
        while (Date.now() < deadline) {
          delivery = (await own.dash.get(`${at}/${id}/deliveries`)).body.data.deliveries[0];
          if (delivery?.status === 'failed') break;
          await new Promise((r) => setTimeout(r, 50));
        }
        expect(delivery?.status, JSON.stringify(delivery)).to.equal('failed');
        expect(delivery.attempts, 'not retried').to.have.length(1);
        errors.push(delivery.attempts[0].error);
      }
      expect(errors[0]).to.match(/^The webhook URL is refused\. Use an https:\/\/ address/);
      expect(errors[1]).to.match(
        /^The target is a restricted host: it must resolve to public addresses only/,
      );
      expect(receiver.received, 'nothing reached the receiver').to.have.length(0);
    } finally {
      await worker.stop();
      await laptop.close();
      await receiver.close();
    }
  });
});
