// Backups with the filesystem store (no S3 bucket): the archive is written with the store's
// streamed write, its download URL is the API's own archive operation (read with the dashboard
// session), and a restore reads it back.
import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ObjectId } from 'mongodb';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createProjectFixture, type ProjectFixture } from '../helpers/fixtures.js';
import { backupRunner } from '../../src/jobs/backup-runner.js';
import { dumpDatabase } from './backup-shared.js';

describe('backups: with the filesystem store', () => {
  let app: TestApp;
  let fx: ProjectFixture;
  const dir = mkdtempSync(path.join(tmpdir(), 'backup-fs-'));

  before(async () => {
    app = await startTestApp('dashboard', 'backup_fs', { S3_BUCKET: '', STORAGE_DIR: dir });
    fx = await createProjectFixture(app.services, 'On disk');
    await app.deps.db
      .project(fx.project.id)
      .collection('notes')
      .insertMany([
        { _id: new ObjectId(), text: 'one' },
        { _id: new ObjectId(), text: 'two', at: new Date() },
      ]);
  });
  after(async () => {
    await app?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('downloads through the API and restores from the disk', async () => {
    const dash = app.client.with({ cookie: fx.cookie });
    const base = `/api/projects/${fx.project.id}/backups`;
    const id = (await dash.post(base, {})).body.data.backup.id;
    await backupRunner(app.deps, app.services).drain();
    const one = (await dash.get(`${base}/${id}`)).body.data.backup;
    expect(one.state, one.error).to.equal('done');
    const download = await dash.post(`${base}/${id}/download`);
    expect(download.status).to.equal(200);
    expect(download.body.data.url).to.equal(`${base}/${id}/archive`);
    const res = await fetch(new URL(download.body.data.url, app.url), { headers: { cookie: fx.cookie } });
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-disposition')).to.equal(`attachment; filename="backup-${id}.tar.gz"`);
    const bytes = Buffer.from(await res.arrayBuffer());
    expect(createHash('sha256').update(bytes).digest('hex')).to.equal(download.body.data.sha256);
    expect((await fetch(new URL(download.body.data.url, app.url))).status).to.equal(401);

    const restored = await dash.post(`${base}/${id}/restore`, { name: 'From disk' });
    expect(restored.status, restored.text).to.equal(202);
    await backupRunner(app.deps, app.services).drain();
    expect(await dumpDatabase(app.deps.db.project(restored.body.data.project.id))).to.deep.equal(
      await dumpDatabase(app.deps.db.project(fx.project.id)),
    );

    // Deleting the project takes its backups with it: records and archives.
    const key = (await app.deps.db.platform.collection('backup_jobs').findOne({ kind: 'backup' }))!
      .key as string;
    expect((await dash.delete(`/api/projects/${fx.project.id}`)).status).to.equal(200);
    expect(
      await app.deps.db.platform
        .collection('backup_jobs')
        .countDocuments({ projectId: new ObjectId(fx.project.id) }),
    ).to.equal(0);
    expect(await app.services.backups.archives.open(key)).to.equal(undefined);
  });
});
