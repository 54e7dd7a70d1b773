// A restore checks each collection's declared indexes against the plan's indexesPerCollection, in
// the request, before any project is created or anything cleared: a clear 403 naming the limit.
import { expect } from 'chai';
import { startTestApps } from '../helpers/app.js';
import { createOperator, createProjectFixture } from '../helpers/fixtures.js';
import { backupRunner } from '../../src/jobs/backup-runner.js';

describe('backups: a restore whose collections declare more indexes than the plan allows', () => {
  let apps: Awaited<ReturnType<typeof startTestApps>>;

  before(async () => {
    apps = await startTestApps('backup_index_limit');
    await createOperator(apps.dashboard.services);
  });
  after(() => apps?.close());

  it('is refused before anything is written (403 PLAN_LIMIT naming indexesPerCollection)', async () => {
    const app = apps.dashboard;
    const fx = await createProjectFixture(app.services, 'Indexed');
    await app.services.repos.developers.setPlan(fx.developer.id, 'pro');
    const dash = app.client.with({ cookie: fx.cookie });
    const fields = Array.from({ length: 6 }, (_, i) => ({ name: `f${i}`, type: 'String' }));
    const created = await dash.post(`/api/projects/${fx.project.id}/collections`, {
      name: 'events',
      fields,
      indexes: fields.map((f) => ({ keys: [{ field: f.name }] })),
    });
    expect(created.status, created.text).to.equal(201);
    await app.deps.db.project(fx.project.id).collection('events').insertOne({ f0: 'kept' });
    const id = (await dash.post(`/api/projects/${fx.project.id}/backups`, {})).body.data.backup.id;
    expect(await backupRunner(app.deps, app.services).drain()).to.equal(1);
    await app.services.repos.developers.setPlan(fx.developer.id, 'free'); // Free allows 5 per collection

    const projects = app.deps.db.platform.collection('projects');
    const before = await projects.countDocuments();
    const restore = `/api/projects/${fx.project.id}/backups/${id}/restore`;
    for (const body of [{ name: 'Copy' }, { target: 'same', confirm: 'Indexed' }]) {
      const res = await dash.post(restore, body);
      expect(res.status, res.text).to.equal(403);
      expect(res.body.code).to.equal('PLAN_LIMIT');
      expect(res.body.message).to.equal(
        'Plan limit reached: a collection may have at most 5 declared indexes (indexesPerCollection)',
      );
    }
    expect(await projects.countDocuments()).to.equal(before);
    expect(await app.deps.db.platform.collection('backup_jobs').countDocuments({ kind: 'restore' })).to.equal(
      0,
    );
    expect(await app.deps.db.project(fx.project.id).collection('events').countDocuments()).to.equal(1);

    // Within the plan again, the same backup restores, its six indexes with it.
    await app.services.repos.developers.setPlan(fx.developer.id, 'pro');
    const res = await dash.post(restore, { name: 'Copy' });
    expect(res.status, res.text).to.equal(202);
    expect(await backupRunner(app.deps, app.services).drain()).to.equal(1);
    const copy = await dash.get(`/api/projects/${res.body.data.project.id}/collections/events`);
    expect(copy.body.data.collection.indexes).to.have.length(6);
  });
});
