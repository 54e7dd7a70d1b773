// The platform's own API is no target for ctx.fetch, HTTP hooks or webhooks (src/lib/own-origins.ts),
// even with loopback and private receivers allowed: the attack of issue 48 (an afterCreate that
// POSTs to the public API with the secret key from its env, so every write runs the hook again
// outside the depth rule) stops at the first write; the same code still reaches a receiver of
// its own on loopback.
import { expect } from 'chai';
import { startTestApps } from '../helpers/app.js';
import { createCollectionFixture, createProjectFixture, type ProjectFixture } from '../helpers/fixtures.js';
import { startHookReceiver, type HookReceiver } from '../helpers/hook-receiver.js';
import { startTestWorker } from '../helpers/worker.js';
import { postWebhook } from '../../src/services/webhooks/http.js';
import { OWN_ORIGIN_REASON, ownOriginsOf } from '../../src/lib/own-origins.js';
import type { ApiClient } from '../helpers/client.js';

/** Tells the receiver what it saw, then writes the next link of the chain through the API. */
const chain = `export default async (event, ctx) => {
  const depth = event.document.depth;
  await ctx.fetch(ctx.env.ECHO, { method: 'POST', body: JSON.stringify({ depth }) });
  const res = await ctx.fetch(ctx.env.API + '/api/data/links', {
    method: 'POST',
    headers: { 'x-api-key': ctx.env.KEY, 'content-type': 'application/json' },
    body: JSON.stringify({ depth: depth + 1 }),
  });
  console.log('the API answered', res.status);
}`;

/** A callable that tries each URL of its body and answers what happened to each. */
const prober = `export default async (event, ctx) => {
  const out = {};
  for (const url of event.body.urls) {
    try { out[url] = (await ctx.fetch(url)).status; } catch (err) { out[url] = err.message; }
  }
  return out;
}`;

async function until<T>(check: () => Promise<T | undefined | false>, what: string, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`not within ${ms} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe("functions, hooks and webhooks: the platform's own API is no target", function () {
  this.timeout(90_000);
  let apps: Awaited<ReturnType<typeof startTestApps>>;
  let worker: Awaited<ReturnType<typeof startTestWorker>>;
  let hooks: HookReceiver;
  let fx: ProjectFixture;
  let secret: ApiClient;
  let dash: ApiClient;
  let port: string;

  before(async function () {
    this.timeout(120_000);
    // Loopback and private receivers allowed, as on a laptop: the refusal must hold anyway.
    apps = await startTestApps('functions_own_origin', { ALLOW_PRIVATE_HOSTS: 'true' });
    worker = await startTestWorker(apps.public.deps.config.platformDb, { ALLOW_PRIVATE_HOSTS: 'true' });
    hooks = await startHookReceiver();
    fx = await createProjectFixture(apps.dashboard.services);
    await apps.dashboard.services.repos.projects.setLimits(fx.project.id, {
      functionsPerProject: 20,
      functionDeadlineMs: 10_000,
    });
    await createCollectionFixture(apps.public.services, fx.project.id, { name: 'links' });
    secret = apps.public.client.with({ 'x-api-key': fx.secretKey });
    dash = apps.dashboard.client.with({ cookie: fx.cookie });
    port = new URL(apps.public.url).port;
  });
  after(async () => {
    await worker?.stop();
    await hooks?.close();
    await apps?.close();
  });

  it('an afterCreate that POSTs to the public API with the secret key stops at the first write', async () => {
    const created = await dash.post(`/api/projects/${fx.project.id}/functions`, {
      name: 'chain',
      trigger: { type: 'afterCreate', collection: 'links' },
      runtime: { type: 'javascript', code: chain },
      env: { API: apps.public.url, KEY: fx.secretKey, ECHO: hooks.url('/echo') },
    });
    expect(created.status, created.text).to.equal(201);
    const id = created.body.data.function.id as string;

    expect((await secret.post('/api/data/links', { depth: 0 })).status).to.equal(201);
    const invocations = await until(async () => {
      const res = await dash.get(`/api/projects/${fx.project.id}/functions/${id}/invocations`);
      const list = res.body.data.invocations as { status: string; error?: { message: string } }[];
      return list.some((i) => i.status !== 'ok') && list;
    }, 'the run of the first write');
    // The same run reached the loopback receiver: ctx.fetch works, only the own API is refused.
    expect(hooks.on('/echo')).to.have.length.greaterThan(0);
    expect(invocations[0]!.error!.message).to.include("the platform's own API");

    const links = await secret.get('/api/data/links', { query: { limit: 100 } });
    expect(links.body.data.map((d: { depth: number }) => d.depth)).to.deep.equal([0]);
  });

  it('ctx.fetch refuses every way of writing the own address: name, loopback forms, unspecified', async () => {
    const res = await secret.post('/api/functions', {
      name: 'probe',
      trigger: { type: 'callable', access: 'secret' },
      runtime: { type: 'javascript', code: prober },
    });
    expect(res.status, res.text).to.equal(201);
    const own = [
      `http://127.0.0.1:${port}/api/health`,
      `http://localhost:${port}/api/health`,
      `http://127.0.0.2:${port}/api/health`,
      `http://[::ffff:127.0.0.1]:${port}/api/health`,
      `http://0.0.0.0:${port}/api/health`,
      `${apps.dashboard.url}/api/health`,
    ];
    // One URL a call: each has the whole deadline, however busy the machine.
    const tried: Record<string, unknown> = {};
    for (const url of [...own, hooks.url('/probe')]) {
      const answer = await secret.post('/api/functions/probe', { urls: [url] });
      expect(answer.status, answer.text).to.equal(200);
      tried[url] = answer.body.data[url];
    }
    for (const url of own) expect(tried[url], url).to.include("the platform's own API");
    expect(tried[hooks.url('/probe')]).to.equal(200);
  });

  it('an HTTP hook or a webhook on the own API is refused when saved, and a delivery to it is not sent', async () => {
    const hook = await secret.post('/api/functions', {
      name: 'loop',
      trigger: { type: 'beforeCreate', collection: 'links' },
      runtime: { type: 'http', url: `${apps.public.url}/api/data/links` },
    });
    expect(hook.status, hook.text).to.equal(400);
    expect(hook.body.message).to.include("the platform's own API");
    const webhook = await dash.post(`/api/projects/${fx.project.id}/webhooks`, {
      url: `http://localhost:${port}/api/data/links`,
      events: ['document.created'],
    });
    expect(webhook.status, webhook.text).to.equal(400);
    expect(webhook.body.message).to.include("the platform's own API");

    // A saved URL whose name comes to mean the platform is refused at delivery too.
    const sent = await postWebhook(`http://localhost:${port}/api/health`, {}, '{}', {
      timeoutMs: 2000,
      allowPrivate: true,
      allowHttp: true,
      own: ownOriginsOf(apps.public.deps.config),
    });
    expect(sent).to.include({ status: null, error: OWN_ORIGIN_REASON, retryable: false });
  });
});
