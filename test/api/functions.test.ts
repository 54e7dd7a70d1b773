// Hooks and functions on the dashboard: create (the signing secret once), list, read, update as
// immutable versions with their SHA-256 (20 kept), rollback, delete; the trigger and runtime
// rules, restricted targets, env secrets write-only and sealed, the plan limits (also under
// concurrent creates), one synchronous hook per trigger and collection, and the 400/401/404s.
import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { startTestApps } from '../helpers/app.js';
import {
  createCollectionFixture,
  createDeveloper,
  createProjectFixture,
  type ProjectFixture,
} from '../helpers/fixtures.js';
import type { ApiClient } from '../helpers/client.js';

describe('functions: management (dashboard)', () => {
  let apps: Awaited<ReturnType<typeof startTestApps>>;
  let fx: ProjectFixture;
  let dash: ApiClient;
  const base = (f: ProjectFixture = fx) => `/api/projects/${f.project.id}/functions`;
  // A public address literal: targets are checked as in production (no ALLOW_PRIVATE_HOSTS).
  const httpHook = {
    name: 'checkPost',
    trigger: { type: 'beforeCreate', collection: 'posts' },
    runtime: { type: 'http', url: 'https://93.184.215.14/hook' },
  };
  const jsFn = (name: string, code = 'export default async () => 1') => ({
    name,
    trigger: { type: 'callable', access: 'public' },
    runtime: { type: 'javascript', code },
  });

  before(async () => {
    apps = await startTestApps('functions_manage');
    const op = await createDeveloper(apps.dashboard.services);
    const operator = apps.dashboard.client.with({ cookie: op.cookie });
    fx = await createProjectFixture(apps.dashboard.services);
    await operator.put(`/api/admin/developers/${fx.developer.id}/plan`, { plan: 'pro' });
    await createCollectionFixture(apps.dashboard.services, fx.project.id, { name: 'posts' });
    await createCollectionFixture(apps.dashboard.services, fx.project.id, { name: 'comments' });
    dash = apps.dashboard.client.with({ cookie: fx.cookie });
  });
  after(() => apps?.close());

  it('creates an HTTP hook, shows its signing secret once and never again', async () => {
    const res = await dash.post(base(), { ...httpHook, env: { API_TOKEN: 'tok-123456789' } });
    expect(res.status, res.text).to.equal(201);
    expect(res.body.data.signingSecret).to.match(/^whsec_[A-Za-z0-9+/=]{40,}$/);
    const fn = res.body.data.function;
    expect(fn).to.deep.include({
      name: 'checkPost',
      enabled: true,
      trigger: { type: 'beforeCreate', collection: 'posts' },
      runtime: { type: 'http', url: 'https://93.184.215.14/hook' },
      failurePolicy: 'closed',
      version: 1,
      latestVersion: 1,
      codeHash: null,
      env: ['API_TOKEN'],
    });
    expect(fn.sha256).to.match(/^[0-9a-f]{64}$/);
    const one = await dash.get(`${base()}/${fn.id}`);
    expect(one.status).to.equal(200);
    expect(one.text).not.to.include(res.body.data.signingSecret).and.not.include('tok-123456789');
    const list = await dash.get(base());
    expect(list.body.data.functions.map((f: any) => f.id)).to.include(fn.id);
    expect(list.text).not.to.include('whsec_');
    const stored = await apps.dashboard.deps.db.platform
      .collection('functions')
      .findOne({ name: 'checkPost' });
    expect(JSON.stringify(stored)).not.to.include('tok-123456789');
    expect(JSON.stringify(stored)).not.to.include(res.body.data.signingSecret.slice(6));
    await dash.delete(`${base()}/${fn.id}`);
  });

  it('writes each changed definition as an immutable version, keeps 20, and rolls back', async () => {
    const code = (n: number) => `export default async () => ${n}`;
    const created = await dash.post(base(), jsFn('versioned', code(1)));
    expect(created.status, created.text).to.equal(201);
    expect(created.body.data.signingSecret).to.equal(null);
    const id = created.body.data.function.id;
    expect(created.body.data.function.codeHash).to.equal(createHash('sha256').update(code(1)).digest('hex'));
    // The same definition again, or a change of enabled/env only, writes no version.
    const same = await dash.patch(`${base()}/${id}`, { runtime: { type: 'javascript', code: code(1) } });
    expect(same.body.data.function.latestVersion).to.equal(1);
    const toggled = await dash.patch(`${base()}/${id}`, { enabled: false, env: { A: 'x' } });
    expect(toggled.body.data.function).to.deep.include({ latestVersion: 1, enabled: false, env: ['A'] });
    for (let n = 2; n <= 22; n++) {
      const res = await dash.patch(`${base()}/${id}`, { runtime: { type: 'javascript', code: code(n) } });
      expect(res.status, res.text).to.equal(200);
      expect(res.body.data.function).to.include({ version: n, latestVersion: n });
    }
    const versions = (await dash.get(`${base()}/${id}/versions`)).body.data.versions;
    expect(versions).to.have.length(20);
    expect(versions.map((v: any) => v.version)).to.deep.equal(Array.from({ length: 20 }, (_, i) => 22 - i));
    expect(versions[0]).to.include({ active: true });
    expect(versions[0].runtime.code).to.equal(code(22));
    expect(new Set(versions.map((v: any) => v.sha256)).size).to.equal(20);
    // Version 1 and 2 are gone; 3 is kept and becomes active again.
    const gone = await dash.post(`${base()}/${id}/versions/2/activate`);
    expect(gone.status).to.equal(404);
    expect(gone.body.code).to.equal('VERSION_NOT_FOUND');
    const back = await dash.post(`${base()}/${id}/versions/3/activate`);
    expect(back.status, back.text).to.equal(200);
    expect(back.body.data.function).to.deep.include({ version: 3, latestVersion: 22 });
    expect(back.body.data.function.runtime.code).to.equal(code(3));
    expect(back.body.data.function.sha256).to.equal(versions.find((v: any) => v.version === 3).sha256);
    const after = (await dash.get(`${base()}/${id}/versions`)).body.data.versions;
    expect(after.filter((v: any) => v.active).map((v: any) => v.version)).to.deep.equal([3]);
    // Removing a secret by null; the rest stay.
    const env = await dash.patch(`${base()}/${id}`, { env: { A: null, B: 'y' } });
    expect(env.body.data.function.env).to.deep.equal(['B']);
    expect((await dash.delete(`${base()}/${id}`)).status).to.equal(200);
    expect((await dash.get(`${base()}/${id}`)).status).to.equal(404);
    expect((await dash.delete(`${base()}/${id}`)).status).to.equal(404);
  });

  it('refuses bad triggers, runtimes and secrets with a 400 naming the field', async () => {
    const big = 'x'.repeat(256 * 1024 + 1);
    const cases: [unknown, RegExp][] = [
      [
        { ...httpHook, runtime: { type: 'http', url: 'http://93.184.215.14/h' } },
        /^The hook URL \(runtime\.url\) is refused\. Use an https/,
      ],
      [{ ...httpHook, runtime: { type: 'http', url: 'https://u:p@93.184.215.14/h' } }, /credentials/],
      [{ ...httpHook, runtime: { type: 'http', url: 'https://127.0.0.1/h' } }, /restricted host/],
      [{ ...httpHook, runtime: { type: 'http', url: 'https://169.254.169.254/latest' } }, /restricted host/],
      [{ ...httpHook, runtime: { type: 'http', url: 'https://[::ffff:10.0.0.1]/h' } }, /restricted host/],
      [{ ...httpHook, runtime: { type: 'http', url: 'https://localhost:8443/h' } }, /restricted host/],
      [{ ...httpHook, trigger: { type: 'beforeCreate' } }, /trigger.collection is required/],
      [{ ...httpHook, trigger: { type: 'beforeCreate', collection: 'nope' } }, /names no collection/],
      [{ ...httpHook, trigger: { type: 'afterCreate', collection: 'users' } }, /cannot be users/],
      [{ ...httpHook, trigger: { type: 'callable' } }, /trigger.access is required/],
      [
        { ...httpHook, trigger: { type: 'callable', access: 'public', collection: 'posts' } },
        /only for collection/,
      ],
      [{ ...httpHook, trigger: { type: 'tokenClaims', access: 'user' } }, /only for callable/],
      [{ ...httpHook, trigger: { type: 'schedule' } }, /trigger.cron is required/],
      [{ ...httpHook, trigger: { type: 'schedule', cron: '* * * * * *' } }, /five fields/],
      [{ ...httpHook, trigger: { type: 'schedule', cron: '99 * * * *' } }, /not a cron expression/],
      [{ ...httpHook, trigger: { type: 'schedule', cron: '*/1 * * * *', extra: 1 } }, /extra/],
      [{ ...jsFn('big', big) }, /runtime.code is 262145 bytes; the plan allows 262144/],
      [{ ...httpHook, env: { 'bad-name': 'x' } }, /not a secret name/],
      [{ ...httpHook, env: { LONG: 'x'.repeat(4097) } }, /4096/],
      [{ ...httpHook, name: '1abc' }, /name/],
      [{ ...httpHook, failurePolicy: 'maybe' }, /failurePolicy/],
    ];
    for (const [body, message] of cases) {
      const res = await dash.post(base(), body);
      expect(res.status, JSON.stringify(body).slice(0, 200)).to.equal(400);
      expect(res.body.message, JSON.stringify(body).slice(0, 200)).to.match(message);
    }
    expect((await dash.get(base())).body.data.functions).to.have.length(0);
  });

  it('holds the cron interval to the plan (Free: hourly; Pro: every minute)', async () => {
    const free = await createProjectFixture(apps.dashboard.services);
    const client = apps.dashboard.client.with({ cookie: free.cookie });
    const every = (cron: string) => ({ ...jsFn('tick'), trigger: { type: 'schedule', cron } });
    const tight = await client.post(base(free), every('*/30 * * * *'));
    expect(tight.status).to.equal(400);
    expect(tight.body.message).to.equal(
      "trigger.cron runs every 1800 s; the plan's shortest interval is 3600 s",
    );
    expect((await client.post(base(free), every('0 * * * *'))).status).to.equal(201);
    const pro = await dash.post(base(), every('* * * * *'));
    expect(pro.status, pro.text).to.equal(201);
    expect(pro.body.data.function.trigger).to.deep.equal({ type: 'schedule', cron: '* * * * *' });
    await dash.delete(`${base()}/${pro.body.data.function.id}`);
  });

  it('allows one synchronous hook per trigger and collection, and unique names', async () => {
    const first = await dash.post(base(), httpHook);
    expect(first.status).to.equal(201);
    const again = await dash.post(base(), { ...httpHook, name: 'second' });
    expect(again.status).to.equal(409);
    expect(again.body).to.include({
      code: 'HOOK_EXISTS',
      message: 'The project already has a beforeCreate hook on posts',
    });
    const sameName = await dash.post(base(), {
      ...httpHook,
      trigger: { type: 'beforeUpdate', collection: 'posts' },
    });
    expect(sameName.status).to.equal(409);
    expect(sameName.body.code).to.equal('FUNCTION_EXISTS');
    // Another collection, and after-triggers, are free.
    const other = await dash.post(base(), {
      ...httpHook,
      name: 'second',
      trigger: { type: 'beforeCreate', collection: 'comments' },
    });
    expect(other.status).to.equal(201);
    // Moving the second onto the first's trigger is the same conflict.
    const moved = await dash.patch(`${base()}/${other.body.data.function.id}`, { trigger: httpHook.trigger });
    expect(moved.status).to.equal(409);
    expect(moved.body.code).to.equal('HOOK_EXISTS');
    // Rolling back to a version whose trigger another hook holds now is the same conflict.
    const movedAway = await dash.patch(`${base()}/${other.body.data.function.id}`, {
      trigger: { type: 'afterCreate', collection: 'comments' },
    });
    expect(movedAway.status, movedAway.text).to.equal(200);
    const taker = await dash.post(base(), {
      ...httpHook,
      name: 'taker',
      trigger: { type: 'beforeCreate', collection: 'comments' },
    });
    expect(taker.status).to.equal(201);
    const rollback = await dash.post(`${base()}/${other.body.data.function.id}/versions/1/activate`);
    expect(rollback.status).to.equal(409);
    expect(rollback.body.code).to.equal('HOOK_EXISTS');
    const afters = await Promise.all(
      ['a1', 'a2'].map((name) =>
        dash.post(base(), { ...httpHook, name, trigger: { type: 'afterCreate', collection: 'posts' } }),
      ),
    );
    expect(afters.map((r) => r.status)).to.deep.equal([201, 201]);
    for (const f of (await dash.get(base())).body.data.functions) await dash.delete(`${base()}/${f.id}`);
  });

  it('enforces the functions-per-project limit (Free 5) without a race, and counts env secrets', async () => {
    const free = await createProjectFixture(apps.dashboard.services);
    const client = apps.dashboard.client.with({ cookie: free.cookie });
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) => client.post(base(free), jsFn(`f${i}`))),
    );
    expect(results.filter((r) => r.status === 201)).to.have.length(5);
    const refused = results.filter((r) => r.status === 403);
    expect(refused).to.have.length(3);
    expect(refused[0]!.body).to.include({
      code: 'PLAN_LIMIT',
      message: "Plan limit reached: this project's plan allows 5 functions",
    });
    const one = results.find((r) => r.status === 201)!.body.data.function.id;
    expect((await client.delete(`${base(free)}/${one}`)).status).to.equal(200);
    const env = Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`S${i}`, 'v']));
    const tooMany = await client.post(base(free), { ...jsFn('secrets'), env });
    expect(tooMany.status).to.equal(400);
    expect(tooMany.body.message).to.equal('env holds 11 secrets; the plan allows 10');
    expect((await client.post(base(free), jsFn('last'))).status).to.equal(201);
    expect((await client.post(base(free), jsFn('over'))).status).to.equal(403);
  });

  it("answers 400 for malformed ids, 401 without a session, 404 for another project or a member's change", async () => {
    const created = await dash.post(base(), jsFn('guarded'));
    const id = created.body.data.function.id;
    const stranger = await createProjectFixture(apps.dashboard.services);
    const other = apps.dashboard.client.with({ cookie: stranger.cookie });
    const calls: [string, string, unknown?][] = [
      ['GET', ''],
      ['POST', '', jsFn('x')],
      ['GET', `/${id}`],
      ['PATCH', `/${id}`, { enabled: true }],
      ['DELETE', `/${id}`],
      ['GET', `/${id}/versions`],
      ['POST', `/${id}/versions/1/activate`],
      ['GET', `/${id}/invocations`],
      ['POST', `/${id}/test`, { event: {} }],
    ];
    for (const [method, path, body] of calls) {
      expect(
        (await other.request(method, `/api/projects/nope/functions${path}`, { body })).status,
        path,
      ).to.equal(400);
      expect(
        (await apps.dashboard.client.request(method, `${base()}${path}`, { body })).status,
        path,
      ).to.equal(401);
      expect((await other.request(method, `${base()}${path}`, { body })).status, path).to.equal(404);
    }
    for (const [method, path, body] of calls.slice(2)) {
      const missing = path.replace(id, '65f1c2a4b7e8d9001234567a');
      expect((await dash.request(method, `${base()}${missing}`, { body })).status, missing).to.equal(404);
    }
    expect((await dash.patch(`${base()}/${id}`, {})).status).to.equal(400);
    expect((await dash.get(`${base()}/nope`)).status).to.equal(400);
    // A member reads; changes are for admins (a member is told the project is not found, as elsewhere).
    const member = await createDeveloper(apps.dashboard.services);
    await apps.dashboard.services.repos.projects.addMember(fx.project.id, member.developer.id, 'member');
    const reader = apps.dashboard.client.with({ cookie: member.cookie });
    for (const [method, path, body] of calls) {
      const expected = method === 'GET' ? 200 : 404;
      expect(
        (await reader.request(method, `${base()}${path}`, { body })).status,
        `${method} ${path}`,
      ).to.equal(expected);
    }
  });
});
