// HTTP before-hooks on every write path over the real stack: the call is signed (verified with the
// `standardwebhooks` package) and carries the event; a changed document is stored after the same
// validation as a client's (a hook narrows, never widens); a refusal is forwarded; a slow endpoint
// under `closed` (504) and `open` (the write goes through unchanged); an oversized or redirecting
// answer; the circuit breaker opens and half-opens, shown in the API read; the invocation log.
import { expect } from 'chai';
import { startTestApps } from '../helpers/app.js';
import {
  createCollectionFixture,
  createOperator,
  createProjectFixture,
  userToken,
  type ProjectFixture,
} from '../helpers/fixtures.js';
import type { ApiClient } from '../helpers/client.js';
import { startHookReceiver, type HookReceiver } from '../helpers/hook-receiver.js';

describe('functions: HTTP before-hooks on the write paths', () => {
  let apps: Awaited<ReturnType<typeof startTestApps>>;
  let fx: ProjectFixture;
  let dash: ApiClient;
  let secret: ApiClient;
  let hooks: HookReceiver;
  const fns = () => `/api/projects/${fx.project.id}/functions`;

  /** Registers an HTTP hook on `path` of the receiver and teaches the receiver its secret. */
  async function hook(
    trigger: string,
    collection: string,
    path: string,
    extra: Record<string, unknown> = {},
  ) {
    const res = await dash.post(fns(), {
      name: `${trigger}-${collection}-${path.replace(/\W/g, '')}`,
      trigger: { type: trigger, collection },
      runtime: { type: 'http', url: hooks.url(path) },
      ...extra,
    });
    expect(res.status, res.text).to.equal(201);
    hooks.secret(path, res.body.data.signingSecret);
    return res.body.data.function.id as string;
  }

  before(async function () {
    this.timeout(120_000);
    apps = await startTestApps('functions_hooks', {
      ALLOW_PRIVATE_HOSTS: 'true',
      HOOK_BREAKER_FAILURES: '3',
      HOOK_BREAKER_COOLDOWN_MS: '1500',
    });
    hooks = await startHookReceiver();
    await createOperator(apps.dashboard.services);
    fx = await createProjectFixture(apps.dashboard.services);
    dash = apps.dashboard.client.with({ cookie: fx.cookie });
    secret = apps.public.client.with({ 'x-api-key': fx.secretKey });
    await apps.dashboard.services.repos.projects.setLimits(fx.project.id, { functionsPerProject: 50 });
    const fields = [
      { name: 'title', type: 'String', required: true },
      { name: 'tag', type: 'String' },
      { name: 'userId', type: 'String' },
    ] as const;
    for (const name of ['posts', 'bulk', 'slow', 'open', 'big', 'flaky', 'owned', 'logged', 'capped'])
      await createCollectionFixture(apps.dashboard.services, fx.project.id, {
        name,
        mode: 'schema',
        fields: fields.map((f) => ({ ...f })),
        ...(name === 'owned' ? { rls: { enabled: true, mode: 'private', ownerField: 'userId' } } : {}),
      });
  });
  after(async () => {
    await apps?.close();
    await hooks?.close();
  });

  it('beforeCreate: a signed call with the event, the changed document stored, no call where no hook', async () => {
    await hook('beforeCreate', 'posts', '/posts', {});
    hooks.answer('/posts', (event) => ({
      json: {
        document: { ...event.documents[0], title: event.documents[0].title.toUpperCase(), tag: 'hooked' },
      },
    }));
    const res = await secret.post('/api/data/posts', { title: 'hello' });
    expect(res.status, res.text).to.equal(201);
    expect(res.body.data).to.include({ title: 'HELLO', tag: 'hooked' });
    const [call] = hooks.on('/posts');
    expect(call!.verified, call!.verifyError).to.equal(true);
    expect(call!.headers['webhook-id']).to.equal(call!.event.id);
    expect(call!.event).to.deep.include({
      trigger: 'beforeCreate',
      projectId: fx.project.id,
      collection: 'posts',
      operation: 'create',
      caller: { key: 'secret', userId: null },
      documents: [{ title: 'hello' }],
    });
    const stored = await secret.get(`/api/data/posts/${res.body.data._id}`);
    expect(stored.body.data).to.include({ title: 'HELLO', tag: 'hooked' });
    // PATCH/PUT run beforeUpdate only: no hook there, so no call.
    expect((await secret.patch(`/api/data/posts/${res.body.data._id}`, { tag: 'x' })).status).to.equal(200);
    expect(hooks.on('/posts')).to.have.length(1);
  });

  it('a bulk write calls the hook once with the batch; a refusal is forwarded with HOOK_<code>', async () => {
    await hook('beforeCreate', 'bulk', '/bulk');
    hooks.answer('/bulk', (event) =>
      event.documents.some((d: any) => d.title === 'forbidden')
        ? { json: { refuse: { status: 403, code: 'TITLE_BANNED', message: 'That title is banned' } } }
        : { json: { documents: event.documents.map((d: any, i: number) => ({ ...d, tag: `n${i}` })) } },
    );
    const ok = await secret.post('/api/data/bulk/bulk', {
      documents: [{ title: 'a' }, { title: 'b' }, { title: 'c' }],
    });
    expect(ok.status, ok.text).to.equal(201);
    expect(ok.body.data.map((d: any) => d.tag)).to.deep.equal(['n0', 'n1', 'n2']);
    expect(hooks.on('/bulk')).to.have.length(1);
    expect(hooks.on('/bulk')[0]!.event).to.deep.include({ operation: 'bulkCreate' });
    const refused = await secret.post('/api/data/bulk', { title: 'forbidden' });
    expect(refused.status).to.equal(403);
    expect(refused.body).to.include({ code: 'HOOK_TITLE_BANNED', message: 'That title is banned' });
    const list = await secret.get('/api/data/bulk?title=forbidden');
    expect(list.body.data).to.have.length(0);
    // The client's own input is checked before the hook is asked, with the message of a write without a hook.
    const calls = hooks.on('/bulk').length;
    const bad = await secret.post('/api/data/bulk/bulk', { documents: [{ title: 'ok' }, { title: 5 }] });
    expect(bad.status).to.equal(400);
    expect(bad.body.message).to.match(/^Validation failed: documents\.1\.title/);
    expect(hooks.on('/bulk')).to.have.length(calls);
  });

  it('validates what a hook answers like a client write: schema and the RLS owner', async () => {
    const id = await hook('beforeCreate', 'owned', '/owned');
    hooks.answer('/owned', { json: { document: { title: 42 } } });
    const badType = await secret.post('/api/data/owned', { title: 'fine' });
    expect(badType.status).to.equal(400);
    expect(badType.body.message).to.match(/title/);
    // A hook cannot hand the document to another user (widen what the caller may do).
    hooks.answer('/owned', { json: { document: { title: 'mine', userId: 'bbbbbbbbbbbbbbbbbbbbbbbb' } } });
    const token = await userToken(apps.public.services, fx.project.id, 'aaaaaaaaaaaaaaaaaaaaaaaa');
    const user = apps.public.client.with({
      'x-api-key': fx.publishableKey,
      authorization: `Bearer ${token}`,
    });
    const widened = await user.post('/api/data/owned', { title: 'mine' });
    expect(widened.status).to.equal(403);
    expect(widened.body.code).to.equal('OWNER_MISMATCH');
    hooks.answer('/owned', (event) => ({ json: { document: { ...event.documents[0], tag: 'user' } } }));
    const narrowed = await user.post('/api/data/owned', { title: 'mine' });
    expect(narrowed.status, narrowed.text).to.equal(201);
    expect(narrowed.body.data).to.include({ tag: 'user', userId: 'aaaaaaaaaaaaaaaaaaaaaaaa' });
    expect(hooks.on('/owned').at(-1)!.event.caller).to.deep.equal({
      key: 'publishable',
      userId: 'aaaaaaaaaaaaaaaaaaaaaaaa',
    });
    await dash.delete(`${fns()}/${id}`);
  });

  it('runs beforeUpdate on PATCH and PUT, beforeDelete on trash and bulk trash, beforeUpdate on restore', async () => {
    const created = await secret.post('/api/data/posts', { title: 'change me' });
    const id = created.body.data._id;
    await hook('beforeUpdate', 'posts', '/posts-update');
    await hook('beforeDelete', 'posts', '/posts-delete');
    hooks.answer('/posts-update', (event) =>
      event.operation === 'restore' || event.operation === 'bulkRestore'
        ? { json: { refuse: { status: 403, code: 'NO_RESTORE', message: 'Restores are off' } } }
        : { json: { changes: { ...event.changes, tag: 'edited' } } },
    );
    const patched = await secret.patch(`/api/data/posts/${id}`, { title: 'changed' });
    expect(patched.status, patched.text).to.equal(200);
    expect(patched.body.data).to.include({ title: 'changed', tag: 'edited' });
    const put = await secret.put(`/api/data/posts/${id}`, { title: 'put' });
    expect(put.body.data).to.include({ title: 'put', tag: 'edited' });
    expect(hooks.on('/posts-update').map((c) => c.event.operation)).to.deep.equal(['update', 'update']);
    expect(hooks.on('/posts-update')[0]!.event).to.deep.include({
      documentId: id,
      changes: { title: 'changed' },
    });
    hooks.answer('/posts-delete', { json: { refuse: { status: 400, code: 'KEEP', message: 'Keep it' } } });
    const kept = await secret.delete(`/api/data/posts/${id}`);
    expect(kept.status).to.equal(400);
    expect(kept.body.code).to.equal('HOOK_KEEP');
    const bulkKept = await secret.post('/api/data/posts/bulk/delete', { ids: [id] });
    expect(bulkKept.status).to.equal(400);
    expect(hooks.on('/posts-delete').map((c) => [c.event.operation, c.event.documentIds])).to.deep.equal([
      ['trash', [id]],
      ['bulkTrash', [id]],
    ]);
    hooks.answer('/posts-delete', {});
    expect((await secret.delete(`/api/data/posts/${id}`)).status).to.equal(200);
    const restore = await secret.post(`/api/data/posts/${id}/restore`);
    expect(restore.status).to.equal(403);
    expect(restore.body.code).to.equal('HOOK_NO_RESTORE');
    const bulkRestore = await secret.post('/api/data/posts/bulk/restore', { ids: [id] });
    expect(bulkRestore.status).to.equal(403);
    expect(hooks.on('/posts-update').at(-1)!.event).to.deep.include({
      operation: 'bulkRestore',
      documentIds: [id],
    });
  });

  it('a slow endpoint: 504 HOOK_TIMEOUT under closed (nothing written), the write unchanged under open', async () => {
    const limits = { functionsPerProject: 50, functionDeadlineMs: 300 };
    await apps.dashboard.services.repos.projects.setLimits(fx.project.id, limits);
    await hook('beforeCreate', 'slow', '/slow');
    await hook('beforeCreate', 'open', '/open', { failurePolicy: 'open' });
    hooks.answer('/slow', { delayMs: 1000, json: { document: { title: 'late' } } });
    hooks.answer('/open', { delayMs: 1000, json: { document: { title: 'late' } } });
    const started = Date.now();
    const closed = await secret.post('/api/data/slow', { title: 'on time' });
    expect(closed.status).to.equal(504);
    expect(closed.body.code).to.equal('HOOK_TIMEOUT');
    expect(Date.now() - started).to.be.below(900);
    expect((await secret.get('/api/data/slow')).body.data).to.have.length(0);
    const open = await secret.post('/api/data/open', { title: 'on time' });
    expect(open.status, open.text).to.equal(201);
    expect(open.body.data.title).to.equal('on time');
    await apps.dashboard.services.repos.projects.setLimits(fx.project.id, { functionsPerProject: 50 });
  });

  it('refuses an oversized answer, a redirect and an error status (503 HOOK_UNAVAILABLE)', async () => {
    await hook('beforeCreate', 'big', '/big');
    hooks.answer('/big', { bytes: 64 * 1024 + 1 });
    const big = await secret.post('/api/data/big', { title: 'x' });
    expect(big.status).to.equal(503);
    expect(big.body).to.include({ code: 'HOOK_UNAVAILABLE' });
    expect(big.body.message).to.match(/larger than 65536 bytes/);
    hooks.answer('/big', { bytes: 64 * 1024, status: 200 });
    expect((await secret.post('/api/data/big', { title: 'x' })).body.message).to.match(/not JSON/);
    // A success between: three failures in a row would open the breaker (next test).
    hooks.answer('/big', {});
    expect((await secret.post('/api/data/big', { title: 'x' })).status).to.equal(201);
    hooks.answer('/big', { status: 302, headers: { location: hooks.url('/elsewhere') } });
    const redirect = await secret.post('/api/data/big', { title: 'x' });
    expect(redirect.body.message).to.match(/redirects are not followed/);
    expect(hooks.on('/elsewhere')).to.have.length(0);
    hooks.answer('/big', { status: 500, json: { oops: true } });
    expect((await secret.post('/api/data/big', { title: 'x' })).body.message).to.match(/answered 500/);
  });

  it('opens the circuit breaker after 3 failures, half-opens after the cool-down, closes on success', async () => {
    const id = await hook('beforeCreate', 'flaky', '/flaky');
    hooks.answer('/flaky', { status: 500 });
    for (let i = 0; i < 3; i++)
      expect((await secret.post('/api/data/flaky', { title: 'x' })).status).to.equal(503);
    const open = await dash.get(`${fns()}/${id}`);
    const breaker = open.body.data.function.breaker;
    expect(breaker).to.include({ state: 'open', consecutiveFailures: 3 });
    // The trial comes once the cool-down (1500 ms here) has passed since it opened.
    expect(Date.parse(breaker.retryAt) - Date.parse(breaker.openedAt)).to.equal(1500);
    const refused = await secret.post('/api/data/flaky', { title: 'x' });
    expect(refused.status).to.equal(503);
    expect(refused.body.code).to.equal('FUNCTION_CIRCUIT_OPEN');
    expect(Number(refused.headers.get('retry-after'))).to.be.within(1, 2);
    expect(hooks.on('/flaky')).to.have.length(3); // the endpoint was not called
    await new Promise((r) => setTimeout(r, 1600));
    expect((await dash.get(`${fns()}/${id}`)).body.data.function.breaker).to.include({
      state: 'halfOpen',
      retryAt: null,
    });
    hooks.answer('/flaky', {});
    const trial = await secret.post('/api/data/flaky', { title: 'back' });
    expect(trial.status, trial.text).to.equal(201);
    expect((await dash.get(`${fns()}/${id}`)).body.data.function.breaker).to.deep.equal({
      state: 'closed',
      consecutiveFailures: 0,
      openedAt: null,
      retryAt: null,
    });
  });

  it('refuses a private target at connect time when the host is restricted (private hosts not allowed)', async () => {
    const strict = await startTestApps('functions_hooks_strict');
    try {
      const f = await createProjectFixture(strict.dashboard.services);
      await createCollectionFixture(strict.dashboard.services, f.project.id, { name: 'posts' });
      const d = strict.dashboard.client.with({ cookie: f.cookie });
      const saved = await d.post(`/api/projects/${f.project.id}/functions`, {
        name: 'inside',
        trigger: { type: 'beforeCreate', collection: 'posts' },
        runtime: { type: 'http', url: 'https://127.0.0.1:9/hook' },
      });
      expect(saved.status).to.equal(400);
      expect(saved.body.code).to.equal('RESTRICTED_HOST');
      // A name that resolves inside (DNS changed after the save) is refused when connecting.
      const fnId = (
        await d.post(`/api/projects/${f.project.id}/functions`, {
          name: 'rebinding',
          trigger: { type: 'beforeCreate', collection: 'posts' },
          runtime: { type: 'http', url: 'https://93.184.215.14/hook' },
        })
      ).body.data.function.id;
      const fn = await strict.dashboard.services.functions.repo.find(f.project.id, fnId);
      const versions = fn!.versions.map((v) => ({
        ...v,
        runtime: { type: 'http' as const, url: 'https://localhost.:9/x' },
      }));
      await strict.dashboard.services.functions.repo.update(
        f.project.id,
        fnId,
        fn!.latestVersion,
        { versions },
        'beforeCreate:posts',
      );
      const res = await strict.public.client
        .with({ 'x-api-key': f.secretKey })
        .post('/api/data/posts', { title: 'x' });
      expect(res.status).to.equal(503);
      expect(res.body.message).to.match(/restricted host/);
    } finally {
      await strict.close();
    }
  });

  it("keeps an invocation log without bodies, for the plan's days; a test run writes nothing", async () => {
    const id = await hook('beforeCreate', 'logged', '/logged');
    hooks.answer('/logged', (event) =>
      event.documents[0].title === 'no'
        ? { json: { refuse: { status: 403, code: 'NOPE', message: 'No' } } }
        : { json: { document: { title: 'secret-title-value' } } },
    );
    expect((await secret.post('/api/data/logged', { title: 'client-body-value' })).status).to.equal(201);
    expect((await secret.post('/api/data/logged', { title: 'no' })).status).to.equal(403);
    // The log is written in batches by the process that ran the hooks.
    await apps.public.services.functions.invoker.flushLog();
    const log = await dash.get(`${fns()}/${id}/invocations`);
    expect(log.status, log.text).to.equal(200);
    const entries = log.body.data.invocations;
    expect(entries.map((e: any) => e.status)).to.deep.equal(['refused', 'ok']);
    expect(entries[0]).to.include({ trigger: 'beforeCreate', version: 1 });
    const day = new Date(entries[0].expiresAt).getTime() - new Date(entries[0].at).getTime();
    expect(day).to.equal(24 * 3600 * 1000); // Free: one day
    const stored = await apps.dashboard.deps.db.platform
      .collection('function_invocations')
      .find({})
      .toArray();
    expect(JSON.stringify(stored)).not.to.include('client-body-value').and.not.include('secret-title-value');
    // A test run: the outcome, nothing written, nothing logged.
    const calls = hooks.on('/logged').length;
    const test = await dash.post(`${fns()}/${id}/test`, {
      event: { collection: 'logged', documents: [{ title: 'no' }] },
    });
    expect(test.status, test.text).to.equal(200);
    expect(test.body.data.outcome).to.deep.include({
      status: 'refused',
      refusal: { status: 403, code: 'NOPE', message: 'No' },
    });
    expect(hooks.on('/logged')).to.have.length(calls + 1);
    expect(hooks.on('/logged').at(-1)!.event).to.include({ test: true, trigger: 'beforeCreate' });
    expect((await dash.get(`${fns()}/${id}/invocations`)).body.data.invocations).to.have.length(2);
    expect((await secret.get('/api/data/logged')).body.data).to.have.length(1);
    // Log days 0: entries expire at once and are no longer listed.
    await apps.dashboard.services.repos.projects.setLimits(fx.project.id, {
      functionsPerProject: 50,
      functionLogDays: 0,
    });
    expect((await secret.post('/api/data/logged', { title: 'again' })).status).to.equal(201);
    await apps.public.services.functions.invoker.flushLog();
    expect((await dash.get(`${fns()}/${id}/invocations`)).body.data.invocations).to.have.length(2);
    await apps.dashboard.services.repos.projects.setLimits(fx.project.id, { functionsPerProject: 50 });
  });

  it('caps the invocations of a project in flight at once (functionConcurrency)', async () => {
    await apps.dashboard.services.repos.projects.setLimits(fx.project.id, {
      functionsPerProject: 50,
      functionConcurrency: 1,
    });
    await hook('beforeCreate', 'capped', '/capped', { failurePolicy: 'closed' });
    hooks.answer('/capped', { delayMs: 400 });
    const results = await Promise.all([1, 2, 3].map(() => secret.post('/api/data/capped', { title: 'x' })));
    // The client's to retry, whatever the failure policy: 429 FUNCTION_CONCURRENCY, logged.
    expect(results.map((r) => r.status).sort()).to.deep.equal([201, 429, 429]);
    const refused = results.find((r) => r.status === 429)!;
    expect(refused.body).to.include({
      code: 'FUNCTION_CONCURRENCY',
      message: "The project is at its plan's limit of functions running at once (1); retry shortly",
    });
    expect(refused.headers.get('retry-after')).to.equal('1');
    expect(hooks.on('/capped')).to.have.length(1);
    await apps.public.services.functions.invoker.flushLog();
    const capped = (await dash.get(fns())).body.data.functions.find((f: any) => f.name.includes('capped'));
    const logged = (await dash.get(`${fns()}/${capped.id}/invocations`)).body.data.invocations;
    expect(logged.filter((i: any) => i.status === 'error').map((i: any) => i.error.message)).to.deep.equal([
      refused.body.message,
      refused.body.message,
    ]);
    // The slot is given back: the next write goes through.
    expect((await secret.post('/api/data/capped', { title: 'y' })).status).to.equal(201);
    await apps.dashboard.services.repos.projects.setLimits(fx.project.id, { functionsPerProject: 50 });
  });

  it('costs no database round trip on a collection without a hook (the cached hook table)', async () => {
    await createCollectionFixture(apps.dashboard.services, fx.project.id, { name: 'plain' });
    const repo = apps.public.services.functions.repo;
    const list = repo.list;
    let loads = 0;
    repo.list = async (projectId) => {
      loads++;
      return list(projectId);
    };
    try {
      const started = process.hrtime.bigint();
      for (let i = 0; i < 50; i++)
        expect((await secret.post('/api/data/plain', { title: `t${i}` })).status).to.equal(201);
      const perWriteMs = Number(process.hrtime.bigint() - started) / 1e6 / 50;
      // At most one load after the collection's registration changed the project's version; none after.
      expect(loads).to.be.at.most(1);
      expect(perWriteMs).to.be.below(200);
    } finally {
      repo.list = list;
    }
  });

  it('counts runs and their milliseconds in the usage report (the Overview)', async () => {
    await apps.public.services.usage.counter.flush();
    const before = (await dash.get(`/api/projects/${fx.project.id}/usage`)).body.data.figures;
    hooks.answer('/posts', { delayMs: 50 });
    for (let i = 0; i < 3; i++)
      expect((await secret.post('/api/data/posts', { title: `u${i}` })).status).to.equal(201);
    await apps.public.services.usage.counter.flush();
    const res = await dash.get(`/api/projects/${fx.project.id}/usage`);
    expect(res.status).to.equal(200);
    const { figures, daily } = res.body.data;
    expect(figures.functionInvocations.used - before.functionInvocations.used).to.equal(3);
    expect(figures.functionInvocations).to.include({ limitName: 'functionInvocationsPerMonth' });
    expect(figures.functionMs.used - before.functionMs.used).to.be.at.least(150);
    expect(daily.at(-1).functionInvocations).to.equal(figures.functionInvocations.used);
  });
});
