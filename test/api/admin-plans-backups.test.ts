// The plans' scheduled backups as the operator edits them (PUT /api/admin/plans `backups`), over
// HTTP: saved and read back, a value not sent kept, a bad one named with nothing saved, a record
// saved before backups were edited still loaded, the file (PLANS_FILE) winning; and enforced by
// another process, as the worker is: its next scheduled backup, retention and backups on request.
import { expect } from 'chai';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startTestApp, startTestApps } from '../helpers/app.js';
import type { ApiResponse } from '../helpers/client.js';
import { createOperator, createProjectFixture, type ProjectFixture } from '../helpers/fixtures.js';
import { backupRunner } from '../../src/jobs/backup-runner.js';
import { planSettingsRepo } from '../../src/db/plan-settings.js';
import { BACKUP_PLANS } from '../../src/lib/plans.js';

type Backups = { kept: number; every: string };
const backupsOf = (res: ApiResponse, name: string): Backups =>
  (res.body.data.plans as { name: string; backups: Backups }[]).find((p) => p.name === name)!.backups;

/** Waits until `done` holds: another process applies a save within PLANS_REFRESH_MS (500 ms here). */
async function until(done: () => boolean) {
  const end = Date.now() + 15_000;
  while (!done() && Date.now() < end) await new Promise((resolve) => setTimeout(resolve, 250));
}

