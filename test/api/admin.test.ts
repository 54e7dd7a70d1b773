// The operator's area over HTTP: the installation's overview (parts, health, the worker's jobs),
// developer accounts (list, search, disable, enable, delete), every project with its limits, and
// the mail outbox; each refused to any other developer.
import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createDeveloper, createOperator } from '../helpers/fixtures.js';
import { jobRunsRepo } from '../../src/db/job-runs.js';
import { leased } from '../../src/jobs/lease.js';
import { UNLIMITED } from '../../src/lib/plans.js';

const PASSWORD = 'correct horse battery staple';
type Person = Awaited<ReturnType<typeof createDeveloper>>;

describe('operator area (/api/admin)', () => {
  let app: TestApp;
  let operator: Person;
  let alice: Person;
  let bob: Person;
  const as = (who: Person) => app.client.with({ cookie: who.cookie });

  before(async () => {
    app = await startTestApp('dashboard', 'admin');
    operator = await createOperator(app.services);
    alice = await createDeveloper(app.services, 'alice@example.test');
    bob = await createDeveloper(app.services, 'bob@example.test');
  });
  after(() => app?.close());

  it('refuses every operation to another developer (403) and without a session (401)', async () => {
    const id = alice.developer.id;
    const calls = [
      (c: typeof app.client) => c.get('/api/admin/overview'),
      (c: typeof app.client) => c.get('/api/admin/developers'),
      (c: typeof app.client) => c.post(`/api/admin/developers/${id}/disable`),
      (c: typeof app.client) => c.post(`/api/admin/developers/${id}/enable`),
      (c: typeof app.client) => c.delete(`/api/admin/developers/${id}`),
      (c: typeof app.client) => c.get('/api/admin/projects'),
      (c: typeof app.client) => c.get('/api/admin/outbox'),
    ];
    for (const call of calls) {
      const refused = await call(as(bob));
      expect(refused.status).to.equal(403);
      expect(refused.body).to.include({
        code: 'OPERATOR_ONLY',
        message: 'Only the operator of this installation may do this',
      });
      expect((await call(app.client)).status).to.equal(401);
    }
    expect((await as(alice).get('/api/user/me')).status, 'alice untouched').to.equal(200);
  });

  it('shows the parts in use with their settings, the health and the worker jobs with their last run', async () => {
    const runs = jobRunsRepo(app.deps.db.platform);
    const log = app.deps.log;
    await leased(runs, 'test', log, {
      name: 'trash-purge',
      schedule: '17 * * * *',
      leaseMs: 60_000,
      period: () => '2026-01-01T00',
      work: async () => undefined,
    }).run();
    const failing = leased(runs, 'test', log, {
      name: 'usage-recount',
      schedule: '41 3 * * *',
      leaseMs: 60_000,
      period: () => '2026-01-01',
      work: async () => {
        throw new Error('the database went away');
      },
    });
    await failing.run().catch(() => undefined);

    const res = await as(operator).get('/api/admin/overview');
    expect(res.status).to.equal(200);
    const data = res.body.data;
    expect(data.profile).to.equal('test');
    expect(data.version).to.match(/^\d+\.\d+\.\d+/);
    expect(data.health).to.include({ status: 'ok', database: 'up', cache: 'up' });
    const settings = Object.fromEntries(
      data.parts.map((p: { name: string; setting: string }) => [p.name, p.setting]),
    );
    expect(settings).to.deep.equal({
      engine: 'MONGODB_URI',
      cache: 'REDIS_URL',
      'object store': 'S3_BUCKET and S3_*',
      mail: 'SMTP_URL',
      plans: 'PLANS_FILE and DEFAULT_PLAN',
    });
    const jobs = Object.fromEntries(data.jobs.map((j: { name: string }) => [j.name, j]));
    expect(jobs['trash-purge'].lastRun).to.include({ period: '2026-01-01T00', result: 'finished' });
    expect(jobs['trash-purge'].lastFailure).to.equal(null);
    expect(jobs['usage-recount'].lastRun).to.equal(null);
    expect(jobs['usage-recount'].lastFailure).to.include({ error: 'the database went away' });
    expect(jobs['usage-month-close']).to.include({ lastRun: null, lastFailure: null });
  });

  it('lists and searches the accounts with their plan, projects and last sign-in', async () => {
    expect((await as(alice).post('/api/projects', { name: 'Alice shop' })).status).to.equal(201);
    const login = await app.client.post('/api/auth/login', {
      email: 'alice@example.test',
      password: PASSWORD,
    });
    expect(login.status).to.equal(200);
    const all = await as(operator).get('/api/admin/developers');
    expect(all.status).to.equal(200);
    const rows = all.body.data.developers as {
      developer: { email: string; plan: string; isOperator: boolean; projectLimit: number };
      projectsOwned: number;
      lastSignInAt: string | null;
    }[];
    expect(rows.map((r) => r.developer.email)).to.have.members([
      'operator@example.test',
      'alice@example.test',
      'bob@example.test',
    ]);
    const own = rows.find((r) => r.developer.isOperator)!;
    expect(own.developer).to.include({ plan: 'operator', projectLimit: UNLIMITED });
    const a = rows.find((r) => r.developer.email === 'alice@example.test')!;
    expect(a).to.include({ projectsOwned: 1 });
    expect(a.developer.plan).to.equal('free');
    expect(Date.parse(a.lastSignInAt!)).to.be.greaterThan(Date.now() - 60_000);
    const found = await as(operator).get('/api/admin/developers?search=ALICE');
    expect(
      found.body.data.developers.map((r: { developer: { email: string } }) => r.developer.email),
    ).to.deep.equal(['alice@example.test']);
    const regex = await as(operator).get(`/api/admin/developers?search=${encodeURIComponent('.*')}`);
    expect(regex.body.data.developers, 'a search is text, not a pattern').to.deep.equal([]);
    const long = await as(operator).get(`/api/admin/developers?search=${'a'.repeat(201)}`);
    expect(long.status).to.equal(400);
  });

  it('disables an account (its sessions end, sign-in refused) and enables it again', async () => {
    const session = await app.client.post('/api/auth/login', {
      email: 'bob@example.test',
      password: PASSWORD,
    });
    const cookie = session.headers.get('set-cookie')!.split(';')[0]!;
    const disabled = await as(operator).post(`/api/admin/developers/${bob.developer.id}/disable`);
    expect(disabled.status).to.equal(200);
    expect(disabled.body.data.developer).to.include({ email: 'bob@example.test', disabled: true });
    expect((await app.client.with({ cookie }).get('/api/user/me')).status).to.equal(401);
    const refused = await app.client.post('/api/auth/login', {
      email: 'bob@example.test',
      password: PASSWORD,
    });
    expect(refused.status).to.equal(403);
    expect(refused.body.code).to.equal('ACCOUNT_DISABLED');
    expect(refused.body.message).to.match(/disabled by the operator/);
    const enabled = await as(operator).post(`/api/admin/developers/${bob.developer.id}/enable`);
    expect(enabled.status).to.equal(200);
    expect(enabled.body.data.developer.disabled).to.equal(false);
    const back = await app.client.post('/api/auth/login', { email: 'bob@example.test', password: PASSWORD });
    expect(back.status).to.equal(200);
    bob = { ...bob, cookie: back.headers.get('set-cookie')!.split(';')[0]! };
  });

  it("names the problem with an account id, and never disables or deletes the operator's own", async () => {
    for (const call of [
      (id: string) => as(operator).post(`/api/admin/developers/${id}/disable`),
      (id: string) => as(operator).post(`/api/admin/developers/${id}/enable`),
      (id: string) => as(operator).delete(`/api/admin/developers/${id}`),
    ]) {
      expect((await call('nope')).status).to.equal(400);
      const missing = await call('65f1c2a4b7e8d90012345678');
      expect(missing.status).to.equal(404);
      expect(missing.body.code).to.equal('DEVELOPER_NOT_FOUND');
      const own = await call(operator.developer.id);
      expect(own.status).to.equal(400);
      expect(own.body.code).to.equal('OPERATOR_ACCOUNT');
    }
  });

  it('lists every project with its owner, usage and limits, overrides included', async () => {
    const shop = (await as(alice).get('/api/projects')).body.data.projects[0];
    const put = await as(operator).put(`/api/admin/projects/${shop.id}/limits`, {
      limits: { collectionsPerProject: 3 },
    });
    expect(put.status).to.equal(200);
    const res = await as(operator).get('/api/admin/projects');
    expect(res.status).to.equal(200);
    const row = res.body.data.projects.find((p: { id: string }) => p.id === shop.id);
    expect(row).to.deep.include({
      name: 'Alice shop',
      owner: { id: alice.developer.id, email: 'alice@example.test' },
      plan: 'free',
      collections: 0,
      usage: { databaseUsed: 0, storageUsed: 0 },
      overrides: { collectionsPerProject: 3 },
    });
    expect(row.limits).to.include({ collectionsPerProject: 3, webhooksPerProject: 2 });
  });

  it('deletes an account with the projects it owns and its memberships', async () => {
    const shop = (await as(alice).get('/api/projects')).body.data.projects[0];
    const bobs = await as(bob).post('/api/projects', { name: 'Bob blog' });
    await app.services.repos.projects.addMember(bobs.body.data.project.id, alice.developer.id, 'member');
    const res = await as(operator).delete(`/api/admin/developers/${alice.developer.id}`);
    expect(res.status).to.equal(200);
    expect(res.body.data.deletedProjects).to.deep.equal(['Alice shop']);
    expect((await as(operator).get(`/api/projects/${shop.id}`)).status).to.equal(404);
    const blog = await app.services.repos.projects.findById(bobs.body.data.project.id);
    expect(blog!.members.map((m) => m.developerId)).to.deep.equal([bob.developer.id]);
    expect((await as(alice).get('/api/user/me')).status).to.equal(401);
    const login = await app.client.post('/api/auth/login', {
      email: 'alice@example.test',
      password: PASSWORD,
    });
    expect(login.status).to.equal(401);
    expect((await as(operator).delete(`/api/admin/developers/${alice.developer.id}`)).status).to.equal(404);
  });

  it('reads the outbox folder with the links of each mail, and says there is none with SMTP_URL', async () => {
    const none = await as(operator).get('/api/admin/outbox');
    expect(none.status).to.equal(400);
    expect(none.body.code).to.equal('NO_OUTBOX');
    expect(none.body.message).to.match(/SMTP_URL/);

    const dir = await mkdtemp(path.join(tmpdir(), 'outbox-'));
    const local = await startTestApp('dashboard', 'admin-outbox', {
      SMTP_URL: undefined,
      MAIL_OUTBOX_DIR: dir,
    });
    try {
      const first = await createOperator(local.services);
      const started = await local.client.post('/api/auth/signup', {
        email: 'newcomer@example.test',
        password: PASSWORD,
      });
      expect(started.status).to.equal(201);
      const read = () => local.client.with({ cookie: first.cookie }).get('/api/admin/outbox');
      let res = await read();
      // The mail is written after the answer: wait for it.
      for (let i = 0; i < 100 && res.body.data?.mails.length === 0; i++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        res = await read();
      }
      expect(res.status).to.equal(200);
      expect(res.body.data.folder).to.equal(dir);
      const [mail] = res.body.data.mails;
      expect(mail.to).to.deep.equal(['newcomer@example.test']);
      expect(mail.links.some((l: string) => l.includes('/signup/confirm?token='))).to.equal(true);
      const overview = await local.client.with({ cookie: first.cookie }).get('/api/admin/overview');
      expect(overview.body.data.outbox).to.equal(dir);
    } finally {
      await local.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
