// The after-triggers over HTTP on the real stack, run by a worker through the webhook outbox:
// afterCreate, afterUpdate (a PATCH and a restore) and afterDelete each run once per change with
// the writer's rights and the event's stable id; a failed run is tried again with the same id
// (an HTTP function, verified with `standardwebhooks`); an afterCreate that writes its own
// collection stops one level down; a change whose process is killed between the write and the
// confirmation still runs its function; an import runs none.
import type { ChildProcess } from 'node:child_process';
import { expect } from 'chai';
import { startTestApps } from '../helpers/app.js';
import { createCollectionFixture, createProjectFixture } from '../helpers/fixtures.js';
import { startHookReceiver, type HookReceiver } from '../helpers/hook-receiver.js';
import { startTestWorker } from '../helpers/worker.js';
import { postAndDie, startCrashingPublic } from '../helpers/crash-child.js';

type Apps = Awaited<ReturnType<typeof startTestApps>>;
const WORKER = {
  ALLOW_PRIVATE_HOSTS: 'true',
  WEBHOOK_RETRY_SCHEDULE: '100ms,100ms',
  WEBHOOK_INTENT_GRACE: '500ms',
};

/** Every after-trigger below writes one audit entry naming what it saw. */
const audit = `export default async (event, ctx) => {
  await ctx.db.create('audit', {
    trigger: event.trigger, change: event.event, eventId: event.id, documentId: event.documentId,
    title: event.document ? event.document.title : null, key: event.caller.key,
  });
}`;

