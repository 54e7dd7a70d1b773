// The invocation log as a developer debugs from it, over HTTP: each entry names the request that
// ran it (method, path, operation, collection, document id, caller's key kind and end user) and
// its outcome (a hook's refusal with its message, an error with its message); the log filters by
// status, trigger and time; the stats give runs, failures and p50/p95 duration of the last hour
// and day.
import { expect } from 'chai';
import { startTestApps } from '../helpers/app.js';
import {
  createCollectionFixture,
  createProjectFixture,
  userToken,
  type ProjectFixture,
} from '../helpers/fixtures.js';
import type { ApiClient } from '../helpers/client.js';

const GUARD = `export default async (event, ctx) => {
  ctx.log('checking', event.operation);
  if (event.documents?.[0]?.title === 'no') return { refuse: { status: 400, code: 'NO_TITLE', message: 'A title of "no" is not a title.' } };
  return null;
};`;
const WATCH = `export default async (event, ctx) => { ctx.log('update of', event.documentId); return null; };`;
const BOOM = `export default async (event) => { throw new Error('boom: ' + event.body.why); };`;

interface Entry {
  id: string;
  trigger: string;
  status: string;
  at: string;
  error: { message: string } | null;
  refusal: { status: number; code: string; message: string } | null;
  request: Record<string, string | null> | null;
}

