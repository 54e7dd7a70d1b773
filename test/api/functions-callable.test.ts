// Callable functions (`POST /api/functions/{name}`) over HTTP, on an HTTP runtime verified with
// `standardwebhooks`: the answer, access public/user/secret, the body cap, refusals, failures and
// timeouts; and the function operations for scripts with the secret key, by name.
import { expect } from 'chai';
import { startTestApps } from '../helpers/app.js';
import { createProjectFixture, userToken, type ProjectFixture } from '../helpers/fixtures.js';
import type { ApiClient } from '../helpers/client.js';
import { startHookReceiver, type HookReceiver } from '../helpers/hook-receiver.js';

describe('functions: callable functions and the secret-key operations', () => {
  let apps: Awaited<ReturnType<typeof startTestApps>>;
  let fx: ProjectFixture;
  let secret: ApiClient;
  let publishable: ApiClient;
  let user: ApiClient;
  let hooks: HookReceiver;

  async function callable(name: string, access: string, extra: Record<string, unknown> = {}) {
    const res = await secret.post('/api/functions', {
      name,
      trigger: { type: 'callable', access },
      runtime: { type: 'http', url: hooks.url(`/${name}`) },
      ...extra,
    });
    expect(res.status, res.text).to.equal(201);
    hooks.secret(`/${name}`, res.body.data.signingSecret);
    return res.body.data.function;
  }

  before(async function () {
    this.timeout(120_000);
    apps = await startTestApps('functions_callable', { ALLOW_PRIVATE_HOSTS: 'true' });
    hooks = await startHookReceiver();
    fx = await createProjectFixture(apps.dashboard.services);
    await apps.dashboard.services.repos.projects.setLimits(fx.project.id, { functionsPerProject: 50 });
    secret = apps.public.client.with({ 'x-api-key': fx.secretKey });
    publishable = apps.public.client.with({ 'x-api-key': fx.publishableKey });
    const token = await userToken(apps.public.services, fx.project.id, 'aaaaaaaaaaaaaaaaaaaaaaaa');
    user = publishable.with({ authorization: `Bearer ${token}` });
  });
  after(async () => {
    await apps?.close();
    await hooks?.close();
  });

  it('calls a public function with either key and answers its value; the call is signed', async () => {
    await callable('greet', 'public');
    hooks.answer('/greet', (event) => ({ json: { hello: event.body.who, caller: event.caller } }));
    const res = await publishable.post('/api/functions/greet', { who: 'world' });
    expect(res.status, res.text).to.equal(200);
    expect(res.body.data).to.deep.equal({ hello: 'world', caller: { key: 'publishable', userId: null } });
    expect((await secret.post('/api/functions/greet', { who: 'x' })).body.data.caller.key).to.equal('secret');
    const [call] = hooks.on('/greet');
    expect(call!.verified, call!.verifyError).to.equal(true);
    expect(call!.event).to.deep.include({ trigger: 'callable', name: 'greet', projectId: fx.project.id });
    // An empty answer is data: null; no body is event.body: null.
    hooks.answer('/greet', {});
    const empty = await publishable.post('/api/functions/greet');
    expect(empty.status).to.equal(200);
    expect(empty.body.data).to.equal(null);
    expect(hooks.on('/greet').at(-1)!.event.body).to.equal(null);
  });

  it('holds callers to the access: user needs a token, secret needs the secret key', async () => {
    await callable('mine', 'user');
    await callable('admin', 'secret');
    hooks.answer('/mine', (event) => ({ json: { userId: event.caller.userId } }));
    hooks.answer('/admin', { json: 'ok' });
    const noToken = await publishable.post('/api/functions/mine', {});
    expect(noToken.status).to.equal(401);
    expect(noToken.body.code).to.equal('MISSING_TOKEN');
    const withToken = await user.post('/api/functions/mine', {});
    expect(withToken.body.data).to.deep.equal({ userId: 'aaaaaaaaaaaaaaaaaaaaaaaa' });
    const pk = await user.post('/api/functions/admin', {});
    expect(pk.status).to.equal(403);
    expect(pk.body.code).to.equal('SECRET_KEY_REQUIRED');
    expect((await secret.post('/api/functions/admin', {})).body.data).to.equal('ok');
    expect(hooks.on('/admin')).to.have.length(1);
    const noKey = await apps.public.client.post('/api/functions/greet', {});
    expect(noKey.status).to.equal(401);
  });

  it('404 for a missing, disabled or non-callable function; 413 past 64 KiB of body', async () => {
    expect((await secret.post('/api/functions/nothing', {})).status).to.equal(404);
    const fn = await callable('off', 'public');
    await secret.patch('/api/functions/off', { enabled: false });
    const disabled = await secret.post('/api/functions/off', {});
    expect(disabled.status).to.equal(404);
    expect(disabled.body.code).to.equal('FUNCTION_NOT_FOUND');
    expect(fn.name).to.equal('off');
    const big = await publishable.post('/api/functions/greet', { blob: 'x'.repeat(64 * 1024) });
    expect(big.status).to.equal(413);
    expect(hooks.on('/greet').filter((c) => c.event?.body?.blob)).to.have.length(0);
    expect((await publishable.post('/api/functions/bad name', {})).status).to.equal(400);
  });

  it('forwards a refusal, and answers 502 FUNCTION_FAILED and 504 FUNCTION_TIMEOUT', async () => {
    await callable('strict', 'public');
    hooks.answer('/strict', { json: { refuse: { status: 400, code: 'NO_CART', message: 'Cart missing' } } });
    const refused = await publishable.post('/api/functions/strict', {});
    expect(refused.status).to.equal(400);
    expect(refused.body).to.include({ code: 'HOOK_NO_CART', message: 'Cart missing' });
    hooks.answer('/strict', { status: 500 });
    const failed = await publishable.post('/api/functions/strict', {});
    expect(failed.status).to.equal(502);
    expect(failed.body.code).to.equal('FUNCTION_FAILED');
    // The detail only to the secret key; another caller gets the log entry's id.
    expect(failed.body.message).to.not.match(/answered 500/);
    expect(failed.body.invocationId).to.match(/^[0-9a-f]{24}$/);
    expect((await secret.post('/api/functions/strict', {})).body.message).to.match(/answered 500/);
    await apps.dashboard.services.repos.projects.setLimits(fx.project.id, {
      functionsPerProject: 50,
      functionDeadlineMs: 200,
    });
    hooks.answer('/strict', { delayMs: 800, json: 1 });
    const slow = await publishable.post('/api/functions/strict', {});
    expect(slow.status).to.equal(504);
    expect(slow.body.code).to.equal('FUNCTION_TIMEOUT');
    await apps.dashboard.services.repos.projects.setLimits(fx.project.id, { functionsPerProject: 50 });
    const log = await secret.get('/api/functions/strict');
    const id = log.body.data.function.id;
    // The log is written in batches by the process that ran the calls.
    await apps.public.services.functions.invoker.flushLog();
    const entries = await apps.dashboard.services.functions.runs.invocations(fx.project, id, 1, 10);
    expect(entries.invocations.map((e) => e.status)).to.deep.equal(['timeout', 'error', 'error', 'refused']);
    expect(entries.invocations[2]!.id).to.equal(failed.body.invocationId);
    expect(entries.invocations[2]!.error?.message).to.match(/answered 500/);
  });

  it('manages functions by name with the secret key; the publishable key is refused', async () => {
    const list = await secret.get('/api/functions');
    expect(list.status).to.equal(200);
    expect(list.body.data.functions.map((f: any) => f.name)).to.include('greet');
    const read = await secret.get('/api/functions/greet');
    expect(read.body.data.function).to.include({ name: 'greet', version: 1 });
    const moved = await secret.patch('/api/functions/greet', {
      runtime: { type: 'http', url: hooks.url('/greet2') },
    });
    expect(moved.status, moved.text).to.equal(200);
    expect(moved.body.data.function).to.include({ version: 2 });
    expect(moved.body.data.signingSecret).to.equal(null);
    for (const [method, path, body] of [
      ['GET', '/api/functions'],
      [
        'POST',
        '/api/functions',
        {
          name: 'x',
          trigger: { type: 'callable', access: 'public' },
          runtime: { type: 'http', url: hooks.url('/x') },
        },
      ],
      ['GET', '/api/functions/greet'],
      ['PATCH', '/api/functions/greet', { enabled: false }],
      ['DELETE', '/api/functions/greet'],
    ] as [string, string, unknown?][]) {
      const res = await publishable.request(method, path, { body });
      expect(res.status, `${method} ${path}`).to.equal(403);
      expect(res.body.code).to.equal('SECRET_KEY_REQUIRED');
      expect((await apps.public.client.request(method, path, { body })).status).to.equal(401);
    }
    expect((await secret.get('/api/functions/missing')).status).to.equal(404);
    for (const method of ['GET', 'PATCH', 'DELETE'])
      expect(
        (
          await secret.request(method, '/api/functions/bad name', {
            body: method === 'PATCH' ? { enabled: true } : undefined,
          })
        ).status,
        method,
      ).to.equal(400);
    expect((await secret.patch('/api/functions/greet', {})).status).to.equal(400);
    const renamed = await secret.patch('/api/functions/greet', { name: 'admin' });
    expect(renamed.status).to.equal(409);
    expect(renamed.body.code).to.equal('FUNCTION_EXISTS');
    expect((await secret.patch('/api/functions/missing', { enabled: true })).status).to.equal(404);
    const dup = await secret.post('/api/functions', {
      name: 'greet',
      trigger: { type: 'callable', access: 'public' },
      runtime: { type: 'http', url: hooks.url('/g') },
    });
    expect(dup.status).to.equal(409);
    expect((await secret.post('/api/functions', { name: 'bad' })).status).to.equal(400);
    expect((await secret.delete('/api/functions/greet')).status).to.equal(200);
    expect((await secret.delete('/api/functions/greet')).status).to.equal(404);
    expect((await publishable.post('/api/functions/greet', {})).status).to.equal(404);
  });

  it('holds the project to its invocations per month (functionInvocationsPerMonth)', async () => {
    const other = await createProjectFixture(apps.dashboard.services);
    await apps.dashboard.services.repos.projects.setLimits(other.project.id, {
      functionsPerProject: 5,
      functionInvocationsPerMonth: 2,
    });
    const key = apps.public.client.with({ 'x-api-key': other.secretKey });
    const created = await key.post('/api/functions', {
      name: 'metered',
      trigger: { type: 'callable', access: 'secret' },
      runtime: { type: 'http', url: hooks.url('/metered') },
    });
    expect(created.status, created.text).to.equal(201);
    hooks.answer('/metered', { json: 'ran' });
    // Counted in the shared cache (Redis in the tests), so every process sees one count.
    const first = await key.post('/api/functions/metered', {});
    const second = await key.post('/api/functions/metered', {});
    expect([first.status, second.status]).to.deep.equal([200, 200]);
    const third = await key.post('/api/functions/metered', {});
    expect(third.status).to.equal(503);
    expect(third.body.code).to.equal('FUNCTION_QUOTA_EXHAUSTED');
    expect(third.body.message).to.match(/2 function invocations of this month are used up/);
    expect(Number(third.headers.get('retry-after'))).to.be.within(1, 32 * 24 * 3600);
    expect(hooks.on('/metered')).to.have.length(2);
  });

  it("applies a function's own calls-a-minute limit (429 with Retry-After), changeable", async () => {
    const fn = await callable('limited', 'public', { rateLimitPerMinute: 2 });
    expect(fn.rateLimitPerMinute).to.equal(2);
    hooks.answer('/limited', { json: 'ok' });
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await publishable.post('/api/functions/limited', {})).status);
    expect(statuses).to.deep.equal([200, 200, 429]);
    const refused = await publishable.post('/api/functions/limited', {});
    expect(refused.status).to.equal(429);
    expect(refused.body.message).to.equal('The function limited takes 2 calls a minute');
    expect(Number(refused.headers.get('retry-after'))).to.be.within(1, 60);
    expect(hooks.on('/limited')).to.have.length(2);
    const lifted = await secret.patch('/api/functions/limited', { rateLimitPerMinute: null });
    expect(lifted.body.data.function.rateLimitPerMinute).to.equal(null);
    expect((await publishable.post('/api/functions/limited', {})).status).to.equal(200);
    expect(
      (
        await secret.post('/api/functions', {
          ...{
            name: 'zero',
            trigger: { type: 'callable', access: 'public' },
            runtime: { type: 'http', url: hooks.url('/z') },
          },
          rateLimitPerMinute: 0,
        })
      ).status,
    ).to.equal(400);
  });
});
