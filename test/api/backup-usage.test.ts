// The bytes of a project's kept backups in its usage report (`figures.backupBytes`): counted once a
// backup is done, no longer once it is deleted by hand or by the schedule's retention.
import { expect } from 'chai';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createOperator, createProjectFixture, type ProjectFixture } from '../helpers/fixtures.js';
import type { ApiClient } from '../helpers/client.js';
import { backupRunner } from '../../src/jobs/backup-runner.js';

describe('backups: the storage they take in the usage report', () => {
  let app: TestApp;
  let fx: ProjectFixture;
  let dash: ApiClient;
  const backups = () => `/api/projects/${fx.project.id}/backups`;
  const backupBytes = async () => {
    const res = await dash.get(`/api/projects/${fx.project.id}/usage`);
    expect(res.status, res.text).to.equal(200);
    return res.body.data.figures.backupBytes;
  };

  before(async () => {
    app = await startTestApp('dashboard', 'backup_usage');
    await createOperator(app.services);
    fx = await createProjectFixture(app.services, 'Counted');
    dash = app.client.with({ cookie: fx.cookie });
    await app.deps.db
      .project(fx.project.id)
      .collection('notes')
      .insertMany(Array.from({ length: 50 }, (_, i) => ({ n: i, text: 'x'.repeat(i * 10) })));
  });
  after(() => app?.close());

  it('shows a backup’s size once it is done, and 0 once it is deleted', async () => {
    expect(await backupBytes()).to.deep.equal({
      used: 0,
      limit: 250 * 1024 * 1024,
      limitName: 'backupBytes',
    });
    const created = await dash.post(backups(), {});
    expect(created.status).to.equal(202);
    expect((await backupBytes()).used).to.equal(0); // queued: no archive yet
    await backupRunner(app.deps, app.services).drain();
    const done = (await dash.get(`${backups()}/${created.body.data.backup.id}`)).body.data.backup;
    expect(done.state).to.equal('done');
    expect(done.size).to.be.greaterThan(0);
    expect((await backupBytes()).used).to.equal(done.size);
    expect((await dash.delete(`${backups()}/${done.id}`)).status).to.equal(200);
    expect((await backupBytes()).used).to.equal(0);
  });

  it('follows the retention of scheduled backups', async () => {
    const runner = backupRunner(app.deps, app.services);
    const sizes: number[] = [];
    for (let day = 1; day <= 4; day++) {
      expect(await runner.schedule(new Date(Date.UTC(2026, 6, day, 3)))).to.equal(1);
      await runner.drain();
      const [newest] = (await dash.get(backups())).body.data.backups;
      sizes.push(newest.size);
    }
    const list = (await dash.get(backups())).body.data;
    expect(list.backups).to.have.length(3); // Free keeps 3: the first one was deleted
    expect((await backupBytes()).used)
      .to.equal(list.totalBytes)
      .and.equal(sizes.slice(1).reduce((a, b) => a + b, 0));
  });
});
