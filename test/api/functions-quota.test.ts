// The month's function invocations as an attacker meets them, over HTTP on the real stack: with
// only the publishable key, a loop on a public callable is stopped by the per-caller budget
// (another caller and the project go on), and so are an end user's writes that queue an
// after-trigger; once the month is spent anyway, a hook is never skipped
// nor an ordinary failure: an `open` and a `closed` hook both refuse the write with 503
// FUNCTION_QUOTA_EXHAUSTED and Retry-After (nothing stored); an open circuit breaker answers 503
// FUNCTION_CIRCUIT_OPEN the same way; the owner is mailed at 80 % and at 100 % once each (SMTP
// sink) and the usage report carries the warning.
import { expect } from 'chai';
import { startTestApps } from '../helpers/app.js';
import { createCollectionFixture, createProjectFixture, userToken } from '../helpers/fixtures.js';
import type { ApiClient } from '../helpers/client.js';
import { startHookReceiver, type HookReceiver } from '../helpers/hook-receiver.js';
import { mailbox } from '../helpers/mail.js';
import { decodeHeader, mimeParts } from '../helpers/mime.js';

/** A mail as its reader sees it: the decoded subject and text. */
const read = (mail: { raw: string }) => {
  const parts = mimeParts(mail.raw);
  return { subject: decodeHeader(parts.headers.subject ?? ''), text: parts.text ?? '' };
};

const from = (ip: string) => ({ 'x-forwarded-for': ip });

