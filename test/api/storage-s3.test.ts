// File storage with the internal provider on the operator's S3-compatible bucket (versitygw on
// the test stack, which checks SigV4 signatures, signed headers and expiry like S3). Each app
// here gets a bucket of its own.
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { expect } from 'chai';
import { startTestApps } from '../helpers/app.js';
import { createProjectFixture, type ProjectFixture } from '../helpers/fixtures.js';
import type { ApiClient } from '../helpers/client.js';
import { uploadCleanupJob } from '../../src/jobs/upload-cleanup.js';
import {
  bytes,
  createBucket,
  putBytes,
  requestUpload,
  s3,
  s3Env,
  s3Head,
  s3Object,
  upload,
  type UploadSteps,
} from './storage-shared.js';

const MB = 1024 * 1024;

describe('storage with the operator S3 bucket', () => {
  let bucket: Awaited<ReturnType<typeof createBucket>>;
  let apps: Awaited<ReturnType<typeof startTestApps>>;
  let fx: ProjectFixture;
  let client: ApiClient;
  let steps: UploadSteps;

  before(async () => {
    bucket = await createBucket('st-s3');
    apps = await startTestApps('storage_s3', { S3_BUCKET: bucket.name, S3_PUBLIC_URL: '' });
    fx = await createProjectFixture(apps.public.services);
    client = apps.public.client.with({ 'x-api-key': fx.secretKey });
    steps = { client };
  });
  after(async () => {
    await apps?.close();
    await bucket?.drop();
  });

  const usage = async (projectId = fx.project.id) =>
    (await apps.public.services.repos.projects.findById(projectId))!.usage.storageUsed;
  const confirm = (filePath: string, size: number, c = client) =>
    c.post('/api/storage/upload-confirm', { filePath, size });
  const remove = (filePath: string, c = client) => c.delete('/api/storage/file', { path: filePath });

  it('runs the whole flow with real bytes: request, PUT to the bucket, confirm, read back, delete', async () => {
    const content = bytes(200_000);
    const ticket = await requestUpload(client, {
      filename: 'report.pdf',
      contentType: 'application/pdf',
      size: content.length,
    });
    const url = new URL(ticket.signedUrl);
    expect(`${url.protocol}//${url.host}`).to.equal(s3Env.endpoint);
    // The URL writes to a staging key of its own, never to the file's path (see "finished uploads").
    expect(url.pathname).to.match(new RegExp(`^/${bucket.name}/\\.staging/${fx.project.id}/[0-9a-f-]{36}$`));
    expect(url.searchParams.get('X-Amz-Expires')).to.equal('900');
    expect(url.searchParams.get('X-Amz-SignedHeaders')!.split(';')).to.include.members([
      'content-type',
      'content-length',
      'host',
    ]);

    const put = await putBytes(ticket.signedUrl, content, 'application/pdf');
    expect(put.status).to.equal(200);
    const confirmed = await confirm(ticket.filePath, content.length);
    expect(confirmed.status).to.equal(200);
    expect(confirmed.body.data).to.deep.include({
      path: ticket.filePath,
      provider: 'internal',
      url: null,
      size: content.length,
    });
    expect(confirmed.body.data.warning)
      .to.be.a('string')
      .and.match(/no public URL/);
    expect(await usage()).to.equal(content.length);
    expect((await s3Object(bucket.name, ticket.filePath))!.equals(content)).to.equal(true);
    expect(await s3Head(bucket.name, ticket.filePath)).to.deep.equal({
      size: content.length,
      contentType: 'application/pdf',
    });

    expect((await remove(ticket.filePath)).status).to.equal(200);
    expect(await s3Head(bucket.name, ticket.filePath)).to.equal(undefined);
    expect(await usage()).to.equal(0);
    expect((await remove(ticket.filePath)).status).to.equal(404);
  });

  it('issues presigned URLs without any x-amz-checksum-* or x-amz-sdk-checksum parameter', async () => {
    for (const contentType of ['image/png', 'text/plain; charset=utf-8']) {
      const ticket = await requestUpload(client, { filename: 'a', contentType, size: 10 });
      const names = [...new URL(ticket.signedUrl).searchParams.keys()].map((k) => k.toLowerCase());
      expect(
        names.filter((n) => n.includes('checksum')),
        ticket.signedUrl,
      ).to.deep.equal([]);
    }
  });

  it('has the bucket refuse a wrong Content-Type, a larger body, a tampered and an expired URL (403)', async () => {
    const content = bytes(256);
    const ticket = await requestUpload(client, {
      filename: 'x.txt',
      contentType: 'text/plain',
      size: content.length,
    });
    expect((await putBytes(ticket.signedUrl, content, 'text/html')).status).to.equal(403);
    expect((await putBytes(ticket.signedUrl, bytes(300), 'text/plain')).status).to.equal(403);
    const other = await requestUpload(client, {
      filename: 'y.txt',
      contentType: 'text/plain',
      size: content.length,
    });
    const swapped = new URL(ticket.signedUrl);
    swapped.pathname = new URL(other.signedUrl).pathname;
    expect((await putBytes(swapped.toString(), content, 'text/plain')).status).to.equal(403);
    const longer = new URL(ticket.signedUrl);
    longer.searchParams.set('X-Amz-Expires', '604800');
    expect((await putBytes(longer.toString(), content, 'text/plain')).status).to.equal(403);

    const expired = await apps.public.services.storage.stores.internal.presignPut({
      key: ticket.filePath,
      contentType: 'text/plain',
      size: content.length,
      expiresInSeconds: 900,
      now: new Date(Date.now() - 16 * 60_000),
    });
    expect((await putBytes(expired.url, content, 'text/plain')).status).to.equal(403);
    expect(await s3Head(bucket.name, ticket.filePath)).to.equal(undefined, 'nothing was stored');
    expect(await s3Head(bucket.name, other.filePath)).to.equal(undefined);
    expect((await putBytes(ticket.signedUrl, content, 'text/plain')).status).to.equal(
      200,
      'the real URL works',
    );
  });

  it('answers a browser CORS preflight for the presigned PUT (bucket CORS rules)', async () => {
    const ticket = await requestUpload(client, { filename: 'b.png', contentType: 'image/png', size: 10 });
    const res = await fetch(ticket.signedUrl, {
      method: 'OPTIONS',
      headers: {
        origin: 'https://app.example.com',
        'access-control-request-method': 'PUT',
        'access-control-request-headers': 'content-type',
      },
    });
    expect(res.status).to.be.oneOf([200, 204]);
    expect(res.headers.get('access-control-allow-origin')).to.be.oneOf(['*', 'https://app.example.com']);
    expect(res.headers.get('access-control-allow-methods')).to.include('PUT');
    expect(res.headers.get('access-control-allow-headers')!.toLowerCase()).to.include('content-type');
  });

  it('answers 409 UPLOAD_NOT_READY until the object is in the bucket, then confirms', async () => {
    const content = bytes(1000);
    const ticket = await requestUpload(client, {
      filename: 'c.bin',
      contentType: 'application/octet-stream',
      size: 1000,
    });
    const before = await usage();
    const early = await confirm(ticket.filePath, 1000);
    expect(early.status).to.equal(409);
    expect(early.body.code).to.equal('UPLOAD_NOT_READY');
    expect(await usage()).to.equal(before);
    expect((await putBytes(ticket.signedUrl, content, 'application/octet-stream')).status).to.equal(200);
    expect((await confirm(ticket.filePath, 1000)).status).to.equal(200);
    expect((await confirm(ticket.filePath, 1000)).status).to.equal(200, 'idempotent');
    expect(await usage()).to.equal(before + 1000);
  });

  it('lets exactly one of two confirms racing for the last megabyte win; the loser object is deleted', async () => {
    const racer = await createProjectFixture(apps.public.services);
    const c = apps.public.client.with({ 'x-api-key': racer.secretKey });
    await apps.public.services.repos.projects.setLimits(racer.project.id, { storageBytes: 1.5 * MB });
    const a = await upload({ client: c }, bytes(MB));
    const b = await upload({ client: c }, bytes(MB));
    const results = await Promise.all([confirm(a.filePath, MB, c), confirm(b.filePath, MB, c)]);
    expect(results.map((r) => r.status).sort()).to.deep.equal([200, 403]);
    const [loser, winner] = results[0]!.status === 403 ? [a, b] : [b, a];
    expect(await s3Head(bucket.name, loser.filePath)).to.equal(undefined);
    expect(await s3Head(bucket.name, winner.filePath)).to.deep.include({ size: MB });
    expect(await usage(racer.project.id)).to.equal(MB);
  });

  it('does not serve files or receive uploads through the public API (404)', async () => {
    const ticket = await upload(steps, bytes(10));
    expect((await confirm(ticket.filePath, 10)).status).to.equal(200);
    expect((await apps.public.client.get(`/files/${ticket.filePath}`)).status).to.equal(404);
    const put = await apps.public.client.request('PUT', `/api/storage/objects/${ticket.filePath}`, {
      query: { expires: Math.floor(Date.now() / 1000) + 60, maxSize: 10, signature: 'x' },
      rawBody: bytes(10),
      headers: { 'content-type': 'application/octet-stream' },
    });
    expect(put.status).to.equal(404);
  });

  it('removes expired unconfirmed uploads from the bucket (worker job)', async () => {
    const stale = await upload(steps, bytes(100));
    await apps.public.deps.db.platform
      .collection('files')
      .updateOne({ path: stale.filePath }, { $set: { expiresAt: new Date(Date.now() - 3600_000) } });
    await uploadCleanupJob(apps.public.deps, apps.public.services).run();
    expect(await s3Head(bucket.name, stale.filePath)).to.equal(undefined);
    const stagingKey = new URL(stale.signedUrl).pathname.slice(bucket.name.length + 2);
    expect(await s3Head(bucket.name, stagingKey)).to.equal(undefined, 'staging object removed');
    expect((await confirm(stale.filePath, 100)).status).to.equal(404);
  });

  describe('finished uploads', () => {
    // A presigned URL cannot be revoked and stays valid for 15 minutes: once the upload is
    // confirmed or deleted, whatever it still writes must be neither served, nor charged, nor kept.
    let owner: ProjectFixture;
    let c: ApiClient;
    beforeEach(async () => {
      owner = await createProjectFixture(apps.public.services);
      c = apps.public.client.with({ 'x-api-key': owner.secretKey });
    });
    const keysOf = async (projectId: string) => {
      const out = await s3.send(new ListObjectsV2Command({ Bucket: bucket.name }));
      return (out.Contents ?? []).map((item) => item.Key!).filter((key) => key.includes(projectId));
    };
    /** The worker's sweep, run as if the URLs had expired long ago. */
    const sweepLater = () => apps.public.services.storage.cleanupUploads(new Date(Date.now() + 60 * 60_000));

    it('ignores a PUT to the URL of a confirmed upload: the file and the charge stay the same', async () => {
      const first = bytes(1000);
      const ticket = await upload({ client: c }, first);
      expect((await confirm(ticket.filePath, 1000, c)).status).to.equal(200);
      const again = await putBytes(ticket.signedUrl, bytes(1000), 'application/octet-stream');
      expect(again.status).to.be.oneOf([200, 403]);
      expect((await s3Object(bucket.name, ticket.filePath))!.equals(first)).to.equal(
        true,
        'the confirmed file was not overwritten',
      );
      const repeated = await confirm(ticket.filePath, 1000, c);
      expect(repeated.status).to.equal(200);
      expect(await usage(owner.project.id)).to.equal(1000);
      await sweepLater();
      expect(await keysOf(owner.project.id)).to.deep.equal([ticket.filePath]);
      expect((await s3Object(bucket.name, ticket.filePath))!.equals(first)).to.equal(true);
    });

    it('keeps nothing that the URL of a deleted upload writes', async () => {
      const ticket = await upload({ client: c }, bytes(500));
      expect((await confirm(ticket.filePath, 500, c)).status).to.equal(200);
      expect((await remove(ticket.filePath, c)).status).to.equal(200);
      const again = await putBytes(ticket.signedUrl, bytes(500), 'application/octet-stream');
      expect(again.status).to.be.oneOf([200, 403]);
      expect(await s3Head(bucket.name, ticket.filePath)).to.equal(undefined, 'not served at its path');
      expect((await confirm(ticket.filePath, 500, c)).status).to.equal(404);
      await sweepLater();
      expect(await keysOf(owner.project.id)).to.deep.equal([], 'no object without a record');
      expect(await usage(owner.project.id)).to.equal(0);
    });

    it('keeps nothing of an upload deleted before it was confirmed', async () => {
      const ticket = await upload({ client: c }, bytes(300));
      expect((await remove(ticket.filePath, c)).status).to.equal(200);
      expect((await putBytes(ticket.signedUrl, bytes(300), 'application/octet-stream')).status).to.be.oneOf([
        200, 403,
      ]);
      expect((await confirm(ticket.filePath, 300, c)).status).to.equal(404);
      await sweepLater();
      expect(await keysOf(owner.project.id)).to.deep.equal([]);
      expect(await usage(owner.project.id)).to.equal(0);
    });
  });

  describe('with S3_PUBLIC_URL', () => {
    let withUrl: Awaited<ReturnType<typeof startTestApps>>;
    before(async () => {
      withUrl = await startTestApps('storage_s3_url', {
        S3_BUCKET: bucket.name,
        S3_PUBLIC_URL: `${s3Env.endpoint}/${bucket.name}/`,
      });
    });
    after(() => withUrl.close());

    it('returns the public URL of the file', async () => {
      const owner = await createProjectFixture(withUrl.public.services);
      const c = withUrl.public.client.with({ 'x-api-key': owner.secretKey });
      const ticket = await upload({ client: c }, Buffer.from('public bytes'), 'text/plain', 'p.txt');
      const res = await confirm(ticket.filePath, 12, c);
      expect(res.status).to.equal(200);
      expect(res.body.data.url).to.equal(`${s3Env.endpoint}/${bucket.name}/${ticket.filePath}`);
      expect(res.body.data).not.to.have.property('warning');
    });
  });
});
