// The plans the operator edits on the Plans page (PUT /api/admin/plans), over HTTP: stored by the
// installation and enforced by every process (two dashboard processes and a public one over one
// platform database), refused to anyone else, bad edits named, and the file (PLANS_FILE) or the
// setting (DEFAULT_PLAN) winning over the page.
import { expect } from 'chai';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startTestApp, suiteDatabase, type TestApp } from '../helpers/app.js';
import type { ApiResponse } from '../helpers/client.js';
import {
  createCollectionFixture,
  createDeveloper,
  createOperator,
  createProjectFixture,
  type ProjectFixture,
} from '../helpers/fixtures.js';
import { UNLIMITED } from '../../src/lib/plans.js';

type Person = Awaited<ReturnType<typeof createDeveloper>>;

/** How often the suite's processes re-read the saved plans (PLANS_REFRESH_MS; 5 s by default). */
const REFRESH_MS = 500;

/**
 * Asks until the answer passes `done`: another process applies a save within REFRESH_MS. The
 * deadline leaves a busy machine room; what the setting changes is shown by a process that waits
 * longer (the last test).
 */
async function eventually(ask: () => Promise<ApiResponse>, done: (res: ApiResponse) => boolean) {
  const until = Date.now() + 10_000;
  for (;;) {
    const res = await ask();
    if (done(res) || Date.now() > until) return res;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

const freeOf = (res: ApiResponse) =>
  (res.body.data.plans as { name: string; limits: Record<string, number | boolean> }[]).find(
    (p) => p.name === 'free',
  )!.limits;

describe('plans edited by the operator (PUT /api/admin/plans)', () => {
  const shared = { PLATFORM_DB: suiteDatabase('admin_plans'), PLANS_REFRESH_MS: String(REFRESH_MS) };
  let saving: TestApp;
  let other: TestApp;
  let publicApp: TestApp;
  let operator: Person;
  let alice: ProjectFixture;
  const as = (app: TestApp, who: { cookie: string }) => app.client.with({ cookie: who.cookie });

  before(async () => {
    saving = await startTestApp('dashboard', 'admin_plans', shared);
    other = await startTestApp('dashboard', 'admin_plans', shared);
    publicApp = await startTestApp('public', 'admin_plans', shared);
    operator = await createOperator(saving.services);
    alice = await createProjectFixture(saving.services);
    await createCollectionFixture(saving.services, alice.project.id, { name: 'posts' });
  });
  after(async () => {
    await publicApp?.close();
    await other?.close();
    await saving?.close();
  });

  it('refuses the edit to another developer (403) and without a session (401)', async () => {
    const edit = { plans: { free: { limits: { projectsPerDeveloper: 50 } } } };
    const refused = await as(saving, alice).put('/api/admin/plans', edit);
    expect(refused.status).to.equal(403);
    expect(refused.body).to.include({ code: 'OPERATOR_ONLY' });
    expect((await saving.client.put('/api/admin/plans', edit)).status).to.equal(401);
    expect(freeOf(await as(saving, alice).get('/api/plans')).projectsPerDeveloper).to.equal(2);
  });

  it('names the field of a bad edit (400) and stores nothing', async () => {
    const cases: [unknown, string, RegExp][] = [
      [
        { plans: { free: { limits: { projectsPerDeveloper: -1 } } } },
        'body.plans.free.limits.projectsPerDeveloper',
        /projectsPerDeveloper must be >= 0/,
      ],
      [
        { plans: { free: { limits: { projectsPerDay: 3 } } } },
        'body.plans.free.limits.projectsPerDay',
        /projectsPerDay is not allowed/,
      ],
      [
        { plans: { free: { limits: { ownAiKey: 'yes' } } } },
        'body.plans.free.limits.ownAiKey',
        /ownAiKey must be a boolean/,
      ],
      [
        { plans: { gold: { limits: { projectsPerDeveloper: 3 } } } },
        'body.plans.gold',
        /^There is no plan "gold" on this installation: its plans are free, pro$/,
      ],
      [
        { defaultPlan: 'gold' },
        'body.defaultPlan',
        /^The plan of new accounts, "gold", is not a plan of this installation/,
      ],
      [{}, 'body', /^Name the plans to change \(plans\) or the plan of new accounts \(defaultPlan\)$/],
    ];
    for (const [body, field, message] of cases) {
      const res = await as(saving, operator).put('/api/admin/plans', body);
      expect(res.status, JSON.stringify(body)).to.equal(400);
      expect(res.body.message).to.match(message);
      expect(res.body.details.map((d: { path: string }) => d.path)).to.include(field);
    }
    expect(freeOf(await as(saving, operator).get('/api/plans'))).to.include({
      projectsPerDeveloper: 2,
      ownAiKey: false,
    });
  });

  it('enforces a lowered limit in the process that saved at once and in every other within the delay', async function () {
    this.timeout(60_000);
    const secret = publicApp.client.with({ 'x-api-key': alice.secretKey });
    const before = await secret.get('/api/data/posts');
    expect(before.headers.get('ratelimit-limit'), 'Free as the spec states it').to.equal('300');

    const saved = await as(saving, operator).put('/api/admin/plans', {
      plans: {
        free: { limits: { projectsPerDeveloper: 1, requestsPerMinute: 3, mailPerMonth: 'unlimited' } },
      },
    });
    expect(saved.status).to.equal(200);
    expect(saved.body.message).to.equal('Plans saved');
    expect(freeOf(saved)).to.include({
      projectsPerDeveloper: 1,
      requestsPerMinute: 3,
      mailPerMonth: UNLIMITED,
    });
    expect(freeOf(saved), 'the limits not named keep theirs').to.include({ collectionsPerProject: 10 });

    // The process that saved: at once.
    const here = await as(saving, alice).post('/api/projects', { name: 'Second shop' });
    expect(here.status).to.equal(403);
    expect(here.body).to.include({
      code: 'PLAN_LIMIT',
      message: 'Plan limit reached: the free plan allows 1 project',
    });

    // Another dashboard process: within the delay, read back and enforced.
    const readBack = await eventually(
      () => as(other, alice).get('/api/plans'),
      (res) => freeOf(res).projectsPerDeveloper === 1,
    );
    expect(freeOf(readBack)).to.include({ projectsPerDeveloper: 1, mailPerMonth: UNLIMITED });
    const there = await as(other, alice).post('/api/projects', { name: 'Second shop' });
    expect(there.status).to.equal(403);
    expect(there.body.message).to.equal('Plan limit reached: the free plan allows 1 project');

    // The public role: the project's request limit is the new one, and past it a 429.
    const limited = await eventually(
      () => secret.get('/api/data/posts'),
      (res) => res.headers.get('ratelimit-limit') === '3',
    );
    expect(limited.headers.get('ratelimit-limit')).to.equal('3');
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await secret.get('/api/data/posts')).status);
    expect(statuses).to.include(429);

    // The operator's own account keeps no plan limits whatever is saved.
    for (const name of ['Ops one', 'Ops two'])
      expect((await as(other, operator).post('/api/projects', { name })).status).to.equal(201);
  });

  it('puts new accounts on the default plan saved, and a process started later reads the saved plans', async () => {
    const saved = await as(saving, operator).put('/api/admin/plans', { defaultPlan: 'pro' });
    expect(saved.status).to.equal(200);
    expect(saved.body.data).to.include({ defaultPlan: 'pro', defaultPlanSetting: false, plansFile: null });
    expect((await createDeveloper(saving.services)).developer.plan).to.equal('pro');

    const later = await startTestApp('dashboard', 'admin_plans', shared);
    try {
      await later.services.planSettings.ready;
      const plans = await as(later, operator).get('/api/plans');
      expect(plans.body.data.defaultPlan).to.equal('pro');
      expect(freeOf(plans).projectsPerDeveloper).to.equal(1);
    } finally {
      await later.close();
    }
  });
});