describe('functions: the month is no off switch for hooks', function () {
  this.timeout(60_000);
  let apps: Awaited<ReturnType<typeof startTestApps>>;
  let operator: ApiClient;
  let hooks: HookReceiver;

  /** A tenant project with a public HTTP callable `ping` and the given operator limits. */
  async function tenant(limits: Record<string, number>) {
    const fx = await createProjectFixture(apps.dashboard.services, 'Tenant');
    const res = await operator.put(`/api/admin/projects/${fx.project.id}/limits`, {
      limits: { functionsPerProject: 10, ...limits },
    });
    expect(res.status, res.text).to.equal(200);
    const t = {
      fx,
      dash: apps.dashboard.client.with({ cookie: fx.cookie }),
      secret: apps.public.client.with({ 'x-api-key': fx.secretKey }),
      publishable: (ip: string) => apps.public.client.with({ 'x-api-key': fx.publishableKey, ...from(ip) }),
      /** Registers an HTTP function on the receiver's `path`, answering `{}` unless told otherwise. */
      async register(name: string, trigger: Record<string, unknown>, extra: Record<string, unknown> = {}) {
        const path = `/${fx.project.id}/${name}`;
        const made = await t.secret.post('/api/functions', {
          name,
          trigger,
          runtime: { type: 'http', url: hooks.url(path) },
          ...extra,
        });
        expect(made.status, made.text).to.equal(201);
        hooks.secret(path, made.body.data.signingSecret);
        return path;
      },
    };
    return t;
  }

  before(async function () {
    this.timeout(120_000);
    apps = await startTestApps('functions_quota', {
      ALLOW_PRIVATE_HOSTS: 'true',
      TRUST_PROXY: 'true',
      HOOK_BREAKER_FAILURES: '2',
      HOOK_BREAKER_COOLDOWN_MS: '30000',
    });
    hooks = await startHookReceiver();
    // The first account of an installation is the operator.
    const op = await createProjectFixture(apps.dashboard.services, 'Operator');
    operator = apps.dashboard.client.with({ cookie: op.cookie });
  });
  after(async () => {
    await apps?.close();
    await hooks?.close();
  });

  it('stops one caller at its budget of the day; another caller and the secret key go on', async () => {
    const t = await tenant({ functionInvocationsPerCallerPerDay: 3 });
    const ping = await t.register('ping', { type: 'callable', access: 'public' });
    hooks.answer(ping, { json: 'pong' });
    const attacker = t.publishable('203.0.113.7');
    const statuses: number[] = [];
    let refused;
    for (let i = 0; i < 6; i++) {
      const res = await attacker.post('/api/functions/ping', {});
      statuses.push(res.status);
      if (res.status !== 200) refused = res;
    }
    expect(statuses).to.deep.equal([200, 200, 200, 429, 429, 429]);
    expect(refused!.body.code).to.equal('FUNCTION_QUOTA_EXHAUSTED');
    // One token of a 3-a-day bucket comes back in 8 hours.
    expect(Number(refused!.headers.get('retry-after'))).to.be.within(60, 8 * 3600);
    // Refused before anything ran: the endpoint saw three calls.
    expect(hooks.on(ping)).to.have.length(3);
    // Another address, and the project's own servers, are not held by the attacker's budget.
    const other = await t.publishable('198.51.100.9').post('/api/functions/ping', {});
    expect(other.status, other.text).to.equal(200);
    for (let i = 0; i < 5; i++) expect((await t.secret.post('/api/functions/ping', {})).status).to.equal(200);
    // The published limit is the plan's; the operator's override is what holds here.
    const project = await t.dash.get(`/api/projects/${t.fx.project.id}`);
    expect(project.body.data.project.limits.functionInvocationsPerCallerPerDay).to.equal(3);
    const plans = await t.dash.get('/api/plans');
    expect(
      plans.body.data.plans.map(
        (p: { limits: Record<string, number> }) => p.limits.functionInvocationsPerCallerPerDay,
      ),
    ).to.deep.equal([1000, 20000]);
  });

  it("counts an end user's writes that queue an after-trigger, refused before anything is written", async () => {
    const t = await tenant({ functionInvocationsPerCallerPerDay: 2 });
    await createCollectionFixture(apps.dashboard.services, t.fx.project.id, {
      name: 'orders',
      rls: { enabled: true, mode: 'private', ownerField: 'userId' },
    });
    await t.register('audit', { type: 'afterCreate', collection: 'orders' });
    const tokenOf = (id: string) => userToken(apps.public.services, t.fx.project.id, id);
    const mallory = t.publishable('203.0.113.80').with({
      authorization: `Bearer ${await tokenOf('cccccccccccccccccccccccc')}`,
    });
    const statuses = [];
    for (let i = 0; i < 4; i++)
      statuses.push((await mallory.post('/api/data/orders', { title: `o${i}` })).status);
    expect(statuses).to.deep.equal([201, 201, 429, 429]);
    const refused = await mallory.post('/api/data/orders', { title: 'late' });
    expect(refused.body.code).to.equal('FUNCTION_QUOTA_EXHAUSTED');
    expect(Number(refused.headers.get('retry-after'))).to.be.above(0);
    const stored = (await t.secret.get('/api/data/orders')).body.data.map((d: { title: string }) => d.title);
    expect(stored.sort()).to.deep.equal(['o0', 'o1']);
    // Another end user, and the secret key, still write.
    const alice = t.publishable('203.0.113.81').with({
      authorization: `Bearer ${await tokenOf('dddddddddddddddddddddddd')}`,
    });
    expect((await alice.post('/api/data/orders', { title: 'a' })).status).to.equal(201);
    expect((await t.secret.post('/api/data/orders', { title: 's', userId: 'x' })).status).to.equal(201);
  });

  it('once the month is spent, an open and a closed hook refuse with 503 FUNCTION_QUOTA_EXHAUSTED; mail at 80 % and 100 %', async () => {
    const t = await tenant({ functionInvocationsPerMonth: 10 });
    const owner = mailbox(t.fx.developer.email);
    await owner.skipExisting();
    for (const name of ['checked', 'strict'])
      await createCollectionFixture(apps.dashboard.services, t.fx.project.id, { name });
    // The check the attacker wants off: no title "spam".
    const noSpam = (event: { documents: { title?: string }[] }) => ({
      json: event.documents.some((d) => d.title === 'spam')
        ? { refuse: { status: 400, code: 'SPAM', message: 'No spam' } }
        : {},
    });
    hooks.answer(
      await t.register('checked', { type: 'beforeCreate', collection: 'checked' }, { failurePolicy: 'open' }),
      noSpam,
    );
    hooks.answer(await t.register('strict', { type: 'beforeCreate', collection: 'strict' }), noSpam);
    const ping = await t.register('ping', { type: 'callable', access: 'public' });
    hooks.answer(ping, { json: 'pong' });
    expect((await t.secret.post('/api/data/checked', { title: 'spam' })).body.code).to.equal('HOOK_SPAM');

    const usage = async () => {
      const res = await t.dash.get(`/api/projects/${t.fx.project.id}/usage`);
      expect(res.status, res.text).to.equal(200);
      return res.body.data.warnings as { percent: number; used: number; limit: number; message: string }[];
    };
    expect(await usage()).to.deep.equal([]);
    // The attack: a public callable in a loop, from many addresses, with the publishable key. One
    // run above was the hook's; seven more make 8 of 10, the 80 % mark.
    for (let i = 0; i < 7; i++)
      expect((await t.publishable(`192.0.2.${i + 1}`).post('/api/functions/ping', {})).status).to.equal(200);
    const eighty = read(await owner.next(10_000));
    expect(eighty.subject).to.equal("Your project has used 80 % of this month's function invocations");
    expect(eighty.text).to.include(t.fx.project.id);
    expect(eighty.text).to.include('8 of 10');
    const warned = await usage();
    expect(warned).to.have.length(1);
    expect(warned[0]).to.include({
      limitName: 'functionInvocationsPerMonth',
      percent: 80,
      used: 8,
      limit: 10,
    });
    expect(warned[0]!.message).to.match(/^80 % of this month's function invocations are used \(8 of 10\)/);
    for (let i = 0; i < 6; i++) await t.publishable(`192.0.2.${i + 20}`).post('/api/functions/ping', {});
    const hundred = read(await owner.next(10_000));
    expect(hundred.subject).to.equal("Your project's function invocations for this month are used up");
    expect(hundred.text).to.include('10 of 10');
    const [full] = await usage();
    expect(full).to.include({ percent: 100, used: 10, limit: 10 });
    expect(full!.message).to.match(/used up/);

    // The check is not off: the open hook's write is refused, not stored unchecked.
    const open = await t.secret.post('/api/data/checked', { title: 'spam' });
    expect(open.status, open.text).to.equal(503);
    expect(open.body.code).to.equal('FUNCTION_QUOTA_EXHAUSTED');
    const retry = Number(open.headers.get('retry-after'));
    expect(retry).to.be.within(1, 31 * 24 * 3600);
    const now = new Date();
    const firstOfNext = Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1);
    expect(Math.abs(Date.now() + retry * 1000 - firstOfNext)).to.be.below(120_000);
    expect((await t.secret.get('/api/data/checked')).body.data).to.have.length(0);
    // A closed hook: the same distinct answer, not an ordinary failure (HOOK_UNAVAILABLE).
    const closed = await t.secret.post('/api/data/strict', { title: 'fine' });
    expect(closed.status).to.equal(503);
    expect(closed.body.code).to.equal('FUNCTION_QUOTA_EXHAUSTED');
    expect(Number(closed.headers.get('retry-after'))).to.be.oneOf([retry, retry - 1, retry - 2]);
    expect((await t.secret.get('/api/data/strict')).body.data).to.have.length(0);
    const call = await t.publishable('192.0.2.99').post('/api/functions/ping', {});
    expect(call.status).to.equal(503);
    expect(call.body.code).to.equal('FUNCTION_QUOTA_EXHAUSTED');

    // Each warning was mailed once, however many calls were refused past the limit.
    await new Promise((r) => setTimeout(r, 500));
    const subjects = (await owner.all()).map((m) => read(m).subject);
    expect(subjects.filter((s) => s.includes('80 %'))).to.have.length(1);
    expect(subjects.filter((s) => s.includes('used up'))).to.have.length(1);
    expect(subjects).to.have.length(2);
  });

  it('an open circuit breaker refuses the write under either policy with 503 FUNCTION_CIRCUIT_OPEN', async () => {
    const t = await tenant({});
    await createCollectionFixture(apps.dashboard.services, t.fx.project.id, { name: 'flaky' });
    const path = await t.register(
      'flaky',
      { type: 'beforeCreate', collection: 'flaky' },
      { failurePolicy: 'open' },
    );
    hooks.answer(path, { status: 500 });
    // Ordinary failures under `open`: the writes go on unchanged.
    for (let i = 0; i < 2; i++)
      expect((await t.secret.post('/api/data/flaky', { title: `before ${i}` })).status).to.equal(201);
    const refused = await t.secret.post('/api/data/flaky', { title: 'while open' });
    expect(refused.status, refused.text).to.equal(503);
    expect(refused.body.code).to.equal('FUNCTION_CIRCUIT_OPEN');
    expect(Number(refused.headers.get('retry-after'))).to.be.within(1, 30);
    expect(hooks.on(path)).to.have.length(2);
    const titles = (await t.secret.get('/api/data/flaky')).body.data.map((d: { title: string }) => d.title);
    expect(titles).to.not.include('while open');
    // A callable on an HTTP endpoint behind an open breaker: the same answer.
    const down = await t.register('down', { type: 'callable', access: 'public' });
    hooks.answer(down, { status: 500 });
    const caller = t.publishable('203.0.113.50');
    expect((await caller.post('/api/functions/down', {})).status).to.equal(502);
    expect((await caller.post('/api/functions/down', {})).status).to.equal(502);
    const open = await caller.post('/api/functions/down', {});
    expect(open.status).to.equal(503);
    expect(open.body.code).to.equal('FUNCTION_CIRCUIT_OPEN');
  });
});
