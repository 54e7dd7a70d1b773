// Backups with the secret key on the public API: back up now, list, read, download (a signed URL
// and through the API), delete; 401 without a key, 403 with the publishable key, 400/404/409.
import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { ObjectId } from 'mongodb';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createProjectFixture, type ProjectFixture } from '../helpers/fixtures.js';
import type { ApiClient } from '../helpers/client.js';
import { backupRunner } from '../../src/jobs/backup-runner.js';

describe('backups: with the secret key', () => {
  let app: TestApp;
  let fx: ProjectFixture;
  let secret: ApiClient;

  before(async () => {
    app = await startTestApp('public', 'backup_key');
    fx = await createProjectFixture(app.services, 'Keyed');
    secret = app.client.with({ 'x-api-key': fx.secretKey });
    await app.deps.db
      .project(fx.project.id)
      .collection('notes')
      .insertOne({ _id: new ObjectId(), text: 'hi' });
  });
  after(() => app?.close());

  it('backs up, lists, downloads and deletes', async () => {
    expect((await secret.post('/api/backups', { nope: 1 })).status).to.equal(400);
    const created = await secret.post('/api/backups', { includeUsers: false });
    expect(created.status).to.equal(202);
    const id = created.body.data.backup.id;
    expect((await secret.post('/api/backups', {})).status).to.equal(409);
    expect((await secret.post(`/api/backups/${id}/download`)).status).to.equal(409);
    expect((await secret.get(`/api/backups/${id}/archive`)).status).to.equal(409);
    const jobs = app.deps.db.platform.collection('backup_jobs');
    await jobs.updateOne({ _id: new ObjectId(id) }, { $set: { state: 'running' } });
    expect((await secret.delete(`/api/backups/${id}`)).status).to.equal(409);
    await jobs.updateOne({ _id: new ObjectId(id) }, { $set: { state: 'queued' } });

    await backupRunner(app.deps, app.services).drain();
    const one = await secret.get(`/api/backups/${id}`);
    expect(one.status).to.equal(200);
    expect(one.body.data.backup).to.deep.include({ state: 'done', includeUsers: false });
    expect((await secret.get('/api/backups')).body.data.backups.map((b: any) => b.id)).to.deep.equal([id]);
    const download = await secret.post(`/api/backups/${id}/download`);
    expect(download.status).to.equal(200);
    expect(download.body.data.containsPasswordHashes).to.equal(false);
    const bytes = Buffer.from(await (await fetch(download.body.data.url)).arrayBuffer());
    expect(createHash('sha256').update(bytes).digest('hex')).to.equal(one.body.data.backup.sha256);
    const archive = await secret.get(`/api/backups/${id}/archive`);
    expect(archive.status).to.equal(200);
    expect(archive.headers.get('content-length')).to.equal(String(bytes.length));

    expect((await secret.delete(`/api/backups/${id}`)).status).to.equal(200);
    for (const [method, path] of [
      ['GET', `/api/backups/${id}`],
      ['DELETE', `/api/backups/${id}`],
      ['POST', `/api/backups/${id}/download`],
      ['GET', `/api/backups/${id}/archive`],
    ] as const) {
      expect((await secret.request(method, path)).status, `${method} ${path}`).to.equal(404);
    }
  });

  it('needs the secret key: 401 without a key, 403 with the publishable one', async () => {
    const id = new ObjectId().toHexString();
    const publishable = app.client.with({ 'x-api-key': fx.publishableKey });
    for (const [method, path] of [
      ['GET', '/api/backups'],
      ['POST', '/api/backups'],
      ['GET', `/api/backups/${id}`],
      ['DELETE', `/api/backups/${id}`],
      ['POST', `/api/backups/${id}/download`],
      ['GET', `/api/backups/${id}/archive`],
    ] as const) {
      expect((await app.client.request(method, path)).status, `${method} ${path} 401`).to.equal(401);
      const res = await publishable.request(method, path);
      expect(res.status, `${method} ${path} 403`).to.equal(403);
      expect(res.text).to.include('SECRET_KEY_REQUIRED');
    }
  });
});