describe('plans: how often each process re-reads them (PLANS_REFRESH_MS)', () => {
  const shared = { PLATFORM_DB: suiteDatabase('admin_plans_refresh') };
  let saving: TestApp;
  let fast: TestApp;
  let slow: TestApp;
  let operator: Person;
  const plansOf = (app: TestApp) => app.client.with({ cookie: operator.cookie }).get('/api/plans');
  const webhooks = (res: ApiResponse) => freeOf(res).webhooksPerProject as number;

  before(async () => {
    saving = await startTestApp('dashboard', 'admin_plans_refresh', shared);
    fast = await startTestApp('dashboard', 'admin_plans_refresh', {
      ...shared,
      PLANS_REFRESH_MS: String(REFRESH_MS),
    });
    // Re-reads every 5 minutes: it reads the record once, at start, and not again in this test.
    slow = await startTestApp('dashboard', 'admin_plans_refresh', { ...shared, PLANS_REFRESH_MS: '300000' });
    operator = await createOperator(saving.services);
  });
  // Each app drops the suite's database when it closes: the last one first changes nothing.
  after(async () => {
    await slow?.close();
    await fast?.close();
    await saving?.close();
  });

  it('re-reads the saved plans every PLANS_REFRESH_MS in each process, and says how often', async function () {
    this.timeout(30_000);
    const start = await plansOf(slow);
    expect(start.status, start.text).to.equal(200);
    expect(start.body.data.refreshMs).to.equal(300_000);
    expect((await plansOf(fast)).body.data.refreshMs).to.equal(REFRESH_MS);
    expect((await plansOf(saving)).body.data.refreshMs, 'the default').to.equal(5_000);

    const saved = await saving.client
      .with({ cookie: operator.cookie })
      .put('/api/admin/plans', { plans: { free: { limits: { webhooksPerProject: webhooks(start) + 1 } } } });
    expect(saved.status).to.equal(200);
    const seen = await eventually(
      () => plansOf(fast),
      (res) => webhooks(res) === webhooks(start) + 1,
    );
    expect(webhooks(seen), 'the process re-reading every 500 ms').to.equal(webhooks(start) + 1);
    // Had the setting been ignored, both would re-read on the same 5 s default and agree by now.
    await new Promise((resolve) => setTimeout(resolve, 2 * REFRESH_MS));
    expect(webhooks(await plansOf(slow)), 'the process re-reading every 5 minutes').to.equal(webhooks(start));
  });
});

