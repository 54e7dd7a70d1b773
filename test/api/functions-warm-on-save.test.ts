// Saving a version readies it, over HTTP: a JavaScript function created or changed through the
// API has an instance prepared in the saving process's runner pool (the pool starts if it had
// not), so the version's first call is served warm, and a test run finds the runners started.
// The other processes that run functions (here the public role, when the save goes through the
// dashboard's) ready it too, told over the bus; one that never ran a function starts nothing.
import { expect } from 'chai';
import { startTestApps } from '../helpers/app.js';
import { createProjectFixture, type ProjectFixture } from '../helpers/fixtures.js';
import type { ApiClient } from '../helpers/client.js';

const code = (tag: string) =>
  `let calls = 0;\nexport default async () => ({ tag: '${tag}', calls: ++calls });`;

describe('functions: a saved version is warm on its first call', function () {
  this.timeout(90_000);
  let apps: Awaited<ReturnType<typeof startTestApps>>;
  let fx: ProjectFixture;
  let secret: ApiClient;
  let dash: ApiClient;

  before(async function () {
    this.timeout(120_000);
    apps = await startTestApps('functions_warm_on_save');
    fx = await createProjectFixture(apps.dashboard.services);
    secret = apps.public.client.with({ 'x-api-key': fx.secretKey });
    dash = apps.dashboard.client.with({ cookie: fx.cookie });
  });
  after(() => apps?.close());

  /** Resolves once the pool prepared `n` versions and no runner is busy. */
  async function prepared(pool: typeof apps.public.services.hosted.pool, n: number) {
    const deadline = Date.now() + 30_000;
    while (pool.servedCounts().prepared < n || pool.runnerStates().some((r) => r.busy)) {
      if (Date.now() > deadline) throw new Error(`prepared ${pool.servedCounts().prepared} of ${n}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  it('serves the first call of a created and of a changed version warm', async () => {
    const pool = apps.public.services.hosted.pool;
    expect(pool.runnerStates(), 'no runner before the first save').to.deep.equal([]);
    const made = await secret.post('/api/functions', {
      name: 'counter',
      trigger: { type: 'callable', access: 'secret' },
      runtime: { type: 'javascript', code: code('v1') },
    });
    expect(made.status, made.text).to.equal(201);
    await prepared(pool, 1);
    const first = await secret.post('/api/functions/counter', {});
    expect(first.status, first.text).to.equal(200);
    // The module was evaluated when it was saved, and called for the first time now.
    expect(first.body.data).to.deep.equal({ tag: 'v1', calls: 1 });
    expect(pool.servedCounts()).to.deep.include({ warm: 1, cold: 0 });

    const changed = await secret.patch('/api/functions/counter', {
      runtime: { type: 'javascript', code: code('v2') },
    });
    expect(changed.status, changed.text).to.equal(200);
    await prepared(pool, 2);
    const second = await secret.post('/api/functions/counter', {});
    expect(second.body.data).to.deep.equal({ tag: 'v2', calls: 1 });
    expect(pool.servedCounts()).to.deep.include({ warm: 2, cold: 0 });
    // The dashboard's process was told of both saves, and has run no function: it started nothing.
    expect(apps.dashboard.services.hosted.pool.runnerStates()).to.deep.equal([]);
  });

  it('starts the runners of the process that saved it: a test run there is not cold', async () => {
    const pool = apps.dashboard.services.hosted.pool;
    const made = await dash.post(`/api/projects/${fx.project.id}/functions`, {
      name: 'tested',
      trigger: { type: 'callable', access: 'secret' },
      runtime: { type: 'javascript', code: code('t') },
    });
    expect(made.status, made.text).to.equal(201);
    await prepared(pool, 1);
    expect(pool.runnerStates().length).to.be.above(0);
    const test = await dash.post(
      `/api/projects/${fx.project.id}/functions/${made.body.data.function.id}/test`,
      {
        event: {},
      },
    );
    expect(test.status, test.text).to.equal(200);
    expect(test.body.data.outcome.value).to.deep.equal({ tag: 't', calls: 1 });
  });

  it('readies a version saved through the dashboard in the public process that runs functions', async () => {
    const pool = apps.public.services.hosted.pool;
    // The public process's runners run already (the first test); the dashboard's save is told to it.
    const before = pool.servedCounts();
    const made = await dash.post(`/api/projects/${fx.project.id}/functions`, {
      name: 'elsewhere',
      trigger: { type: 'callable', access: 'secret' },
      runtime: { type: 'javascript', code: code('e') },
    });
    expect(made.status, made.text).to.equal(201);
    await prepared(pool, before.prepared + 1);
    const first = await secret.post('/api/functions/elsewhere', {});
    expect(first.status, first.text).to.equal(200);
    expect(first.body.data).to.deep.equal({ tag: 'e', calls: 1 });
    expect(pool.servedCounts()).to.deep.include({ warm: before.warm + 1, cold: before.cold });
  });
});
