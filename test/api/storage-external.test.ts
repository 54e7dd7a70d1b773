// The external provider: a project's own S3-compatible bucket, set on the dashboard (Pro only,
// checked with a real request, secret encrypted at rest), and the restricted-host check on its
// endpoint. The "own bucket" is a bucket of its own on the stack's versitygw; ALLOW_PRIVATE_HOSTS
// lets the app reach it on 127.0.0.1, and a second app without it shows the check.
import { expect } from 'chai';
import { startTestApps } from '../helpers/app.js';
import { createProjectFixture, type ProjectFixture } from '../helpers/fixtures.js';
import type { ApiClient } from '../helpers/client.js';
import {
  bytes,
  createBucket,
  putBytes,
  rebase,
  requestUpload,
  s3Env,
  s3Head,
  s3Object,
  upload,
} from './storage-shared.js';

describe('storage with a project bucket (external provider)', () => {
  let bucket: Awaited<ReturnType<typeof createBucket>>;
  let apps: Awaited<ReturnType<typeof startTestApps>>;
  let pro: ProjectFixture;
  let free: ProjectFixture;
  let dash: ApiClient;
  let client: ApiClient;
  const settingsPath = (fx: ProjectFixture) => `/api/projects/${fx.project.id}/storage`;
  const bucketInput = () => ({
    endpoint: s3Env.endpoint,
    region: s3Env.region,
    bucket: bucket.name,
    accessKeyId: s3Env.accessKeyId,
    secretAccessKey: s3Env.secretAccessKey,
    publicUrlBase: `https://cdn.example.com/${bucket.name}`,
  });

  before(async () => {
    bucket = await createBucket('st-ext');
    // Internal provider: the filesystem; the project's own bucket is the S3 server.
    apps = await startTestApps('storage_ext', { S3_BUCKET: '', ALLOW_PRIVATE_HOSTS: 'true' });
    pro = await createProjectFixture(apps.dashboard.services);
    free = await createProjectFixture(apps.dashboard.services);
    await apps.dashboard.services.repos.developers.setPlan(pro.developer.id, 'pro');
    dash = apps.dashboard.client.with({ cookie: pro.cookie });
    client = apps.public.client.with({ 'x-api-key': pro.secretKey });
  });
  after(async () => {
    await apps?.close();
    await bucket?.drop();
  });

  it('starts on the internal provider', async () => {
    const res = await dash.get(settingsPath(pro));
    expect(res.status).to.equal(200);
    expect(res.body.data).to.deep.equal({
      provider: 'internal',
      internal: { backend: 'filesystem', publicUrls: true },
      external: null,
      endUserUploads: false,
      externalStorageAllowed: true,
    });
  });

  it('is a Pro feature (403 on the Free plan)', async () => {
    const res = await apps.dashboard.client
      .with({ cookie: free.cookie })
      .put(settingsPath(free), bucketInput());
    expect(res.status).to.equal(403);
    expect(res.body.code).to.equal('PRO_FEATURE');
    expect(res.body.message).to.match(/Pro feature/);
    const settings = await apps.dashboard.client.with({ cookie: free.cookie }).get(settingsPath(free));
    expect(settings.body.data.externalStorageAllowed).to.equal(false);
  });

  it('checks the bucket with a real request when saving: wrong keys or bucket are a 400, nothing saved', async () => {
    const wrongSecret = await dash.put(settingsPath(pro), {
      ...bucketInput(),
      secretAccessKey: 'not-the-secret',
    });
    expect(wrongSecret.status).to.equal(400);
    expect(wrongSecret.body.code).to.equal('STORAGE_CHECK_FAILED');
    expect(wrongSecret.body.message).to.include('access denied');
    const noBucket = await dash.put(settingsPath(pro), { ...bucketInput(), bucket: 'no-such-bucket-here' });
    expect(noBucket.status).to.equal(400);
    const unreachable = await dash.put(settingsPath(pro), {
      ...bucketInput(),
      endpoint: 'http://127.0.0.1:9',
    });
    expect(unreachable.status).to.equal(400);
    expect((await dash.get(settingsPath(pro))).body.data.external).to.equal(null);
  });

  it('validates the input: unknown fields, bad bucket names, non-http endpoints', async () => {
    expect((await dash.put(settingsPath(pro), { ...bucketInput(), extra: 1 })).status).to.equal(400);
    expect((await dash.put(settingsPath(pro), { ...bucketInput(), bucket: 'Bad_Bucket' })).status).to.equal(
      400,
    );
    // Each refusal names the field and what to change, in the message and in its detail.
    for (const [endpoint, message] of [
      [
        'not a url',
        'The endpoint is not a URL: enter the full address of the S3 API, such as https://s3.eu-west-1.amazonaws.com',
      ],
      ['ftp://x.example.com', 'The endpoint must be an https:// address; ftp is not supported'],
      [
        'https://u:p@x.example.com',
        'Remove the user name and password from the endpoint: the access key and its secret go in their own fields',
      ],
      [
        'https://x.example.com/?region=1',
        'Remove the query and fragment from the endpoint: it is the base address of the S3 API',
      ],
    ]) {
      const res = await dash.put(settingsPath(pro), { ...bucketInput(), endpoint });
      expect(res.status, endpoint).to.equal(400);
      expect(res.body.message, endpoint).to.equal(message);
      expect(res.body.details, endpoint).to.deep.equal([{ path: 'body.endpoint', message }]);
    }
    const { secretAccessKey: _omit, ...noSecret } = bucketInput();
    expect((await dash.put(settingsPath(pro), noSecret)).status).to.equal(400);
  });

  it('saves a working bucket with the secret encrypted at rest and never returned', async () => {
    const res = await dash.put(settingsPath(pro), bucketInput());
    expect(res.status).to.equal(200);
    expect(res.body.data.provider).to.equal('external');
    expect(res.body.data.external).to.deep.include({
      endpoint: s3Env.endpoint,
      bucket: bucket.name,
      accessKeyId: s3Env.accessKeyId,
      publicUrlBase: `https://cdn.example.com/${bucket.name}`,
      forcePathStyle: true,
      hasSecretAccessKey: true,
    });
    expect(res.text).not.to.include(s3Env.secretAccessKey);
    const stored = await apps.dashboard.deps.db.platform.collection('storage_settings').findOne({});
    expect(JSON.stringify(stored)).not.to.include(s3Env.secretAccessKey);
    expect(stored!.external.secretAccessKeyEnc).to.match(/^v1\./);
    const read = await dash.get(settingsPath(pro));
    expect(read.text).not.to.include(s3Env.secretAccessKey);
    expect(read.body.data.external.hasSecretAccessKey).to.equal(true);
  });

  it('uploads to the project bucket: presigned URL, confirm with its public URL, delete', async () => {
    const content = bytes(3000);
    const ticket = await requestUpload(client, {
      filename: 'pic.jpg',
      contentType: 'image/jpeg',
      size: 3000,
    });
    expect(ticket.provider).to.equal('external');
    expect(
      ticket.signedUrl.startsWith(`${s3Env.endpoint}/${bucket.name}/.staging/${pro.project.id}/`),
    ).to.equal(true, 'the URL writes to a staging key, copied to the path at confirm');
    expect(
      [...new URL(ticket.signedUrl).searchParams.keys()].filter((k) => /checksum/i.test(k)),
    ).to.deep.equal([]);
    expect((await putBytes(ticket.signedUrl, content, 'image/png')).status).to.equal(403, 'wrong type');
    expect((await putBytes(ticket.signedUrl, content, 'image/jpeg')).status).to.equal(200);
    const confirmed = await client.post('/api/storage/upload-confirm', {
      filePath: ticket.filePath,
      size: 3000,
    });
    expect(confirmed.status).to.equal(200);
    expect(confirmed.body.data).to.deep.include({
      provider: 'external',
      url: `https://cdn.example.com/${bucket.name}/${ticket.filePath}`,
    });
    expect((await s3Object(bucket.name, ticket.filePath))!.equals(content)).to.equal(true);
    expect((await putBytes(ticket.signedUrl, bytes(3000), 'image/jpeg')).status).to.be.oneOf([200, 403]);
    expect((await s3Object(bucket.name, ticket.filePath))!.equals(content)).to.equal(true, 'not overwritten');
    expect((await client.delete('/api/storage/file', { path: ticket.filePath })).status).to.equal(200);
    expect(await s3Head(bucket.name, ticket.filePath)).to.equal(undefined);
  });

  it('goes back to the internal provider on DELETE; files already in the bucket stay deletable', async () => {
    const kept = await upload({ client }, bytes(10));
    expect(
      (await client.post('/api/storage/upload-confirm', { filePath: kept.filePath, size: 10 })).status,
    ).to.equal(200);
    const res = await dash.delete(settingsPath(pro));
    expect(res.status).to.equal(200);
    expect(res.body.data).to.deep.include({ provider: 'internal', external: null });
    const ticket = await requestUpload(client, { filename: 'a.txt', contentType: 'text/plain', size: 5 });
    expect(ticket.provider).to.equal('internal');
    const local = rebase(ticket.signedUrl, apps.public.url);
    expect((await putBytes(local, Buffer.from('hello'), 'text/plain')).status).to.equal(200);
    const usageBefore = (await apps.public.services.repos.projects.findById(pro.project.id))!.usage
      .storageUsed;
    expect((await client.delete('/api/storage/file', { path: kept.filePath })).status).to.equal(200);
    const usageAfter = (await apps.public.services.repos.projects.findById(pro.project.id))!.usage
      .storageUsed;
    expect(usageBefore - usageAfter).to.equal(10);
  });

  it('toggles end-user uploads with PATCH; an empty or unknown change is a 400', async () => {
    const on = await dash.patch(settingsPath(pro), { endUserUploads: true });
    expect(on.status).to.equal(200);
    expect(on.body.data.endUserUploads).to.equal(true);
    expect((await dash.patch(settingsPath(pro), {})).status).to.equal(400);
    expect((await dash.patch(settingsPath(pro), { endUserUploads: 'yes' })).status).to.equal(400);
    expect((await dash.patch(settingsPath(pro), { endUserUploads: false, other: 1 })).status).to.equal(400);
  });

  it('is for project admins with a session: 401, 400 for a malformed id, 404 for others, 403 cross-site', async () => {
    for (const [method, body] of [
      ['GET', undefined],
      ['PUT', bucketInput()],
      ['PATCH', { endUserUploads: true }],
      ['DELETE', undefined],
    ] as const) {
      const anon = await apps.dashboard.client.request(method, settingsPath(pro), { body });
      expect(anon.status, method).to.equal(401);
      const badId = await dash.request(method, '/api/projects/not-an-id/storage', { body });
      expect(badId.status, method).to.equal(400);
      const stranger = await apps.dashboard.client
        .with({ cookie: free.cookie })
        .request(method, settingsPath(pro), { body });
      expect(stranger.status, method).to.equal(404);
      if (method !== 'GET') {
        const csrf = await dash.request(method, settingsPath(pro), {
          body,
          headers: { origin: 'https://evil.example' },
        });
        expect(csrf.status, method).to.equal(403);
      }
    }
  });

  describe('restricted hosts (ALLOW_PRIVATE_HOSTS off)', () => {
    let strict: Awaited<ReturnType<typeof startTestApps>>;
    let owner: ProjectFixture;
    before(async () => {
      strict = await startTestApps('storage_ext_strict', { S3_BUCKET: '', ALLOW_PRIVATE_HOSTS: 'false' });
      owner = await createProjectFixture(strict.dashboard.services);
      await strict.dashboard.services.repos.developers.setPlan(owner.developer.id, 'pro');
    });
    after(() => strict.close());

    it('refuses endpoints on loopback, private, link-local, metadata and mapped addresses', async () => {
      const c = strict.dashboard.client.with({ cookie: owner.cookie });
      for (const endpoint of [
        s3Env.endpoint.replace('http://', 'https://'),
        'https://localhost:9000',
        'https://app.localhost',
        'https://127.0.0.1',
        'https://10.1.2.3',
        'https://172.20.0.1',
        'https://192.168.1.10',
        'https://169.254.169.254',
        'https://metadata.google.internal',
        'https://[::1]',
        'https://[::ffff:127.0.0.1]',
        'https://[fd00::1]',
        'https://[fe80::1]',
        'https://0.0.0.0',
        'https://2130706433',
      ]) {
        const res = await c.put(`/api/projects/${owner.project.id}/storage`, { ...bucketInput(), endpoint });
        expect(res.status, endpoint).to.equal(400);
        expect(res.body.code, endpoint).to.equal('RESTRICTED_HOST');
        expect(res.body.message).to.match(/restricted host/);
      }
      const http = await c.put(`/api/projects/${owner.project.id}/storage`, {
        ...bucketInput(),
        endpoint: 'http://s3.example.com',
      });
      expect(http.status).to.equal(400);
      expect(http.body.message).to.equal(
        'The endpoint must use https://; plain http is accepted only where the operator allows private hosts (ALLOW_PRIVATE_HOSTS)',
      );
    });
  });
});