describe('plans from a setting: the page cannot change them', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'admin-plans-'));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it('refuses an edit while PLANS_FILE is set (409), naming the file', async () => {
    const file = path.join(dir, 'plans.yaml');
    await writeFile(file, 'plans:\n  starter: { projectsPerDeveloper: 1 }\n  team: { extends: pro }\n');
    const app = await startTestApp('dashboard', 'admin_plans_file', { PLANS_FILE: file });
    try {
      const operator = await createOperator(app.services);
      const as = app.client.with({ cookie: operator.cookie });
      const res = await as.put('/api/admin/plans', {
        plans: { starter: { limits: { projectsPerDeveloper: 5 } } },
      });
      expect(res.status).to.equal(409);
      expect(res.body).to.include({
        code: 'PLANS_FROM_FILE',
        message: `The plans come from the file ${file} (PLANS_FILE): edit the file and restart to change them`,
      });
      const plans = await as.get('/api/plans');
      expect(plans.body.data.plansFile).to.equal(file);
      expect(plans.body.data.plans[0].limits.projectsPerDeveloper).to.equal(1);
    } finally {
      await app.close();
    }
  });

  it('keeps the plan of new accounts DEFAULT_PLAN names (409 for another), and saves the limits', async () => {
    const app = await startTestApp('dashboard', 'admin_plans_default', { DEFAULT_PLAN: 'pro' });
    try {
      const operator = await createOperator(app.services);
      const as = app.client.with({ cookie: operator.cookie });
      const res = await as.put('/api/admin/plans', { defaultPlan: 'free' });
      expect(res.status).to.equal(409);
      expect(res.body.code).to.equal('DEFAULT_PLAN_FROM_SETTING');
      expect(res.body.message).to.match(/^New accounts get "pro" because DEFAULT_PLAN is set/);
      const saved = await as.put('/api/admin/plans', {
        defaultPlan: 'pro',
        plans: { pro: { limits: { webhooksPerProject: 30 } } },
      });
      expect(saved.status).to.equal(200);
      expect(saved.body.data).to.include({ defaultPlan: 'pro', defaultPlanSetting: true });
      expect(saved.body.data.plans[1].limits.webhooksPerProject).to.equal(30);
    } finally {
      await app.close();
    }
  });
});
