// A restore whose worker stops halfway (held at the job runner's progress seam after its first
// batch of 500 documents, as a dead process would be) is taken over by another worker once the
// lease ends and resumed: the result is the same as an uninterrupted restore, nothing duplicated,
// and the stopped worker cannot write its outcome over the one that finished.
import { expect } from 'chai';
import { ObjectId } from 'mongodb';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createProjectFixture, type ProjectFixture } from '../helpers/fixtures.js';
import type { ApiClient } from '../helpers/client.js';
import { backupRunner } from '../../src/jobs/backup-runner.js';
import { dumpDatabase } from './backup-shared.js';

const DOCS = 1_800;

describe('backups: a restore stopped halfway is resumed by another worker', () => {
  let app: TestApp;
  let fx: ProjectFixture;
  let dash: ApiClient;
  let backupId: string;

  before(async () => {
    app = await startTestApp('dashboard', 'backup_resume');
    fx = await createProjectFixture(app.services, 'Big');
    dash = app.client.with({ cookie: fx.cookie });
    await app.services.repos.developers.setPlan(fx.developer.id, 'pro'); // three projects here
    const events = app.deps.db.project(fx.project.id).collection('events');
    await events.insertMany(
      Array.from({ length: DOCS }, (_, i) => ({
        _id: new ObjectId(),
        n: i,
        at: new Date(Date.UTC(2026, 0, 1, 0, 0, i)),
        tags: [`t${i % 7}`],
      })),
    );
    const created = await dash.post(`/api/projects/${fx.project.id}/backups`, { includeUsers: false });
    expect(created.status).to.equal(202);
    backupId = created.body.data.backup.id;
    await backupRunner(app.deps, app.services).drain();
    const done = await dash.get(`/api/projects/${fx.project.id}/backups/${backupId}`);
    expect(done.body.data.backup.state, done.body.data.backup.error).to.equal('done');
  });
  after(() => app?.close());

  const restore = async (name: string) => {
    const res = await dash.post(`/api/projects/${fx.project.id}/backups/${backupId}/restore`, { name });
    expect(res.status, res.text).to.equal(202);
    return { target: res.body.data.project.id as string, restoreId: res.body.data.restore.id as string };
  };

  it('gives the same result as an uninterrupted restore', async () => {
    const source = await dumpDatabase(app.deps.db.project(fx.project.id));

    const whole = await restore('Whole');
    await backupRunner(app.deps, app.services).drain();
    expect(await dumpDatabase(app.deps.db.project(whole.target))).to.deep.equal(source);

    const halted = await restore('Halted');
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let stoppedAt = -1;
    let reached!: () => void;
    const stopped = new Promise<void>((resolve) => (reached = resolve));
    const first = backupRunner(app.deps, app.services, {
      owner: 'worker-a',
      onProgress: async (job, done) => {
        if (job.kind === 'restore' && done > 0 && stoppedAt < 0) {
          stoppedAt = done;
          reached();
          await gate; // the worker stops here: nothing more happens until the test lets it go
        }
      },
    });
    const firstRun = first.drain();
    await stopped;
    const events = app.deps.db.project(halted.target).collection('events');
    expect(stoppedAt).to.equal(500);
    expect(await events.countDocuments()).to.equal(500);
    const midway = await dash.get(`/api/projects/${halted.target}/restores/${halted.restoreId}`);
    expect(midway.body.data.restore).to.deep.include({
      state: 'running',
      progress: { done: 500, total: DOCS },
    });

    // Another worker, once the first one's lease has run out, takes the job over and finishes it.
    const later = () => new Date(Date.now() + 120_000);
    expect(await backupRunner(app.deps, app.services, { owner: 'worker-b', now: later }).drain()).to.equal(1);
    release();
    await firstRun;

    const after = await dash.get(`/api/projects/${halted.target}/restores/${halted.restoreId}`);
    expect(after.body.data.restore).to.deep.include({ state: 'done', progress: { done: DOCS, total: DOCS } });
    expect(await events.countDocuments()).to.equal(DOCS);
    expect(await dumpDatabase(app.deps.db.project(halted.target))).to.deep.equal(source);
    expect(await app.services.repos.projects.usage(halted.target)).to.deep.equal(
      await app.services.repos.projects.usage(whole.target),
    );
  });
});
