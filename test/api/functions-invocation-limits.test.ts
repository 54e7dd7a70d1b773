// The per-invocation caps of hosted code as plan limits, over HTTP on the real stack: the calls to
// `ctx.db` (`functionDbCallsPerInvocation`) and the captured log (`functionLogBytesPerInvocation`)
// follow the owner's plan (Free 50 and 16 KiB, Pro 200 and 64 KiB) and the operator's override of
// one project, which is refused outside its bounds.
import { expect } from 'chai';
import { startTestApps } from '../helpers/app.js';
import { createCollectionFixture, createProjectFixture, type ProjectFixture } from '../helpers/fixtures.js';
import type { ApiClient } from '../helpers/client.js';

/** Makes `event.body.calls` ctx.db calls, each answered by its count or its refusal. */
const DB_CALLS = `export default async (event, ctx) => {
  const out = [];
  for (let i = 0; i < event.body.calls; i++) {
    try { out.push(await ctx.db.count('notes')); } catch (err) { out.push(err.message); }
  }
  return out;
}`;

/** Writes `event.body.lines` lines of 100 bytes to its log. */
const LOGGER = `export default async (event) => {
  for (let i = 0; i < event.body.lines; i++) console.log('x'.repeat(100));
  return event.body.lines;
}`;

describe('functions: the per-invocation caps of hosted code are plan limits', function () {
  this.timeout(60_000);
  let apps: Awaited<ReturnType<typeof startTestApps>>;
  let fx: ProjectFixture;
  let operator: ApiClient;
  let dash: ApiClient;
  let secret: ApiClient;
  const ids: Record<string, string> = {};

  const setLimits = async (limits: Record<string, number>) => {
    const res = await operator.put(`/api/admin/projects/${fx.project.id}/limits`, { limits });
    expect(res.status, res.text).to.equal(200);
    return res.body.data.project.limits;
  };
  const setPlan = async (plan: 'free' | 'pro') => {
    const res = await operator.put(`/api/admin/developers/${fx.developer.id}/plan`, { plan });
    expect(res.status, res.text).to.equal(200);
  };
  const call = async (name: string, body: Record<string, unknown>) => {
    const res = await secret.post(`/api/functions/${name}`, body);
    expect(res.status, res.text).to.equal(200);
    return res.body.data;
  };
  /** The log lines of the function's latest invocation, as the invocation log answers them. */
  const lastLog = async (name: string): Promise<{ level: string; message: string }[]> => {
    await apps.public.services.functions.invoker.flushLog();
    const res = await dash.get(`/api/projects/${fx.project.id}/functions/${ids[name]}/invocations`);
    expect(res.status, res.text).to.equal(200);
    const [latest] = res.body.data.invocations;
    expect(latest.status).to.equal('ok');
    return latest.logs;
  };
  const bytes = (lines: { message: string }[]) =>
    lines.reduce((n, line) => n + Buffer.byteLength(line.message), 0);

  before(async function () {
    this.timeout(120_000);
    apps = await startTestApps('functions_invocation_limits');
    // The first account of an installation is the operator.
    const op = await createProjectFixture(apps.dashboard.services, 'Operator');
    operator = apps.dashboard.client.with({ cookie: op.cookie });
    fx = await createProjectFixture(apps.dashboard.services, 'Tenant');
    dash = apps.dashboard.client.with({ cookie: fx.cookie });
    secret = apps.public.client.with({ 'x-api-key': fx.secretKey });
    await createCollectionFixture(apps.public.services, fx.project.id, { name: 'notes' });
    for (const [name, code] of Object.entries({ 'db-calls': DB_CALLS, logger: LOGGER })) {
      const res = await dash.post(`/api/projects/${fx.project.id}/functions`, {
        name,
        trigger: { type: 'callable', access: 'secret' },
        runtime: { type: 'javascript', code },
      });
      expect(res.status, res.text).to.equal(201);
      ids[name] = res.body.data.function.id;
    }
  });
  after(async () => {
    await apps?.close();
  });

  it('states the caps in the plans: Free 50 calls and 16 KiB, Pro 200 calls and 64 KiB', async () => {
    const res = await dash.get('/api/plans');
    expect(res.status).to.equal(200);
    const limits = Object.fromEntries(
      res.body.data.plans.map((p: { name: string; limits: Record<string, number> }) => [
        p.name,
        [p.limits.functionDbCallsPerInvocation, p.limits.functionLogBytesPerInvocation],
      ]),
    );
    expect(limits).to.deep.equal({ free: [50, 16384], pro: [200, 65536] });
    const project = await dash.get(`/api/projects/${fx.project.id}`);
    expect(project.body.data.project.limits).to.include({
      functionDbCallsPerInvocation: 50,
      functionLogBytesPerInvocation: 16384,
    });
  });

  it('refuses the ctx.db calls past the operator’s functionDbCallsPerInvocation', async () => {
    expect(await call('db-calls', { calls: 5 })).to.deep.equal([0, 0, 0, 0, 0]);
    expect(await setLimits({ functionDbCallsPerInvocation: 3 })).to.include({
      functionDbCallsPerInvocation: 3,
    });
    const refused = 'ctx.db: at most 3 calls per invocation';
    expect(await call('db-calls', { calls: 5 })).to.deep.equal([0, 0, 0, refused, refused]);
    // Each invocation counts its own calls.
    expect(await call('db-calls', { calls: 3 })).to.deep.equal([0, 0, 0]);
    // None at all.
    await setLimits({ functionDbCallsPerInvocation: 0 });
    expect(await call('db-calls', { calls: 1 })).to.deep.equal(['ctx.db: at most 0 calls per invocation']);
    // Without the override the plan's 50 apply again; on Pro, 200.
    await setLimits({});
    expect(await call('db-calls', { calls: 51 })).to.deep.equal([
      ...Array(50).fill(0),
      'ctx.db: at most 50 calls per invocation',
    ]);
    await setPlan('pro');
    try {
      expect(await call('db-calls', { calls: 51 })).to.deep.equal(Array(51).fill(0));
    } finally {
      await setPlan('free');
    }
  });

  it('cuts the invocation log at the operator’s functionLogBytesPerInvocation, marked', async () => {
    // Free: 16 KiB, as before the cap was a plan limit.
    await call('logger', { lines: 200 });
    const free = await lastLog('logger');
    expect(free.at(-1)).to.deep.include({ level: 'warn', message: '[log truncated at 16384 bytes]' });
    expect(bytes(free.slice(0, -1))).to.equal(163 * 100);

    await setLimits({ functionLogBytesPerInvocation: 2048 });
    expect(await call('logger', { lines: 50 })).to.equal(50);
    const cut = await lastLog('logger');
    expect(cut).to.have.length(21);
    expect(cut.slice(0, -1).every((line) => line.message === 'x'.repeat(100))).to.equal(true);
    expect(bytes(cut.slice(0, -1))).to.be.at.most(2048);
    expect(cut.at(-1)).to.deep.include({ level: 'warn', message: '[log truncated at 2048 bytes]' });

    // A log within the cap is kept whole, unmarked.
    await call('logger', { lines: 20 });
    const whole = await lastLog('logger');
    expect(whole).to.have.length(20);
    expect(bytes(whole)).to.equal(2000);

    // Pro, without the override: 64 KiB.
    await setLimits({});
    await setPlan('pro');
    try {
      await call('logger', { lines: 200 });
      expect(await lastLog('logger')).to.have.length(200);
    } finally {
      await setPlan('free');
    }
  });

  it('refuses an override outside the bounds with a 400 naming the limit', async () => {
    const refused = async (limits: Record<string, number>, message: string) => {
      const res = await operator.put(`/api/admin/projects/${fx.project.id}/limits`, { limits });
      expect(res.status, res.text).to.equal(400);
      expect(res.body.message).to.equal(message);
    };
    await refused(
      { functionLogBytesPerInvocation: 1023 },
      'Validation failed: limits.functionLogBytesPerInvocation must be >= 1024',
    );
    await refused(
      { functionLogBytesPerInvocation: 1024 * 1024 + 1 },
      'Validation failed: limits.functionLogBytesPerInvocation must be <= 1048576',
    );
    await refused(
      { functionDbCallsPerInvocation: -1 },
      'Validation failed: limits.functionDbCallsPerInvocation must be >= 0',
    );
    await refused(
      { functionDbCallsPerInvocation: 2.5 },
      'Validation failed: limits.functionDbCallsPerInvocation must be an integer',
    );
    // Nothing was stored: the plan's limits are in force.
    const project = await dash.get(`/api/projects/${fx.project.id}`);
    expect(project.body.data.project.limits).to.include({
      functionDbCallsPerInvocation: 50,
      functionLogBytesPerInvocation: 16384,
    });
    // The bounds themselves are accepted.
    expect(await setLimits({ functionLogBytesPerInvocation: 1024 })).to.include({
      functionLogBytesPerInvocation: 1024,
    });
    expect(await setLimits({ functionLogBytesPerInvocation: 1024 * 1024 })).to.include({
      functionLogBytesPerInvocation: 1024 * 1024,
    });
    await setLimits({});
  });
});