async function until<T>(check: () => Promise<T | undefined | false>, what: string, ms = 15_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`not within ${ms} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('functions: after-triggers through the outbox', function () {
  this.timeout(60_000);
  let apps: Apps;
  let hooks: HookReceiver;
  let worker: Awaited<ReturnType<typeof startTestWorker>> | undefined;
  let child: ChildProcess | undefined;

  before(async function () {
    this.timeout(120_000);
    apps = await startTestApps('functions_after', { ALLOW_PRIVATE_HOSTS: 'true' });
    hooks = await startHookReceiver();
    worker = await startTestWorker(apps.public.deps.config.platformDb, WORKER);
  });
  after(async () => {
    child?.kill('SIGKILL');
    await worker?.stop();
    await hooks?.close();
    await apps?.close();
  });

  async function project(collections: string[]) {
    const fx = await createProjectFixture(apps.dashboard.services);
    await apps.dashboard.services.repos.projects.setLimits(fx.project.id, { functionsPerProject: 20 });
    for (const name of collections)
      await createCollectionFixture(apps.public.services, fx.project.id, { name });
    const dash = apps.dashboard.client.with({ cookie: fx.cookie });
    const data = apps.public.client.with({ 'x-api-key': fx.secretKey });
    return {
      fx,
      dash,
      data,
      async register(name: string, trigger: string, collection: string, runtime: Record<string, unknown>) {
        const res = await dash.post(`/api/projects/${fx.project.id}/functions`, {
          name,
          trigger: { type: trigger, collection },
          runtime,
        });
        expect(res.status, res.text).to.equal(201);
        return res.body.data as { function: { id: string }; signingSecret?: string };
      },
      async list(collection: string) {
        const res = await data.get(`/api/data/${collection}`, { query: { limit: 100, sort: 'createdAt' } });
        expect(res.status, res.text).to.equal(200);
        return res.body.data as any[];
      },
      async invocations(id: string) {
        const res = await dash.get(`/api/projects/${fx.project.id}/functions/${id}/invocations`);
        expect(res.status, res.text).to.equal(200);
        return res.body.data.invocations as any[];
      },
    };
  }

  it('afterCreate, afterUpdate (a PATCH, a restore) and afterDelete run once per change, with the writer and a stable event id', async () => {
    const p = await project(['orders', 'audit']);
    const js = { type: 'javascript', code: audit };
    const created = await p.register('on-create', 'afterCreate', 'orders', js);
    await p.register('on-update', 'afterUpdate', 'orders', js);
    await p.register('on-delete', 'afterDelete', 'orders', js);

    const order = await p.data.post('/api/data/orders', { title: 'first' });
    expect(order.status, order.text).to.equal(201);
    const id = order.body.data._id as string;
    await until(async () => (await p.list('audit')).length === 1, 'the afterCreate entry');
    expect((await p.data.patch(`/api/data/orders/${id}`, { title: 'second' })).status).to.equal(200);
    await until(async () => (await p.list('audit')).length === 2, 'the afterUpdate entry');
    expect((await p.data.delete(`/api/data/orders/${id}`)).status).to.equal(200);
    await until(async () => (await p.list('audit')).length === 3, 'the afterDelete entry');
    expect((await p.data.post(`/api/data/orders/${id}/restore`, {})).status).to.equal(200);
    const entries = await until(async () => {
      const list = await p.list('audit');
      return list.length === 4 && list;
    }, 'the entry of the restore');

    expect(entries.map((e) => [e.trigger, e.change, e.title])).to.deep.equal([
      ['afterCreate', 'document.created', 'first'],
      ['afterUpdate', 'document.updated', 'second'],
      ['afterDelete', 'document.deleted', null],
      ['afterUpdate', 'document.restored', 'second'],
    ]);
    for (const entry of entries) {
      expect(entry).to.include({ documentId: id, key: 'secret' });
      expect(entry.eventId).to.match(/^evt_[0-9a-f]{32}$/);
    }
    expect(new Set(entries.map((e) => e.eventId)).size, 'one id per change').to.equal(4);
    // Once each: nothing more comes after a while.
    await new Promise((r) => setTimeout(r, 600));
    expect(await p.list('audit')).to.have.length(4);
    const [logged] = await p.invocations(created.function.id);
    expect(logged).to.include({ trigger: 'afterCreate', status: 'ok' });
  });

  it('a failed run is tried again with the same event id, signed, until it succeeds', async () => {
    const p = await project(['orders']);
    let calls = 0;
    hooks.answer('/after-flaky', () => (++calls === 1 ? { status: 500 } : { status: 200 }));
    const made = await p.register('flaky', 'afterCreate', 'orders', {
      type: 'http',
      url: hooks.url('/after-flaky'),
    });
    hooks.secret('/after-flaky', made.signingSecret!);
    const order = await p.data.post('/api/data/orders', { title: 'retried' });
    expect(order.status).to.equal(201);

    const got = await until(
      async () => hooks.on('/after-flaky').length >= 2 && hooks.on('/after-flaky'),
      'the second attempt',
    );
    expect(got.every((call) => call.verified)).to.equal(true);
    const [first, second] = got;
    expect(first!.event).to.include({ trigger: 'afterCreate', documentId: order.body.data._id });
    expect(second!.event.id, 'the same event id').to.equal(first!.event.id);
    expect(second!.headers['webhook-id']).to.equal(first!.event.id);
    const statuses = await until(async () => {
      const list = await p.invocations(made.function.id);
      return list.length >= 2 && list.map((entry) => entry.status);
    }, 'both runs logged');
    expect(statuses.sort()).to.deep.equal(['error', 'ok']);
    await new Promise((r) => setTimeout(r, 500));
    expect(hooks.on('/after-flaky'), 'not again once it succeeded').to.have.length(2);
  });

  it('an afterCreate that writes its own collection stops one level down', async () => {
    const p = await project(['chain']);
    const made = await p.register('chain', 'afterCreate', 'chain', {
      type: 'javascript',
      code: `export default async (event, ctx) => {
        await ctx.db.create('chain', { title: 'made by ' + event.document.title });
      }`,
    });
    expect((await p.data.post('/api/data/chain', { title: 'client' })).status).to.equal(201);
    // The client's write runs the function at depth 1, whose write runs it at depth 2, where
    // ctx.db refuses writes; it fails, is retried twice, and then gives up.
    const runs = await until(async () => {
      const list = await p.invocations(made.function.id);
      return list.length >= 4 && list;
    }, 'the depth-2 runs');
    await new Promise((r) => setTimeout(r, 800));
    expect((await p.list('chain')).map((d) => d.title)).to.deep.equal(['client', 'made by client']);
    const after = await p.invocations(made.function.id);
    expect(after, 'the runs stop').to.have.length(runs.length);
    expect(after.filter((r) => r.status === 'ok')).to.have.length(1);
    const failed = after.filter((r) => r.status === 'error');
    expect(failed).to.have.length(3);
    for (const run of failed) expect(run.error.message).to.match(/at most 2 functions deep/);
  });

  it('a process killed between the write and its confirmation: the worker still runs the function', async () => {
    const p = await project(['posts', 'audit']);
    await p.register('on-create', 'afterCreate', 'posts', { type: 'javascript', code: audit });
    const started = await startCrashingPublic(apps.public.deps.config.platformDb, 'after-write');
    child = started.child;
    const died = await postAndDie(started.url, p.fx.secretKey, child, { title: 'then the crash' });
    child = undefined;
    expect(died).to.deep.equal({ answer: 'no answer', signal: 'SIGKILL' });

    const [entry] = await until(async () => {
      const list = await p.list('audit');
      return list.length >= 1 && list;
    }, 'the recovered run');
    expect(entry).to.include({ trigger: 'afterCreate', title: 'then the crash', key: 'secret' });
    await new Promise((r) => setTimeout(r, 600));
    expect(await p.list('audit'), 'once').to.have.length(1);
  });

  it('an import runs no after-trigger (the paths that skip hooks)', async () => {
    const p = await project(['posts', 'audit']);
    await p.register('on-create', 'afterCreate', 'posts', { type: 'javascript', code: audit });
    const res = await p.dash.request('POST', `/api/projects/${p.fx.project.id}/collections/posts/import`, {
      rawBody: JSON.stringify({ title: 'imported' }) + '\n',
      headers: { 'content-type': 'application/x-ndjson' },
    });
    expect(res.status, res.text).to.equal(200);
    await until(async () => (await p.list('posts')).length === 1, 'the import');
    await new Promise((r) => setTimeout(r, 800));
    expect(await p.list('audit')).to.have.length(0);
  });
});
