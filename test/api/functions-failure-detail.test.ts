// What a function's failure tells whom, over HTTP: an anonymous caller (the publishable key, with
// or without an end user) reads that the function failed and the invocation's id, never the
// endpoint's address, its error or its answer body; the developer reads those in the invocation
// log under that id; the project's own servers (the secret key) still get the detail.
import { expect } from 'chai';
import { startTestApps } from '../helpers/app.js';
import {
  createCollectionFixture,
  createProjectFixture,
  userToken,
  type ProjectFixture,
} from '../helpers/fixtures.js';
import type { ApiClient } from '../helpers/client.js';
import { startHookReceiver, type HookReceiver } from '../helpers/hook-receiver.js';

describe('functions: failures are told to the developer, not to anonymous callers', function () {
  this.timeout(60_000);
  let apps: Awaited<ReturnType<typeof startTestApps>>;
  let fx: ProjectFixture;
  let dash: ApiClient;
  let secret: ApiClient;
  let publishable: ApiClient;
  let user: ApiClient;
  let hooks: HookReceiver;

  async function register(name: string, trigger: Record<string, unknown>, url: string) {
    const res = await secret.post('/api/functions', { name, trigger, runtime: { type: 'http', url } });
    expect(res.status, res.text).to.equal(201);
    return res.body.data as { function: { id: string }; signingSecret: string };
  }
  /** The entry of the invocation log with this id, as the developer reads it on the dashboard. */
  async function logEntry(functionId: string, invocationId: string) {
    await apps.public.services.functions.invoker.flushLog();
    const res = await dash.get(`/api/projects/${fx.project.id}/functions/${functionId}/invocations`);
    expect(res.status, res.text).to.equal(200);
    const entry = res.body.data.invocations.find((e: { id: string }) => e.id === invocationId);
    expect(entry, `no log entry ${invocationId}`).to.not.equal(undefined);
    return entry as { status: string; error: { message: string } };
  }

  before(async function () {
    this.timeout(120_000);
    apps = await startTestApps('functions_failure_detail', { ALLOW_PRIVATE_HOSTS: 'true' });
    hooks = await startHookReceiver();
    fx = await createProjectFixture(apps.dashboard.services);
    await apps.dashboard.services.repos.projects.setLimits(fx.project.id, { functionsPerProject: 10 });
    dash = apps.dashboard.client.with({ cookie: fx.cookie });
    secret = apps.public.client.with({ 'x-api-key': fx.secretKey });
    publishable = apps.public.client.with({ 'x-api-key': fx.publishableKey });
    const token = await userToken(apps.public.services, fx.project.id, 'bbbbbbbbbbbbbbbbbbbbbbbb');
    user = publishable.with({ authorization: `Bearer ${token}` });
  });
  after(async () => {
    await apps?.close();
    await hooks?.close();
  });

  it('a callable whose endpoint refuses connections: a generic 502 with the invocation id', async () => {
    const { function: fn } = await register(
      'unreachable',
      { type: 'callable', access: 'public' },
      'http://127.0.0.1:1/internal/hook',
    );
    const res = await publishable.post('/api/functions/unreachable', {});
    expect(res.status).to.equal(502);
    expect(res.body.code).to.equal('FUNCTION_FAILED');
    expect(res.body.message).to.not.match(/ECONNREFUSED|127\.0\.0\.1|internal/);
    expect(res.body.invocationId).to.match(/^[0-9a-f]{24}$/);
    expect(res.body.message).to.include(res.body.invocationId);
    const entry = await logEntry(fn.id, res.body.invocationId);
    expect(entry.status).to.equal('error');
    expect(entry.error.message).to.match(/ECONNREFUSED 127\.0\.0\.1:1/);
    // The project's own servers may read it in the answer.
    const own = await secret.post('/api/functions/unreachable', {});
    expect(own.body.message).to.match(/ECONNREFUSED/);
  });

  it("a callable whose endpoint answers 404: the endpoint's body stays in the log", async () => {
    const made = await register('missing', { type: 'callable', access: 'public' }, hooks.url('/missing'));
    hooks.secret('/missing', made.signingSecret);
    hooks.answer('/missing', {
      status: 404,
      json: { error: 'no route /admin/reset-all on billing-internal' },
    });
    const res = await user.post('/api/functions/missing', {});
    expect(res.status).to.equal(502);
    expect(res.text).to.not.match(/billing-internal|admin|404/);
    const entry = await logEntry(made.function.id, res.body.invocationId);
    expect(entry.error.message).to.match(/answered 404: .*billing-internal/);
  });

  it('a closed before-hook that fails: 503 HOOK_UNAVAILABLE without the detail for an end user', async () => {
    await createCollectionFixture(apps.dashboard.services, fx.project.id, {
      name: 'notes',
      rls: { enabled: true, mode: 'private', ownerField: 'userId' },
    });
    const { function: fn } = await register(
      'notes-check',
      { type: 'beforeCreate', collection: 'notes' },
      'http://127.0.0.1:1/internal/notes',
    );
    const res = await user.post('/api/data/notes', { title: 'x' });
    expect(res.status, res.text).to.equal(503);
    expect(res.body.code).to.equal('HOOK_UNAVAILABLE');
    expect(res.body.message).to.not.match(/ECONNREFUSED|127\.0\.0\.1|internal/);
    const entry = await logEntry(fn.id, res.body.invocationId);
    expect(entry.error.message).to.match(/ECONNREFUSED/);
    expect((await secret.post('/api/data/notes', { title: 'x' })).body.message).to.match(/ECONNREFUSED/);
  });
});
