// Storage under failures: a confirm that died between charging the quota and marking the file
// confirmed (the record is put into that state through src/db, as the crash leaves it), and a
// project's own bucket (the stack's S3 server) that stops working after it was saved.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { usageRecountJob } from '../../src/jobs/usage-recount.js';
import { startTestApps } from '../helpers/app.js';
import { createProjectFixture, type ProjectFixture } from '../helpers/fixtures.js';
import type { ApiClient } from '../helpers/client.js';
import { bytes, createBucket, putBytes, rebase, requestUpload, s3Env, upload } from './storage-shared.js';

describe('storage under failures', () => {
  let apps: Awaited<ReturnType<typeof startTestApps>>;
  let dir: string;

  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'baas-storage-failures-'));
    // Internal provider: the filesystem; a project's own bucket is the S3 server.
    apps = await startTestApps('storage_failures', {
      S3_BUCKET: '',
      STORAGE_DIR: dir,
      ALLOW_PRIVATE_HOSTS: 'true',
    });
  });
  after(async () => {
    await apps?.close();
    await rm(dir, { recursive: true, force: true });
  });

  describe('a confirm that crashed after charging the quota', () => {
    let fx: ProjectFixture;
    let client: ApiClient;
    const storageUsed = async () =>
      (await apps.public.services.repos.projects.usage(fx.project.id)).storageUsed;

    beforeEach(async () => {
      fx = await createProjectFixture(apps.public.services);
      client = apps.public.client.with({ 'x-api-key': fx.secretKey });
    });

    /** An uploaded file whose confirm claimed it and charged it, then died (its claim is stale). */
    async function crashedConfirm(size: number) {
      const ticket = await upload({ client, url: (url) => rebase(url, apps.public.url) }, bytes(size));
      const { files } = apps.public.services.storage;
      const record = (await files.findByPath(fx.project.id, ticket.filePath))!;
      const longAgo = new Date(Date.now() - 10 * 60_000);
      expect(await files.claimForConfirm(record.id, longAgo, longAgo)).to.not.equal(undefined);
      const limits = await apps.public.services.projects.limitsOf(fx.project);
      const charged = await apps.public.services.repos.projects.chargeUpload(
        fx.project.id,
        record.id,
        size,
        limits.storageBytes,
      );
      expect(charged).to.equal(size);
      expect(await storageUsed()).to.equal(size);
      return ticket;
    }

    it('charges once when the confirm is retried', async () => {
      const ticket = await crashedConfirm(2000);
      const res = await client.post('/api/storage/upload-confirm', { filePath: ticket.filePath, size: 2000 });
      expect(res.status, res.text).to.equal(200);
      expect(res.body.data).to.include({ path: ticket.filePath, size: 2000 });
      expect(await storageUsed()).to.equal(2000);
      // Idempotent afterwards, and the delete gives back exactly what was charged.
      expect(
        (await client.post('/api/storage/upload-confirm', { filePath: ticket.filePath, size: 2000 })).status,
      ).to.equal(200);
      expect(await storageUsed()).to.equal(2000);
      expect((await client.delete('/api/storage/file', { path: ticket.filePath })).status).to.equal(200);
      expect(await storageUsed()).to.equal(0);
    });

    it('keeps the charge through a usage recount that runs before the retry', async () => {
      const ticket = await crashedConfirm(1800);
      const recount = usageRecountJob(apps.public.deps, apps.public.services);
      expect((await recount.recountProject(fx.project.id)).status).to.equal('exact');
      expect(await storageUsed()).to.equal(1800);
      const res = await client.post('/api/storage/upload-confirm', { filePath: ticket.filePath, size: 1800 });
      expect(res.status, res.text).to.equal(200);
      expect(await storageUsed()).to.equal(1800);
      expect((await recount.recountProject(fx.project.id)).status).to.equal('exact');
    });

    it('gives the charge back when the file is deleted instead of confirmed', async () => {
      const ticket = await crashedConfirm(1500);
      expect((await client.delete('/api/storage/file', { path: ticket.filePath })).status).to.equal(200);
      expect(await storageUsed()).to.equal(0);
    });
  });

  describe("a project's own bucket that fails after it was saved (502)", () => {
    let pro: ProjectFixture;
    let client: ApiClient;
    let bucket: Awaited<ReturnType<typeof createBucket>>;

    before(async () => {
      pro = await createProjectFixture(apps.dashboard.services);
      await apps.dashboard.services.repos.developers.setPlan(pro.developer.id, 'pro');
      client = apps.public.client.with({ 'x-api-key': pro.secretKey });
    });
    beforeEach(async () => {
      bucket = await createBucket('st-fail');
      const saved = await apps.dashboard.client
        .with({ cookie: pro.cookie })
        .put(`/api/projects/${pro.project.id}/storage`, {
          endpoint: s3Env.endpoint,
          region: s3Env.region,
          bucket: bucket.name,
          accessKeyId: s3Env.accessKeyId,
          secretAccessKey: s3Env.secretAccessKey,
        });
      expect(saved.status, saved.text).to.equal(200);
    });
    afterEach(() => bucket.drop().catch(() => undefined));

    /** Keeps the bucket but replaces its saved secret key, as when the key is revoked. */
    async function revokeKeys() {
      const { storage } = apps.public.services;
      await apps.public.deps.db.platform.collection('storage_settings').updateOne(
        { 'external.bucket': bucket.name },
        {
          $set: {
            'external.secretAccessKeyEnc': storage.stores.sealSecret('revoked-secret-key'),
            updatedAt: new Date(),
          },
        },
      );
    }

    it('answers a confirm and a delete with 502 STORAGE_PROVIDER_ERROR without the keys, nothing lost', async () => {
      const ticket = await requestUpload(client, {
        filename: 'a.bin',
        contentType: 'application/octet-stream',
        size: 100,
      });
      expect(ticket.provider).to.equal('external');
      expect((await putBytes(ticket.signedUrl, bytes(100), 'application/octet-stream')).status).to.equal(200);
      await revokeKeys();

      const confirm = await client.post('/api/storage/upload-confirm', {
        filePath: ticket.filePath,
        size: 100,
      });
      expect(confirm.status, confirm.text).to.equal(502);
      expect(confirm.body.code).to.equal('STORAGE_PROVIDER_ERROR');
      expect(confirm.body.message).to.equal(
        "The project's storage bucket failed the request: access denied (check the keys and the bucket policy)",
      );
      expect(confirm.text).to.not.include('revoked-secret-key');
      expect(confirm.text).to.not.include(s3Env.accessKeyId);
      const del = await client.delete('/api/storage/file', { path: ticket.filePath });
      expect(del.status, del.text).to.equal(502);
      expect(del.body.code).to.equal('STORAGE_PROVIDER_ERROR');

      // Nothing was charged by the failed confirm.
      expect((await apps.public.services.repos.projects.usage(pro.project.id)).storageUsed).to.equal(0);
    });

    it('answers a confirm into a removed bucket with 502, not "not arrived yet"', async () => {
      const ticket = await requestUpload(client, {
        filename: 'b.bin',
        contentType: 'application/octet-stream',
        size: 50,
      });
      expect((await putBytes(ticket.signedUrl, bytes(50), 'application/octet-stream')).status).to.equal(200);
      await bucket.drop();
      const confirm = await client.post('/api/storage/upload-confirm', {
        filePath: ticket.filePath,
        size: 50,
      });
      expect(confirm.status, confirm.text).to.equal(502);
      expect(confirm.body).to.include({
        code: 'STORAGE_PROVIDER_ERROR',
        message: "The project's storage bucket failed the request: bucket not found",
      });
    });
  });
});
