// The worker's periodic jobs on the real stack, with an injected clock: the monthly reset of usage
// (the new month starts from zero; the month before is closed once), the daily roll-up, the expiry
// sweep, and the lease per run: two workers on one database firing the same job do the work once.
import { expect } from 'chai';
import { startTestApps } from '../helpers/app.js';
import { createProjectFixture, type ProjectFixture } from '../helpers/fixtures.js';
import { workerJobs } from '../../src/jobs/worker.js';
import type { LeasedJob } from '../../src/jobs/lease.js';
import { jobRunsRepo } from '../../src/db/job-runs.js';
import { mailUsageRepo } from '../../src/db/mail-usage.js';
import { usageReport } from '../../src/services/usage/report.js';

const at = (iso: string) => new Date(iso);
const jobNamed = (jobs: LeasedJob[], name: string) => jobs.find((job) => job.name === name)!;

describe('worker jobs', () => {
  let apps: Awaited<ReturnType<typeof startTestApps>>;
  let fx: ProjectFixture;
  /** Two workers over one platform database: each role's process stands for one. */
  const workers = (now: () => Date) => [
    workerJobs(apps.public.deps, apps.public.services, { now, owner: 'worker-a' }),
    workerJobs(apps.dashboard.deps, apps.dashboard.services, { now, owner: 'worker-b' }),
  ];

  before(async () => {
    apps = await startTestApps('worker_jobs');
    fx = await createProjectFixture(apps.dashboard.services);
  });
  after(async () => {
    await apps?.close();
  });

  it('resets the monthly figures on the first of the month (UTC) and closes the month before once', async () => {
    const { usage } = apps.public.services;
    const mail = mailUsageRepo(apps.public.deps.db.platform);
    await usage.repo.increment([
      { projectId: fx.project.id, day: '2026-10-15', counts: { apiCalls: 7, webhookDeliveries: 2 } },
      { projectId: fx.project.id, day: '2026-10-31', counts: { apiCalls: 5, mailSent: 3 } },
    ]);
    for (let i = 0; i < 3; i++) await mail.take(fx.project.id, '2026-10', 100);
    let now = at('2026-10-31T23:59:59Z');
    const report = usageReport({
      repo: usage.repo,
      limitsOf: apps.public.services.projects.limitsOf,
      mailSent: usage.mailSent,
      webhookCount: async () => 0,
      backupBytes: async () => 0,
      now: () => now,
    });
    const october = (await report(fx.project)).figures;
    expect([october.apiCalls.used, october.mailSent.used, october.webhookDeliveries.used]).to.deep.equal([
      12, 3, 2,
    ]);

    now = at('2026-11-01T00:00:00Z');
    const november = await report(fx.project);
    expect(november.month).to.equal('2026-11');
    expect([
      november.figures.apiCalls.used,
      november.figures.mailSent.used,
      november.figures.webhookDeliveries.used,
    ]).to.deep.equal([0, 0, 0]);
    // The last days of October stay in the series.
    expect(november.daily.at(-2)).to.include({ day: '2026-10-31', apiCalls: 5, mailSent: 3 });

    now = at('2026-11-01T00:05:00Z');
    const [a] = workers(() => now);
    const close = jobNamed(a!, 'usage-month-close');
    expect(await close.runAt(now)).to.equal('ran');
    expect(await usage.repo.closedMonth(fx.project.id, '2026-10')).to.deep.equal({
      apiCalls: 12,
      mailSent: 3,
      webhookDeliveries: 2,
      aiQueryBuilder: 0,
      aiCollectionCreator: 0,
      functionInvocations: 0,
      functionMs: 0,
    });
    // It fires daily (to catch up a worker that was down on the first) but closes a month once.
    await usage.repo.increment([{ projectId: fx.project.id, day: '2026-10-31', counts: { apiCalls: 100 } }]);
    expect(await close.runAt(at('2026-11-02T00:05:00Z'))).to.equal('skipped');
    expect((await usage.repo.closedMonth(fx.project.id, '2026-10'))!.apiCalls).to.equal(12);
    expect(await close.runAt(at('2026-12-01T00:05:00Z'))).to.equal('ran');
    expect(await usage.repo.closedMonth(fx.project.id, '2026-11')).to.include({ apiCalls: 0, mailSent: 0 });
  });

  it("the roll-up writes the day's byte figures into the daily series", async () => {
    await apps.public.services.repos.projects.addDatabaseUsed(fx.project.id, 4321);
    const yesterday = new Date(Date.now() - 86_400_000);
    const [a] = workers(() => yesterday);
    expect(await jobNamed(a!, 'usage-rollup').runAt(yesterday)).to.equal('ran');
    const res = await apps.dashboard.client
      .with({ cookie: fx.cookie })
      .get(`/api/projects/${fx.project.id}/usage`);
    expect(res.status).to.equal(200);
    expect(res.body.data.daily.at(-2)).to.include({
      day: yesterday.toISOString().slice(0, 10),
      databaseBytes: 4321,
      storageBytes: 0,
    });
  });

  it('two workers running the same jobs at the same time do each period once', async () => {
    // A clock months ahead: the sweep it runs ends the fixture's dashboard session, so the tests
    // that call the dashboard come before.
    const now = at('2027-02-20T10:07:00Z');
    const [a, b] = workers(() => now);
    for (const job of a!) {
      const outcomes = await Promise.all([job.runAt(now), jobNamed(b!, job.name).runAt(now)]);
      expect(outcomes.sort(), job.name).to.deep.equal(['ran', 'skipped']);
    }
    const runs = jobRunsRepo(apps.public.deps.db.platform);
    const rollup = await runs.find('usage-rollup', '2027-02-20T10');
    expect(rollup).to.include({ job: 'usage-rollup', period: '2027-02-20T10' });
    expect(rollup!.finishedAt).to.be.an.instanceOf(Date);
    // The next period runs again, once.
    const later = at('2027-02-20T11:07:00Z');
    const again = jobNamed(a!, 'usage-rollup');
    expect(
      (await Promise.all([again.runAt(later), jobNamed(b!, 'usage-rollup').runAt(later)])).sort(),
    ).to.deep.equal(['ran', 'skipped']);
  });

  it('a run that died keeps its period until its lease expires; then another worker takes it over', async () => {
    const runs = jobRunsRepo(apps.public.deps.db.platform);
    const t = at('2026-11-20T12:00:00Z');
    expect(await runs.claim('probe', 'p1', 'worker-a', t, 60_000)).to.equal(true);
    expect(await runs.claim('probe', 'p1', 'worker-b', at('2026-11-20T12:00:30Z'), 60_000)).to.equal(false);
    expect(await runs.claim('probe', 'p1', 'worker-b', at('2026-11-20T12:01:00Z'), 60_000)).to.equal(true);
    await runs.finish('probe', 'p1', 'worker-b', at('2026-11-20T12:01:05Z'));
    expect(await runs.claim('probe', 'p1', 'worker-a', at('2026-11-21T00:00:00Z'), 60_000)).to.equal(false);
  });

  it('the expiry sweep deletes expired sessions, refresh tokens, codes and grants, and nothing else', async () => {
    const platform = apps.public.deps.db.platform;
    const now = at('2026-11-20T12:00:00Z');
    const past = new Date(now.getTime() - 1000);
    const future = new Date(now.getTime() + 3_600_000);
    const names = ['sessions', 'user_refresh_tokens', 'user_auth_codes', 'user_oauth_grants'];
    for (const name of names)
      await platform.collection<{ _id: string; expiresAt: Date }>(name).insertMany([
        { _id: `${name}-expired`, expiresAt: past },
        { _id: `${name}-live`, expiresAt: future },
      ]);
    const [a] = workers(() => now);
    expect(await jobNamed(a!, 'expiry-sweep').runAt(now)).to.equal('ran');
    for (const name of names) {
      const left = await platform
        .collection<{ _id: string }>(name)
        .find({ _id: { $regex: `^${name}-` } })
        .toArray();
      expect(
        left.map((d) => d._id),
        name,
      ).to.deep.equal([`${name}-live`]);
    }
  });
});
