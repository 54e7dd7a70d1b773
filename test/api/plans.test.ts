// The installation's plans over HTTP: an operator's plan file and default plan, the operator's own
// account without plan limits in every profile, "unlimited" limits, the spec's plans in
// production and the highest plan for new accounts in the development profile.
import { expect } from 'chai';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createDeveloper } from '../helpers/fixtures.js';
import { UNLIMITED } from '../../src/lib/plans.js';

const PLANS_YAML = `
default: starter
plans:
  starter:
    extends: free
    label: Starter
  team:
    extends: pro
    label: Team
    projectsPerDeveloper: unlimited
    webhooksPerProject: unlimited
`;

describe('plans of the installation', () => {
  let dir: string;
  let app: TestApp;
  let operator: Awaited<ReturnType<typeof createDeveloper>>;
  let member: Awaited<ReturnType<typeof createDeveloper>>;
  const as = (cookie: string) => app.client.with({ cookie });

  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'plans-'));
    await writeFile(path.join(dir, 'plans.yaml'), PLANS_YAML);
    app = await startTestApp('dashboard', 'plans', { PLANS_FILE: path.join(dir, 'plans.yaml') });
    operator = await createDeveloper(app.services);
    member = await createDeveloper(app.services);
  });
  after(async () => {
    await app?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('lists the plans of the file, lowest first, with the default', async () => {
    const res = await as(member.cookie).get('/api/plans');
    expect(res.status).to.equal(200);
    expect(res.body.data.defaultPlan).to.equal('starter');
    expect(res.body.data.plans.map((p: { name: string; label: string }) => [p.name, p.label])).to.deep.equal([
      ['starter', 'Starter'],
      ['team', 'Team'],
    ]);
    expect(res.body.data.plans[1].limits.projectsPerDeveloper).to.equal(UNLIMITED);
    expect(res.body.data.plansFile).to.equal(path.join(dir, 'plans.yaml'));
    expect(res.body.data.operator).to.deep.include({ name: 'operator', label: 'Operator (no plan limits)' });
    expect(res.body.data.operator.limits).to.include({ collectionsPerProject: UNLIMITED, ownAiKey: true });
    expect((await app.client.get('/api/plans')).status).to.equal(401);
  });

  it('puts the operator on no plan and a later account on the default', async () => {
    const me = await as(operator.cookie).get('/api/user/me');
    expect(me.body.data.developer).to.include({
      plan: 'operator',
      isOperator: true,
      projectLimit: UNLIMITED,
    });
    const other = await as(member.cookie).get('/api/user/me');
    expect(other.body.data.developer).to.include({ plan: 'starter', isOperator: false, projectLimit: 2 });
  });

  it('holds no limit where the plan says unlimited, and the default plan its own', async () => {
    for (let i = 0; i < 4; i++)
      expect((await as(operator.cookie).post('/api/projects', { name: `P${i}` })).status).to.equal(201);
    for (let i = 0; i < 2; i++)
      expect((await as(member.cookie).post('/api/projects', { name: `M${i}` })).status).to.equal(201);
    const third = await as(member.cookie).post('/api/projects', { name: 'M2' });
    expect(third.status).to.equal(403);
    expect(third.body.message).to.equal('Plan limit reached: the starter plan allows 2 projects');
    const project = (await as(operator.cookie).get('/api/projects')).body.data.projects[0];
    const usage = await as(operator.cookie).get(`/api/projects/${project.id}/usage`);
    expect(usage.body.data.figures.webhooks.limit, 'no limit is shown as none').to.equal(null);
    expect(usage.body.data.figures.storageBytes.limit, "the operator's own project").to.equal(null);
    const theirs = (await as(member.cookie).get('/api/projects')).body.data.projects[0];
    const starter = await as(member.cookie).get(`/api/projects/${theirs.id}/usage`);
    expect(starter.body.data.figures.storageBytes.limit).to.be.a('number');
  });

  it("moves an account to another of the installation's plans, and names them for an unknown one", async () => {
    const unknown = await as(operator.cookie).put(`/api/admin/developers/${member.developer.id}/plan`, {
      plan: 'pro',
    });
    expect(unknown.status).to.equal(400);
    expect(unknown.body).to.include({
      code: 'UNKNOWN_PLAN',
      message: 'Unknown plan "pro": this installation\'s plans are starter, team',
    });
    const moved = await as(operator.cookie).put(`/api/admin/developers/${member.developer.id}/plan`, {
      plan: 'team',
    });
    expect(moved.status).to.equal(200);
    expect(moved.body.data.developer).to.include({ plan: 'team', projectLimit: UNLIMITED });
    expect((await as(member.cookie).post('/api/projects', { name: 'M3' })).status).to.equal(201);
  });

  /** Drives the operator past Free's walls: 3 projects, 11 collections, a Pro feature (own AI key). */
  async function operatorHasNoWalls(target: TestApp, cookie: string) {
    const c = target.client.with({ cookie });
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await c.post('/api/projects', { name: `Own ${i}` });
      expect(res.status, `project ${i + 1}`).to.equal(201);
      ids.push(res.body.data.project.id);
    }
    for (let i = 1; i <= 11; i++) {
      const res = await c.post(`/api/projects/${ids[0]}/collections`, {
        name: `c${i}`,
        fields: [{ name: 'a', type: 'String' }],
      });
      expect(res.status, `collection ${i}`).to.equal(201);
    }
    const key = await c.put('/api/user/me/byok', { aiProviderKey: `gsk_${'k'.repeat(40)}` });
    expect(key.status, JSON.stringify(key.body)).to.equal(200);
  }

  it("keeps the spec's Free and Pro in production, the operator without plan limits", async () => {
    const plain = await startTestApp('dashboard', 'plans-default', { NODE_ENV: 'production' });
    try {
      const first = await createDeveloper(plain.services);
      const second = await createDeveloper(plain.services);
      const res = await plain.client.with({ cookie: first.cookie }).get('/api/plans');
      expect(res.body.data.defaultPlan).to.equal('free');
      expect(res.body.data.plansFile).to.equal(null);
      expect(res.body.data.plans.map((p: { name: string }) => p.name)).to.deep.equal(['free', 'pro']);
      expect(
        (await plain.client.with({ cookie: first.cookie }).get('/api/user/me')).body.data.developer.plan,
      ).to.equal('operator');
      await operatorHasNoWalls(plain, first.cookie);
      const other = plain.client.with({ cookie: second.cookie });
      expect((await other.get('/api/user/me')).body.data.developer).to.include({
        plan: 'free',
        projectLimit: 2,
      });
      for (let i = 0; i < 2; i++)
        expect((await other.post('/api/projects', { name: `O${i}` })).status).to.equal(201);
      expect((await other.post('/api/projects', { name: 'O2' })).status).to.equal(403);
      const key = await other.put('/api/user/me/byok', { aiProviderKey: `gsk_${'k'.repeat(40)}` });
      expect(key.body.code).to.equal('PRO_FEATURE');
    } finally {
      await plain.close();
    }
  });

  it('puts new accounts on the highest plan in the development profile, the operator without limits', async () => {
    const dev = await startTestApp('dashboard', 'plans-dev', { NODE_ENV: 'development' });
    try {
      const first = await createDeveloper(dev.services);
      const second = await createDeveloper(dev.services);
      expect(
        (await dev.client.with({ cookie: first.cookie }).get('/api/plans')).body.data.defaultPlan,
      ).to.equal('pro');
      await operatorHasNoWalls(dev, first.cookie);
      const me = await dev.client.with({ cookie: second.cookie }).get('/api/user/me');
      expect(me.body.data.developer).to.include({ plan: 'pro', isOperator: false, projectLimit: 20 });
    } finally {
      await dev.close();
    }
  });

  it('lets PLANS_FILE and DEFAULT_PLAN win over the development profile', async () => {
    const filed = await startTestApp('dashboard', 'plans-dev-file', {
      NODE_ENV: 'development',
      PLANS_FILE: path.join(dir, 'plans.yaml'),
    });
    const named = await startTestApp('dashboard', 'plans-dev-named', {
      NODE_ENV: 'development',
      DEFAULT_PLAN: 'free',
    });
    try {
      for (const [app2, plan] of [
        [filed, 'starter'],
        [named, 'free'],
      ] as const) {
        await createDeveloper(app2.services);
        const later = await createDeveloper(app2.services);
        const me = await app2.client.with({ cookie: later.cookie }).get('/api/user/me');
        expect(me.body.data.developer.plan).to.equal(plan);
      }
    } finally {
      await filed.close();
      await named.close();
    }
  });

  it('refuses to start on a wrong plan file, naming the problem', async () => {
    await writeFile(path.join(dir, 'bad.yaml'), 'plans:\n  gold:\n    mailPerMonth: lots\n');
    let message = '';
    try {
      await startTestApp('dashboard', 'plans-bad', { PLANS_FILE: path.join(dir, 'bad.yaml') });
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).to.include(`plan "gold": mailPerMonth must be a whole number or "unlimited"`);
  });
});
