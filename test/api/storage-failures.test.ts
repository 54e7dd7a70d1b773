// Storage under failures: a confirm that died between charging the quota and marking the file
// confirmed (the record is put into that state through src/db, as the crash leaves it), and a
// project's own bucket (the stack's S3 server) that stops working after it was saved.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { startTestApps } from '../helpers/app.js';
import { createProjectFixture, type ProjectFixture } from '../helpers/fixtures.js';
import type { ApiClient } from '../helpers/client.js';
import { bytes, rebase, upload } from './storage-shared.js';

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

    it('gives the charge back when the file is deleted instead of confirmed', async () => {
      const ticket = await crashedConfirm(1500);
      expect((await client.delete('/api/storage/file', { path: ticket.filePath })).status).to.equal(200);
      expect(await storageUsed()).to.equal(0);
    });
  });
});
