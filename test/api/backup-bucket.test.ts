// Backups of a project that has its own bucket are written there (a bucket of its own on the
// stack's S3 server; the operator's store is the filesystem): read back, downloaded through a URL
// of that bucket, restored from it, deleted from it; once the project stops using the bucket its
// archives there are out of reach (404) and new backups go to the operator's store.
import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { ObjectId } from 'mongodb';
import { startTestApps } from '../helpers/app.js';
import { createProjectFixture, type ProjectFixture } from '../helpers/fixtures.js';
import type { ApiClient } from '../helpers/client.js';
import { backupRunner } from '../../src/jobs/backup-runner.js';
import { dumpDatabase } from './backup-shared.js';
import { createBucket, s3, s3Env, s3Object } from './storage-shared.js';

describe('backups: kept in the project’s own bucket', () => {
  let bucket: Awaited<ReturnType<typeof createBucket>>;
  let apps: Awaited<ReturnType<typeof startTestApps>>;
  let fx: ProjectFixture;
  let dash: ApiClient;
  const base = () => `/api/projects/${fx.project.id}/backups`;
  const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
  const drain = () => backupRunner(apps.dashboard.deps, apps.dashboard.services).drain();
  const keyOf = async (id: string) =>
    (await apps.dashboard.deps.db.platform.collection('backup_jobs').findOne({ _id: new ObjectId(id) }))!
      .key as string;
  const inBucket = async () =>
    (await s3.send(new ListObjectsV2Command({ Bucket: bucket.name, Prefix: `${fx.project.id}/backup-` })))
      .Contents ?? [];

  const useBucket = async () => {
    const set = await dash.put(`/api/projects/${fx.project.id}/storage`, {
      endpoint: s3Env.endpoint,
      region: s3Env.region,
      bucket: bucket.name,
      accessKeyId: s3Env.accessKeyId,
      secretAccessKey: s3Env.secretAccessKey,
    });
    expect(set.status, set.text).to.equal(200);
  };

  before(async () => {
    bucket = await createBucket('bk-own');
    apps = await startTestApps('backup_bucket', { S3_BUCKET: '', ALLOW_PRIVATE_HOSTS: 'true' });
    fx = await createProjectFixture(apps.dashboard.services, 'Own bucket');
    await apps.dashboard.services.repos.developers.setPlan(fx.developer.id, 'pro');
    dash = apps.dashboard.client.with({ cookie: fx.cookie });
    await useBucket();
    await apps.dashboard.deps.db
      .project(fx.project.id)
      .collection('notes')
      .insertMany(Array.from({ length: 40 }, (_, i) => ({ n: i, at: new Date(Date.UTC(2026, 0, 1 + i)) })));
  });
  after(async () => {
    await apps?.close();
    await bucket?.drop();
  });

  it('writes the archive to the bucket, serves and restores it from there, deletes it there', async () => {
    const created = await dash.post(base(), {});
    expect(created.status).to.equal(202);
    const id = created.body.data.backup.id;
    expect(await drain()).to.equal(1);
    const backup = (await dash.get(`${base()}/${id}`)).body.data.backup;
    expect(backup).to.deep.include({ state: 'done', storage: 'external' });

    const key = await keyOf(id);
    const objects = await inBucket();
    expect(objects.map((o) => [o.Key, o.Size])).to.deep.equal([[key, backup.size]]);
    expect(sha((await s3Object(bucket.name, key))!)).to.equal(backup.sha256);
    expect(await apps.dashboard.services.backups.archives.open(key)).to.equal(undefined); // not in the operator's

    const download = await dash.post(`${base()}/${id}/download`);
    expect(download.status).to.equal(200);
    expect(download.body.data.url.startsWith(`${s3Env.endpoint}/${bucket.name}/`)).to.equal(true);
    const fetched = Buffer.from(await (await fetch(download.body.data.url)).arrayBuffer());
    expect(sha(fetched)).to.equal(backup.sha256);
    const through = await dash.get(`${base()}/${id}/archive`);
    expect(through.status).to.equal(200);

    const restored = await dash.post(`${base()}/${id}/restore`, { name: 'From the bucket' });
    expect(restored.status, restored.text).to.equal(202);
    expect(restored.body.data.restore.storage).to.equal('external');
    expect(await drain()).to.equal(1);
    const target = restored.body.data.project.id;
    const job = (await dash.get(`/api/projects/${target}/restores/${restored.body.data.restore.id}`)).body
      .data.restore;
    expect(job.state, job.error).to.equal('done');
    expect(await dumpDatabase(apps.dashboard.deps.db.project(target))).to.deep.equal(
      await dumpDatabase(apps.dashboard.deps.db.project(fx.project.id)),
    );
    const usage = await dash.get(`/api/projects/${fx.project.id}/usage`);
    expect(usage.body.data.figures.backupBytes.used).to.equal(backup.size);

    expect((await dash.delete(`${base()}/${id}`)).status).to.equal(200);
    expect(await inBucket()).to.deep.equal([]);
  });

  it('once the project leaves the bucket: its archives there are out of reach, new ones go inside', async () => {
    const created = await dash.post(base(), {});
    await drain();
    const id = created.body.data.backup.id;
    expect(await inBucket()).to.have.length(1);
    expect((await dash.delete(`/api/projects/${fx.project.id}/storage`)).status).to.equal(200);

    const archive = await dash.get(`${base()}/${id}/archive`);
    expect(archive.status).to.equal(404);
    expect(archive.body.message).to.match(/in a bucket the project no longer uses/);
    expect((await dash.post(`${base()}/${id}/restore`, { name: 'Gone' })).status).to.equal(404);

    const inside = await dash.post(base(), {});
    expect(inside.status, inside.text).to.equal(202);
    await drain();
    const backup = (await dash.get(`${base()}/${inside.body.data.backup.id}`)).body.data.backup;
    expect(backup).to.deep.include({ state: 'done', storage: 'internal' });
    expect(await apps.dashboard.services.backups.archives.open(await keyOf(backup.id))).not.to.equal(
      undefined,
    );
    // The record of the unreachable one can still be deleted; its object stays in the bucket.
    expect((await dash.delete(`${base()}/${id}`)).status).to.equal(200);
    expect(await inBucket()).to.have.length(1);
  });

  it('deletes the archives in the bucket with the project', async () => {
    await useBucket();
    expect((await dash.post(base(), {})).status).to.equal(202);
    await drain();
    expect(await inBucket()).to.have.length(2); // the one left out of reach above, and this one
    const kept = (await dash.get(base())).body.data.backups.find((b: any) => b.storage === 'external');
    const key = await keyOf(kept.id);
    expect((await dash.delete(`/api/projects/${fx.project.id}`)).status).to.equal(200);
    expect((await inBucket()).map((o) => o.Key)).not.to.include(key);
  });
});