describe('plans: the scheduled backups edited by the operator', () => {
  let apps: Awaited<ReturnType<typeof startTestApps>>;
  let operator: Awaited<ReturnType<typeof createOperator>>;
  let fx: ProjectFixture;
  const ops = () => apps.dashboard.client.with({ cookie: operator.cookie });
  const plans = () => ops().get('/api/plans');

  before(async () => {
    // The public process stands for the worker: it re-reads the saved plans every 500 ms.
    apps = await startTestApps('admin_plans_backups', { PLANS_REFRESH_MS: '500' });
    operator = await createOperator(apps.dashboard.services);
    fx = await createProjectFixture(apps.dashboard.services, 'Nightly'); // on Free
  });
  after(() => apps?.close());

  it('saves the backups of a plan, read back by GET /api/plans; a value not sent keeps its own', async () => {
    const saved = await ops().put('/api/admin/plans', {
      plans: { pro: { backups: { kept: 5, every: 'day' } } },
    });
    expect(saved.status, saved.text).to.equal(200);
    expect(backupsOf(saved, 'pro')).to.deep.equal({ kept: 5, every: 'day' });
    const read = await plans();
    expect(backupsOf(read, 'pro')).to.deep.equal({ kept: 5, every: 'day' });
    expect(backupsOf(read, 'free'), 'the plans not named keep theirs').to.deep.equal(BACKUP_PLANS.free);
    expect(read.body.data.operator.backups, 'the operator: the most any plan keeps').to.deep.equal({
      kept: 30,
      every: 'hour',
    });

    const partial = await ops().put('/api/admin/plans', {
      plans: { pro: { backups: { every: 'hour' } }, free: { limits: { webhooksPerProject: 4 } } },
    });
    expect(partial.status, partial.text).to.equal(200);
    expect(backupsOf(await plans(), 'pro')).to.deep.equal({ kept: 5, every: 'hour' });
    expect(backupsOf(await plans(), 'free'), 'a limits edit keeps the backups').to.deep.equal(
      BACKUP_PLANS.free,
    );
  });

  it('names a bad value (400) and saves nothing', async () => {
    const cases: [unknown, string, RegExp][] = [
      [{ plans: { free: { backups: { kept: 0 } } } }, 'body.plans.free.backups.kept', /kept must be >= 1/],
      [
        { plans: { free: { backups: { kept: 2.5 } } } },
        'body.plans.free.backups.kept',
        /kept must be an integer/,
      ],
      [
        { plans: { free: { backups: { every: 'week' } } } },
        'body.plans.free.backups.every',
        /every must be one of "day", "hour"/,
      ],
      [
        { plans: { free: { backups: { kept: 2, often: 'day' } } } },
        'body.plans.free.backups.often',
        /often is not allowed/,
      ],
      [{ plans: { free: {} } }, 'body.plans.free', /Name the limits \(limits\) or the backups \(backups\)/],
    ];
    for (const [body, field, message] of cases) {
      const res = await ops().put('/api/admin/plans', body);
      expect(res.status, JSON.stringify(body)).to.equal(400);
      expect(res.body.message, JSON.stringify(body)).to.match(message);
      expect(res.body.details.map((d: { path: string }) => d.path)).to.include(field);
    }
    const read = await plans();
    expect(backupsOf(read, 'free')).to.deep.equal(BACKUP_PLANS.free);
    expect(backupsOf(read, 'pro')).to.deep.equal({ kept: 5, every: 'hour' });
  });

  it('enforces a lowered count and a shorter period in another process: schedule, retention, requests', async function () {
    this.timeout(90_000);
    // Another process over the same platform database, as the worker is.
    const worker = apps.public;
    const runner = backupRunner(worker.deps, worker.services);
    const dash = apps.dashboard.client.with({ cookie: fx.cookie });
    const scheduled = async () =>
      (
        (await dash.get(`/api/projects/${fx.project.id}/backups`)).body.data.backups as { trigger: string }[]
      ).filter((b) => b.trigger === 'schedule');
    const at = (day: number, hour: number) => new Date(Date.UTC(2026, 7, day, hour));

    for (let day = 1; day <= 3; day++) {
      expect(await runner.schedule(at(day, 3)), `day ${day}`).to.equal(1);
      expect(await runner.schedule(at(day, 9)), `day ${day}, later: daily on Free`).to.equal(0);
      await runner.drain();
    }
    expect(await scheduled()).to.have.length(3);

    const saved = await ops().put('/api/admin/plans', {
      plans: { free: { backups: { kept: 1, every: 'hour' } } },
    });
    expect(saved.status, saved.text).to.equal(200);
    await until(() => worker.services.plans.get('free').backups.kept === 1);
    expect(worker.services.plans.get('free').backups).to.deep.equal({ kept: 1, every: 'hour' });

    // Hourly now: a second one the same day; past the count of 1, the older ones are deleted.
    expect(await runner.schedule(at(3, 10))).to.equal(1);
    await runner.drain();
    const left = await scheduled();
    expect(left, 'only the newest scheduled backup is kept').to.have.length(1);
    expect(left[0]).to.deep.include({ state: 'done', createdAt: at(3, 10).toISOString() });
    expect(await runner.schedule(at(3, 11))).to.equal(1);
    expect(await runner.schedule(at(3, 11))).to.equal(0);
    await runner.drain();
    expect(await scheduled()).to.have.length(1);

    const schedule = await dash.get(`/api/projects/${fx.project.id}/backup-schedule`);
    expect(schedule.body.data.schedule).to.include({ kept: 1, every: 'hour' });
    // The count holds for backups on request too.
    expect((await dash.post(`/api/projects/${fx.project.id}/backups`, {})).status).to.equal(202);
    await runner.drain();
    const refused = await dash.post(`/api/projects/${fx.project.id}/backups`, {});
    expect(refused.status).to.equal(403);
    expect(refused.body.code).to.equal('PLAN_LIMIT');
    expect(refused.body.message).to.match(/^Plan limit reached: the plan keeps 1 backup made on request/);
  });

  it('loads a record saved before backups were edited, with the plans’ own backups', async () => {
    await planSettingsRepo(apps.dashboard.deps.db.platform).write(
      { plans: { free: { projectsPerDeveloper: 3 } }, defaultPlan: null, updatedAt: new Date() },
      operator.developer.id,
    );
    await apps.dashboard.services.planSettings.refresh();
    const read = await plans();
    const free = (read.body.data.plans as { name: string; limits: Record<string, number> }[])[0]!;
    expect(free.limits.projectsPerDeveloper).to.equal(3);
    expect(backupsOf(read, 'free')).to.deep.equal(BACKUP_PLANS.free);
    expect(backupsOf(read, 'pro')).to.deep.equal(BACKUP_PLANS.pro);

    // And an edit over it stores them.
    const saved = await ops().put('/api/admin/plans', { plans: { free: { backups: { kept: 2 } } } });
    expect(saved.status, saved.text).to.equal(200);
    expect(backupsOf(saved, 'free')).to.deep.equal({ kept: 2, every: 'day' });
    expect(saved.body.data.plans[0].limits.projectsPerDeveloper).to.equal(3);
    const stored = await planSettingsRepo(apps.dashboard.deps.db.platform).read();
    expect(stored?.backups).to.deep.equal({ free: { kept: 2, every: 'day' }, pro: BACKUP_PLANS.pro });
  });
});

describe('plans from a file: their backups are not edited here', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'admin-plans-backups-'));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it('refuses a backups edit while PLANS_FILE is set (409), the file’s backups in force', async () => {
    const file = path.join(dir, 'plans.yaml');
    await writeFile(file, 'plans:\n  free: { backupsKept: 4 }\n  pro: { backupEvery: day }\n');
    const app = await startTestApp('dashboard', 'admin_plans_backups_file', { PLANS_FILE: file });
    try {
      const operator = await createOperator(app.services);
      const as = app.client.with({ cookie: operator.cookie });
      const res = await as.put('/api/admin/plans', { plans: { free: { backups: { kept: 9 } } } });
      expect(res.status).to.equal(409);
      expect(res.body.code).to.equal('PLANS_FROM_FILE');
      const read = await as.get('/api/plans');
      expect(backupsOf(read, 'free')).to.deep.equal({ kept: 4, every: 'day' });
      expect(backupsOf(read, 'pro')).to.deep.equal({ kept: 30, every: 'day' });
    } finally {
      await app.close();
    }
  });
});