describe('functions: an invocation log to debug from', function () {
  this.timeout(90_000);
  let apps: Awaited<ReturnType<typeof startTestApps>>;
  let fx: ProjectFixture;
  let dash: ApiClient;
  let secret: ApiClient;
  let user: ApiClient;
  const ids: Record<string, string> = {};
  const userId = 'cccccccccccccccccccccccc';

  async function make(name: string, trigger: Record<string, unknown>, code: string) {
    const res = await dash.post(`/api/projects/${fx.project.id}/functions`, {
      name,
      trigger,
      runtime: { type: 'javascript', code },
    });
    expect(res.status, res.text).to.equal(201);
    ids[name] = res.body.data.function.id as string;
  }
  async function log(name: string, query = ''): Promise<Entry[]> {
    await apps.public.services.functions.invoker.flushLog();
    const res = await dash.get(`/api/projects/${fx.project.id}/functions/${ids[name]}/invocations${query}`);
    expect(res.status, res.text).to.equal(200);
    return res.body.data.invocations as Entry[];
  }

  before(async function () {
    this.timeout(120_000);
    apps = await startTestApps('functions_invocation_log');
    fx = await createProjectFixture(apps.dashboard.services);
    await apps.dashboard.services.repos.projects.setLimits(fx.project.id, { functionsPerProject: 10 });
    await createCollectionFixture(apps.dashboard.services, fx.project.id, { name: 'posts' });
    dash = apps.dashboard.client.with({ cookie: fx.cookie });
    secret = apps.public.client.with({ 'x-api-key': fx.secretKey });
    const token = await userToken(apps.public.services, fx.project.id, userId);
    user = apps.public.client.with({ 'x-api-key': fx.publishableKey, authorization: `Bearer ${token}` });
    await make('guard', { type: 'beforeCreate', collection: 'posts' }, GUARD);
    await make('watch', { type: 'beforeUpdate', collection: 'posts' }, WATCH);
    await make('boom', { type: 'callable', access: 'public' }, BOOM);
  });
  after(() => apps?.close());

  it("names a hook's refusal and the request it refused", async () => {
    const refused = await secret.post('/api/data/posts', { title: 'no' });
    expect(refused.status, refused.text).to.equal(400);
    const [entry] = await log('guard');
    expect(entry!.status).to.equal('refused');
    expect(entry!.refusal).to.deep.equal({
      status: 400,
      code: 'NO_TITLE',
      message: 'A title of "no" is not a title.',
    });
    expect(entry!.request).to.deep.include({
      method: 'POST',
      path: '/api/data/posts',
      operation: 'create',
      collection: 'posts',
      keyKind: 'secret',
      userId: null,
    });
  });

  it('names the document an update touched', async () => {
    const made = await secret.post('/api/data/posts', { title: 'yes' });
    expect(made.status, made.text).to.equal(201);
    const docId = (made.body.data._id ?? made.body.data.id) as string;
    const patched = await secret.patch(`/api/data/posts/${docId}`, { title: 'still yes' });
    expect(patched.status, patched.text).to.equal(200);
    const [entry] = await log('watch');
    expect(entry!.status).to.equal('ok');
    expect(entry!.request).to.deep.include({
      method: 'PATCH',
      path: `/api/data/posts/${docId}`,
      operation: 'update',
      collection: 'posts',
      documentId: docId,
    });
  });

  it("names the end user and the key of a callable's caller, and its error", async () => {
    const res = await user.post('/api/functions/boom', { why: 'no reason' });
    expect(res.status, res.text).to.equal(502);
    const [entry] = await log('boom');
    expect(entry!.status).to.equal('error');
    expect(entry!.error!.message).to.include('boom: no reason');
    expect(entry!.request).to.deep.include({
      method: 'POST',
      path: '/api/functions/boom',
      keyKind: 'publishable',
      userId,
      collection: null,
    });
  });

  it('filters by status, trigger and time', async () => {
    const before = new Date(Date.now() - 1000).toISOString();
    expect((await log('guard', '?status=refused')).map((e) => e.status)).to.deep.equal(['refused']);
    const created = (await log('guard', '?status=ok')).map((e) => e.status);
    expect(created).to.deep.equal(['ok']);
    expect(await log('guard', '?status=failed')).to.deep.equal([]);
    expect(await log('boom', '?status=failed')).to.have.length(1);
    expect(await log('guard', '?trigger=callable')).to.deep.equal([]);
    expect(await log('guard', '?trigger=beforeCreate')).to.have.length(2);
    const all = await log('guard');
    const oldest = all[all.length - 1]!.at;
    expect(await log('guard', `?until=${encodeURIComponent(oldest)}`)).to.deep.equal([]);
    expect(await log('guard', `?since=${encodeURIComponent(oldest)}`)).to.have.length(2);
    const future = new Date(Date.now() + 60_000).toISOString();
    expect(await log('guard', `?since=${encodeURIComponent(future)}`)).to.deep.equal([]);
    const bad = await dash.get(
      `/api/projects/${fx.project.id}/functions/${ids.guard}/invocations?since=${encodeURIComponent(future)}&until=${encodeURIComponent(before)}`,
    );
    expect(bad.status).to.equal(400);
    const wrong = await dash.get(
      `/api/projects/${fx.project.id}/functions/${ids.guard}/invocations?status=fine`,
    );
    expect(wrong.status).to.equal(400);
  });

  it('counts runs and failures with p50/p95 duration over the last hour and day', async () => {
    for (let i = 0; i < 3; i++)
      expect((await user.post('/api/functions/boom', { why: `${i}` })).status).to.equal(502);
    // The public role writes its entries in batches, at most about 200 ms later.
    await apps.public.services.functions.invoker.flushLog();
    const res = await dash.get(`/api/projects/${fx.project.id}/functions/${ids.boom}/invocations/stats`);
    expect(res.status, res.text).to.equal(200);
    const { lastHour, lastDay } = res.body.data;
    expect(lastHour).to.deep.include({ count: 4, errors: 4, byStatus: { error: 4 } });
    expect(lastDay.count).to.equal(4);
    const durations = (await log('boom'))
      .map((e) => (e as unknown as { durationMs: number }).durationMs)
      .sort((a, b) => a - b);
    expect(lastHour.p50Ms).to.equal(durations[1]);
    expect(lastHour.p95Ms).to.equal(durations[3]);
    const guard = await dash.get(`/api/projects/${fx.project.id}/functions/${ids.guard}/invocations/stats`);
    expect(guard.body.data.lastHour).to.deep.include({
      count: 2,
      errors: 0,
      byStatus: { ok: 1, refused: 1 },
    });

    const other = await createProjectFixture(apps.dashboard.services);
    const stranger = apps.dashboard.client.with({ cookie: other.cookie });
    const hidden = await stranger.get(
      `/api/projects/${fx.project.id}/functions/${ids.boom}/invocations/stats`,
    );
    expect(hidden.status).to.equal(404);
    const none = await dash.get(
      `/api/projects/${fx.project.id}/functions/${'a'.repeat(24)}/invocations/stats`,
    );
    expect(none.status).to.equal(404);
    const malformed = await dash.get(`/api/projects/${fx.project.id}/functions/xyz/invocations/stats`);
    expect(malformed.status).to.equal(400);
    const anonymous = await apps.dashboard.client.get(
      `/api/projects/${fx.project.id}/functions/${ids.boom}/invocations/stats`,
    );
    expect(anonymous.status).to.equal(401);
  });
});
