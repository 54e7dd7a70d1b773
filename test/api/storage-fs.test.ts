// File storage with the default internal provider, the local filesystem: signed upload URLs and
// public files served by the public API itself. Real bytes over HTTP, end to end.
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { startTestApps } from '../helpers/app.js';
import { createProjectFixture, userToken, type ProjectFixture } from '../helpers/fixtures.js';
import type { ApiClient } from '../helpers/client.js';
import { uploadCleanupJob } from '../../src/jobs/upload-cleanup.js';
import { bytes, putBytes, rebase, requestUpload, upload, type UploadSteps } from './storage-shared.js';

const MB = 1024 * 1024;
/** The origin of a page that uploads and downloads from a browser. */
const PAGE = 'https://app.example.com';

describe('storage with the filesystem store', () => {
  let apps: Awaited<ReturnType<typeof startTestApps>>;
  let dir: string;
  let fx: ProjectFixture;
  let client: ApiClient;
  let steps: UploadSteps;
  const local = (url: string) => rebase(url, apps.public.url);

  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'baas-storage-'));
    apps = await startTestApps('storage_fs', { S3_BUCKET: '', STORAGE_DIR: dir });
    fx = await createProjectFixture(apps.public.services);
    client = apps.public.client.with({ 'x-api-key': fx.secretKey });
    steps = { client, url: local };
  });
  after(async () => {
    await apps.close();
    await rm(dir, { recursive: true, force: true });
  });

  const usage = async (projectId = fx.project.id) =>
    (await apps.public.services.repos.projects.findById(projectId))!.usage.storageUsed;
  const setStorageLimit = (bytes: number, projectId = fx.project.id) =>
    apps.public.services.repos.projects.setLimits(projectId, { storageBytes: bytes });
  const confirm = (filePath: string, size: number, c = client) =>
    c.post('/api/storage/upload-confirm', { filePath, size });
  const remove = (filePath: string, c = client) => c.delete('/api/storage/file', { path: filePath });
  const fileUrl = (filePath: string) => `${apps.public.url}/files/${filePath}`;
  /** A PUT to a signed URL through the spec-validating client (the URL is one of this API). */
  const putViaClient = (signedUrl: string, body: Buffer, contentType: string) => {
    const u = new URL(signedUrl);
    return apps.public.client.request('PUT', u.pathname + u.search, {
      rawBody: body,
      headers: { 'content-type': contentType, origin: PAGE },
    });
  };

  it('runs the whole flow with real bytes: request, PUT, confirm, public GET, delete', async () => {
    const content = bytes(150_000);
    const before = await usage();
    const ticket = await requestUpload(client, {
      filename: 'Photo of me.PNG',
      contentType: 'image/png',
      size: content.length,
    });
    expect(ticket.provider).to.equal('internal');
    expect(ticket.filePath).to.match(new RegExp(`^${fx.project.id}/[0-9a-f-]{36}_Photo_of_me\\.PNG$`));
    expect(ticket.signedUrl).to.match(/\/api\/storage\/objects\/.+\?expires=\d+&maxSize=150000&signature=/);
    expect(Date.parse(ticket.expiresAt) - Date.now()).to.be.within(14 * 60_000, 15 * 60_000 + 1000);

    const put = await putViaClient(ticket.signedUrl, content, 'image/png');
    expect(put.status).to.equal(200);
    expect(put.body.data).to.deep.equal({ path: ticket.filePath, size: content.length });
    expect(put.headers.get('access-control-allow-origin')).to.equal(PAGE);
    expect(put.headers.get('access-control-allow-credentials'), 'the URL is the credential').to.equal(null);
    expect(await usage()).to.equal(before, 'nothing charged before the confirm');

    const confirmed = await confirm(ticket.filePath, content.length);
    expect(confirmed.status).to.equal(200);
    expect(confirmed.body.data).to.deep.include({
      message: 'File uploaded successfully',
      path: ticket.filePath,
      provider: 'internal',
      size: content.length,
    });
    expect(confirmed.body.data).not.to.have.property('warning');
    expect(confirmed.body.data.url).to.equal(`${apps.public.deps.config.publicUrl}/files/${ticket.filePath}`);
    expect(await usage()).to.equal(before + content.length);

    const res = await apps.public.client.get(`/files/${ticket.filePath}`, { headers: { origin: PAGE } });
    expect(res.status).to.equal(200);
    expect(res.headers.get('access-control-allow-origin')).to.equal(PAGE);
    expect(res.headers.get('access-control-allow-credentials'), 'no key, no cookies').to.equal(null);
    expect(res.headers.get('vary')).to.include('Origin');
    expect(res.headers.get('content-type')).to.equal('image/png');
    expect(res.headers.get('x-content-type-options')).to.equal('nosniff');
    expect(res.headers.get('content-security-policy')).to.include('sandbox');
    const downloaded = Buffer.from(await (await fetch(fileUrl(ticket.filePath))).arrayBuffer());
    expect(downloaded.equals(content)).to.equal(true);

    const deleted = await remove(ticket.filePath);
    expect(deleted.status).to.equal(200);
    expect(deleted.body).to.deep.equal({ success: true, data: {}, message: 'File deleted successfully' });
    expect(await usage()).to.equal(before);
    expect((await apps.public.client.get(`/files/${ticket.filePath}`)).status).to.equal(404);
    const again = await remove(ticket.filePath);
    expect(again.status).to.equal(404);
    expect(again.body.code).to.equal('FILE_NOT_FOUND');
  });

  it('serves a JSON or HTML upload as stored bytes with its own type, never parsed or sniffed', async () => {
    const json = Buffer.from('{"a": 1, "__proto__": {"x": 1}}');
    const ticket = await upload(steps, json, 'application/json', 'data.json');
    expect((await confirm(ticket.filePath, json.length)).status).to.equal(200);
    const res = await fetch(fileUrl(ticket.filePath));
    expect(res.headers.get('content-type')).to.equal('application/json');
    expect(Buffer.from(await res.arrayBuffer()).equals(json)).to.equal(true);

    const html = Buffer.from('<script>alert(1)</script>');
    const page = await upload(steps, html, 'text/html', 'x.html');
    expect((await confirm(page.filePath, html.length)).status).to.equal(200);
    const served = await fetch(fileUrl(page.filePath));
    expect(served.headers.get('content-security-policy')).to.match(/default-src 'none'.*sandbox/);
  });

  it('confirm is idempotent: a repeated confirm returns the same result and charges once', async () => {
    const content = bytes(4000);
    const ticket = await upload(steps, content);
    const before = await usage();
    const first = await confirm(ticket.filePath, content.length);
    const second = await confirm(ticket.filePath, content.length);
    expect(first.status).to.equal(200);
    expect(second.status).to.equal(200);
    expect(second.body.data).to.deep.equal(first.body.data);
    expect(await usage()).to.equal(before + content.length);
  });

  it('charges once when the same upload is confirmed twice at the same moment', async () => {
    const content = bytes(3000);
    const ticket = await upload(steps, content);
    const before = await usage();
    const results = await Promise.all([1, 2, 3].map(() => confirm(ticket.filePath, content.length)));
    for (const r of results) expect(r.status).to.be.oneOf([200, 409]);
    expect(results.filter((r) => r.status === 200)).to.have.length.greaterThan(0);
    expect((await confirm(ticket.filePath, content.length)).status).to.equal(200);
    expect(await usage()).to.equal(before + content.length);
  });

  it('removes the files of a deleted project', async () => {
    const doomed = await createProjectFixture(apps.public.services);
    const c = apps.public.client.with({ 'x-api-key': doomed.secretKey });
    const kept = await upload({ client: c, url: local }, bytes(50));
    expect((await confirm(kept.filePath, 50, c)).status).to.equal(200);
    const pending = await upload({ client: c, url: local }, bytes(50));
    const res = await apps.dashboard.client
      .with({ cookie: doomed.cookie })
      .delete(`/api/projects/${doomed.project.id}`);
    expect(res.status).to.equal(200);
    const store = apps.public.services.storage.stores.internal;
    expect(await store.head(kept.filePath)).to.equal(undefined);
    expect(await store.head(pending.filePath)).to.equal(undefined);
    expect((await fetch(fileUrl(kept.filePath))).status).to.equal(404);
    const records = apps.public.deps.db.platform.collection('files');
    expect(await records.countDocuments({ path: { $in: [kept.filePath, pending.filePath] } })).to.equal(0);
  });

  it('confirm before the bytes arrived is a 409 UPLOAD_NOT_READY that changes nothing; a retry works', async () => {
    const content = bytes(2048);
    const ticket = await requestUpload(client, {
      filename: 'late.bin',
      contentType: 'application/octet-stream',
      size: content.length,
    });
    const before = await usage();
    const early = await confirm(ticket.filePath, content.length);
    expect(early.status).to.equal(409);
    expect(early.body.code).to.equal('UPLOAD_NOT_READY');
    expect(await usage()).to.equal(before);
    expect((await putBytes(local(ticket.signedUrl), content, 'application/octet-stream')).status).to.equal(
      200,
    );
    const later = await confirm(ticket.filePath, content.length);
    expect(later.status).to.equal(200);
    expect(await usage()).to.equal(before + content.length);
  });

  it('accepts a declared size within 1 KiB and charges the real size; a larger difference is a 400', async () => {
    const content = bytes(5000);
    const ticket = await upload(steps, content);
    const before = await usage();
    const off = await confirm(ticket.filePath, content.length + 1025);
    expect(off.status).to.equal(400);
    expect(off.body.code).to.equal('SIZE_MISMATCH');
    expect(await usage()).to.equal(before);
    const close = await confirm(ticket.filePath, content.length + 1000);
    expect(close.status).to.equal(200);
    expect(close.body.data.size).to.equal(content.length);
    expect(await usage()).to.equal(before + content.length);
  });

  it('refuses a file over 10 MB with 413, and a body larger than requested with 413', async () => {
    const big = await client.post('/api/storage/upload-request', {
      filename: 'big.bin',
      contentType: 'application/octet-stream',
      size: 10 * MB + 1,
    });
    expect(big.status).to.equal(413);
    expect(big.body.code).to.equal('PAYLOAD_TOO_LARGE');

    const ticket = await requestUpload(client, {
      filename: 'small.bin',
      contentType: 'text/plain',
      size: 100,
    });
    const res = await putViaClient(ticket.signedUrl, bytes(101), 'text/plain');
    expect(res.status).to.equal(413);
    expect(res.body.code).to.equal('PAYLOAD_TOO_LARGE');
    // Without Content-Length (chunked), the limit is enforced while streaming.
    const body = new ReadableStream({
      start(controller) {
        for (let i = 0; i < 5; i++) controller.enqueue(bytes(60_000));
        controller.close();
      },
    });
    const chunked = await fetch(local(ticket.signedUrl), {
      method: 'PUT',
      body,
      duplex: 'half',
      headers: { 'content-type': 'text/plain' },
    } as RequestInit);
    expect(chunked.status).to.equal(413);
    expect((await confirm(ticket.filePath, 100)).status).to.equal(409, 'nothing was stored');
  });

  it('keeps nothing of an upload the client abandons half-way', async () => {
    const ticket = await requestUpload(client, {
      filename: 'cut.bin',
      contentType: 'text/plain',
      size: 1000,
    });
    const u = new URL(local(ticket.signedUrl));
    await new Promise<void>((resolve, reject) => {
      const socket = net.connect(Number(u.port), u.hostname, () => {
        socket.write(
          `PUT ${u.pathname}${u.search} HTTP/1.1\r\nHost: ${u.host}\r\n` +
            'Content-Type: text/plain\r\nContent-Length: 1000\r\n\r\n' +
            'x'.repeat(100),
        );
        setTimeout(() => socket.destroy(), 100);
      });
      socket.on('close', () => resolve());
      socket.on('error', reject);
    });
    await new Promise((r) => setTimeout(r, 200));
    expect((await confirm(ticket.filePath, 1000)).status).to.equal(409);
    expect(await readdir(path.join(dir, 'tmp'))).to.deep.equal([]);
    const retry = await putBytes(local(ticket.signedUrl), bytes(1000), 'text/plain');
    expect(retry.status).to.equal(200);
  });

  it('refuses an upload over the remaining storage with 403 QUOTA_EXCEEDED', async () => {
    const other = await createProjectFixture(apps.public.services);
    await setStorageLimit(1000, other.project.id);
    const res = await apps.public.client
      .with({ 'x-api-key': other.secretKey })
      .post('/api/storage/upload-request', { filename: 'a.bin', contentType: 'text/plain', size: 1001 });
    expect(res.status).to.equal(403);
    expect(res.body.code).to.equal('QUOTA_EXCEEDED');
  });

  it('lets exactly one of two confirms racing for the last megabyte win; the loser is discarded', async () => {
    const racer = await createProjectFixture(apps.public.services);
    const c = apps.public.client.with({ 'x-api-key': racer.secretKey });
    await setStorageLimit(1.5 * MB, racer.project.id);
    const a = await upload({ client: c, url: local }, bytes(MB));
    const b = await upload({ client: c, url: local }, bytes(MB));
    const results = await Promise.all([confirm(a.filePath, MB, c), confirm(b.filePath, MB, c)]);
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).to.deep.equal([200, 403]);
    const loser = results.find((r) => r.status === 403)!;
    expect(loser.body.code).to.equal('QUOTA_EXCEEDED');
    expect(await usage(racer.project.id)).to.equal(MB);
    const loserPath = results[0]!.status === 403 ? a.filePath : b.filePath;
    const winnerPath = loserPath === a.filePath ? b.filePath : a.filePath;
    expect(await apps.public.services.storage.stores.internal.head(loserPath)).to.equal(undefined);
    expect((await confirm(loserPath, MB, c)).status).to.equal(404);
    expect((await fetch(fileUrl(winnerPath))).status).to.equal(200);
  });

  describe('signed upload URLs', () => {
    let ticket: Awaited<ReturnType<typeof requestUpload>>;
    const content = bytes(64);
    beforeEach(async () => {
      ticket = await requestUpload(client, {
        filename: 'signed.txt',
        contentType: 'text/plain',
        size: content.length,
      });
    });
    const tamper = (url: string, change: (u: URL) => void) => {
      const u = new URL(local(url));
      change(u);
      return u.toString();
    };

    it('refuses another Content-Type than the one requested (403)', async () => {
      const res = await putViaClient(ticket.signedUrl, content, 'text/html');
      expect(res.status).to.equal(403);
      expect(res.body.code).to.equal('SIGNATURE_MISMATCH');
      expect(res.headers.get('access-control-allow-origin')).to.equal(PAGE, 'errors readable by the page');
    });

    it('refuses tampered URLs: path, size limit, expiry, signature (403)', async () => {
      const other = await requestUpload(client, {
        filename: 'other.txt',
        contentType: 'text/plain',
        size: 64,
      });
      const variants = [
        tamper(ticket.signedUrl, (u) => (u.pathname = new URL(other.signedUrl).pathname)),
        tamper(ticket.signedUrl, (u) => u.searchParams.set('maxSize', String(10 * MB))),
        tamper(ticket.signedUrl, (u) =>
          u.searchParams.set('expires', String(Number(u.searchParams.get('expires')) + 3600)),
        ),
        tamper(ticket.signedUrl, (u) => u.searchParams.set('signature', 'A'.repeat(43))),
      ];
      for (const url of variants) {
        const res = await putBytes(url, content, 'text/plain');
        expect(res.status, url).to.equal(403);
      }
      expect((await confirm(other.filePath, 64)).status).to.equal(409, 'nothing was written');
    });

    it('refuses an expired URL (403 URL_EXPIRED)', async () => {
      const store = apps.public.services.storage.stores.internal;
      const expired = await store.presignPut({
        key: ticket.filePath,
        contentType: 'text/plain',
        size: content.length,
        expiresInSeconds: 900,
        now: new Date(Date.now() - 16 * 60_000),
      });
      const res = await putBytes(local(expired.url), content, 'text/plain');
      expect(res.status).to.equal(403);
      expect(((await res.json()) as { code: string }).code).to.equal('URL_EXPIRED');
    });

    it('refuses a missing signature with 400 and a URL whose upload was confirmed with 403', async () => {
      const bare = tamper(ticket.signedUrl, (u) => u.searchParams.delete('signature'));
      const missing = await apps.public.client.request('PUT', new URL(bare).pathname + new URL(bare).search, {
        rawBody: content,
        headers: { 'content-type': 'text/plain' },
      });
      expect(missing.status).to.equal(400);
      expect((await putBytes(local(ticket.signedUrl), content, 'text/plain')).status).to.equal(200);
      expect((await confirm(ticket.filePath, content.length)).status).to.equal(200);
      const overwrite = await putBytes(local(ticket.signedUrl), bytes(64), 'text/plain');
      expect(overwrite.status).to.equal(403);
      expect(((await overwrite.json()) as { code: string }).code).to.equal('UPLOAD_CLOSED');
    });

    it('refuses the URL of a deleted upload (403 UPLOAD_CLOSED) and keeps nothing on disk', async () => {
      expect((await putBytes(local(ticket.signedUrl), content, 'text/plain')).status).to.equal(200);
      expect((await confirm(ticket.filePath, content.length)).status).to.equal(200);
      expect((await remove(ticket.filePath)).status).to.equal(200);
      const again = await putBytes(local(ticket.signedUrl), bytes(64), 'text/plain');
      expect(again.status).to.equal(403);
      expect(((await again.json()) as { code: string }).code).to.equal('UPLOAD_CLOSED');
      const pending = await requestUpload(client, { filename: 'p.txt', contentType: 'text/plain', size: 64 });
      expect((await remove(pending.filePath)).status).to.equal(200);
      expect((await putBytes(local(pending.signedUrl), content, 'text/plain')).status).to.equal(403);
      for (const filePath of [ticket.filePath, pending.filePath]) {
        expect((await fetch(fileUrl(filePath))).status).to.equal(404);
        const stored = await stat(path.join(dir, 'objects', ...filePath.split('/'))).catch(() => undefined);
        expect(stored, filePath).to.equal(undefined);
      }
    });

    it('answers a browser preflight with CORS headers for PUT', async () => {
      const u = new URL(local(ticket.signedUrl));
      const res = await apps.public.client.request('OPTIONS', u.pathname + u.search, {
        headers: {
          origin: PAGE,
          'access-control-request-method': 'PUT',
          'access-control-request-headers': 'content-type',
        },
      });
      expect(res.status).to.equal(204);
      expect(res.headers.get('access-control-allow-origin')).to.equal(PAGE);
      expect(res.headers.get('access-control-allow-credentials')).to.equal('true');
      expect(res.headers.get('access-control-allow-methods')).to.equal('PUT, OPTIONS');
      expect(res.headers.get('access-control-allow-headers')).to.include('content-type');
    });

    it('answers a preflight of a public file download', async () => {
      const res = await apps.public.client.request('OPTIONS', `/files/${ticket.filePath}`, {
        headers: { origin: PAGE, 'access-control-request-method': 'GET' },
      });
      expect(res.status).to.equal(204);
      expect(res.headers.get('access-control-allow-origin')).to.equal(PAGE);
      expect(res.headers.get('access-control-allow-methods')).to.equal('HEAD, GET, OPTIONS');
    });
  });

  describe('paths', () => {
    it('sanitizes file names: no traversal, no separators or control characters, bounded, extension kept', async () => {
      const names: [string, RegExp][] = [
        ['../../etc/passwd', /_passwd$/],
        ['..\\..\\windows\\win.ini', /_win\.ini$/],
        ['%2e%2e%2fsecret.txt', /_2e_2e_2fsecret\.txt$/],
        ['/absolute/path.png', /_path\.png$/],
        ['a\u0000b\nc\u202e.txt', /_a_b_c\.txt$/],
        ['..', /_file$/],
        ['Résumé final.pdf', /_Resume_final\.pdf$/],
        [`${'x'.repeat(500)}.jpeg`, /_x{95}\.jpeg$/],
      ];
      for (const [filename, pattern] of names) {
        const { filePath } = await requestUpload(client, { filename, contentType: 'text/plain', size: 1 });
        const [project, name, ...rest] = filePath.split('/');
        expect(project).to.equal(fx.project.id);
        expect(rest, filePath).to.deep.equal([]);
        expect(name, filename).to.match(pattern);
        expect(name).to.match(/^[0-9a-f-]{36}_[A-Za-z0-9][A-Za-z0-9._-]*$/);
        expect(name).not.to.include('..');
        expect(name!.length).to.be.at.most(137);
      }
    });

    it('refuses traversal and foreign paths in confirm and delete without touching anything', async () => {
      const other = await createProjectFixture(apps.public.services);
      const oc = apps.public.client.with({ 'x-api-key': other.secretKey });
      const theirs = await upload({ client: oc, url: local }, bytes(10));
      expect((await confirm(theirs.filePath, 10, oc)).status).to.equal(200);
      const [, theirName] = theirs.filePath.split('/');

      const malformed = [
        `../${theirs.filePath}`,
        `${fx.project.id}/../${theirs.filePath}`,
        `${fx.project.id}/..%2F..%2F${theirName}`,
        `/${theirs.filePath}`,
        `/etc/passwd`,
        `${fx.project.id}/`,
        fx.project.id,
        `${fx.project.id}/${theirName}/x`,
      ];
      for (const bad of malformed) {
        const c = await confirm(bad, 10);
        expect(c.status, bad).to.equal(400);
        expect(c.body.code).to.equal('INVALID_PATH');
        const d = await remove(bad);
        expect(d.status, bad).to.equal(400);
      }
      // Another project's file, well formed: not visible at all.
      expect((await confirm(theirs.filePath, 10)).status).to.equal(404);
      expect((await remove(theirs.filePath)).status).to.equal(404);
      expect((await remove(`${fx.project.id}/${theirName}`)).status).to.equal(404);
      expect((await fetch(fileUrl(theirs.filePath))).status).to.equal(200, 'their file is untouched');
    });

    it('serves no folders, unknown, unconfirmed or traversing paths (404, 400 for a malformed project id)', async () => {
      const pending = await upload(steps, bytes(10));
      const [, name] = pending.filePath.split('/');
      for (const p of [
        `/files/${fx.project.id}`,
        `/files/${fx.project.id}/`,
        `/files/${pending.filePath}`,
        `/files/${fx.project.id}/..%2F..%2Fobjects`,
        `/files/${fx.project.id}/%2e%2e`,
        `/files/${fx.project.id}/00000000-0000-0000-0000-000000000000_none.bin`,
      ]) {
        const res = await fetch(`${apps.public.url}${p}`);
        expect(res.status, p).to.equal(404);
      }
      const res = await apps.public.client.get(`/files/${pending.filePath}`);
      expect(res.status).to.equal(404);
      // A project id that is not an object id (here a traversal) is refused before any lookup.
      const traversal = await apps.public.client.get(`/files/..%2Fmeta/${name}.json`);
      expect(traversal.status).to.equal(400);
    });
  });

  describe('callers', () => {
    it('needs an API key (401) and, for a publishable key, the end-user setting (403)', async () => {
      const body = { filename: 'a.txt', contentType: 'text/plain', size: 1 };
      expect((await apps.public.client.post('/api/storage/upload-request', body)).status).to.equal(401);
      const pk = apps.public.client.with({ 'x-api-key': fx.publishableKey });
      const res = await pk.post('/api/storage/upload-request', body);
      expect(res.status).to.equal(403);
      expect(res.body.code).to.equal('SECRET_KEY_REQUIRED');
      // A well-formed path: a malformed one is a 400 before the key's kind is looked at.
      const path = `${fx.project.id}/00000000-0000-0000-0000-000000000000_x.txt`;
      expect((await pk.post('/api/storage/upload-confirm', { filePath: path, size: 1 })).status).to.equal(
        403,
      );
      expect((await pk.delete('/api/storage/file', { path })).status).to.equal(403);
      expect(
        (await apps.public.client.post('/api/storage/upload-confirm', { filePath: 'x', size: 1 })).status,
      ).to.equal(401);
      expect((await apps.public.client.delete('/api/storage/file', { path: 'x' })).status).to.equal(401);
    });

    it('validates bodies: missing and unknown fields are 400s naming them', async () => {
      const missing = await client.post('/api/storage/upload-request', { filename: 'a.txt', size: 1 });
      expect(missing.status).to.equal(400);
      expect(missing.body.message).to.include('contentType');
      const unknown = await client.request('POST', '/api/storage/upload-confirm', {
        rawBody: '{"filePath":"x","size":1,"__proto__":{"polluted":true}}',
        headers: { 'content-type': 'application/json' },
      });
      expect(unknown.status).to.equal(400);
      expect(({} as Record<string, unknown>).polluted).to.equal(undefined);
      const badType = await client.post('/api/storage/upload-request', {
        filename: 'a.txt',
        contentType: 'text/plain\r\nx-evil: 1',
        size: 1,
      });
      expect(badType.status).to.equal(400);
      expect((await client.delete('/api/storage/file', {})).status).to.equal(400);
    });

    it('lets end users upload, confirm and delete their own files when the project allows it', async () => {
      const enable = await apps.dashboard.client
        .with({ cookie: fx.cookie })
        .patch(`/api/projects/${fx.project.id}/storage`, { endUserUploads: true });
      expect(enable.status).to.equal(200);
      expect(enable.body.data.endUserUploads).to.equal(true);
      const pk = apps.public.client.with({ 'x-api-key': fx.publishableKey });
      const alice = pk.with({
        authorization: `Bearer ${await userToken(apps.public.services, fx.project.id, 'alice')}`,
      });
      const bob = pk.with({
        authorization: `Bearer ${await userToken(apps.public.services, fx.project.id, 'bob')}`,
      });

      const noToken = await pk.post('/api/storage/upload-request', {
        filename: 'a.txt',
        contentType: 'text/plain',
        size: 3,
      });
      expect(noToken.status).to.equal(401);
      const ticket = await upload({ client: alice, url: local }, Buffer.from('hey'), 'text/plain', 'a.txt');
      expect((await confirm(ticket.filePath, 3, bob)).status).to.equal(403);
      expect((await confirm(ticket.filePath, 3, alice)).status).to.equal(200);
      const bobs = await remove(ticket.filePath, bob);
      expect(bobs.status).to.equal(403);
      expect(bobs.body.code).to.equal('NOT_FILE_OWNER');
      expect((await remove(ticket.filePath, alice)).status).to.equal(200);

      const mine = await upload({ client: alice, url: local }, Buffer.from('hey'), 'text/plain', 'b.txt');
      expect((await confirm(mine.filePath, 3)).status).to.equal(200, 'the secret key acts on every file');
      expect((await remove(mine.filePath)).status).to.equal(200);
    });
  });

  describe('cleanup of unconfirmed uploads', () => {
    it('removes uploads never confirmed once their URL expired, and leaves the rest', async () => {
      const files = apps.public.deps.db.platform.collection('files');
      const stale = await upload(steps, bytes(100));
      const staleNoBytes = await requestUpload(client, {
        filename: 'never.bin',
        contentType: 'text/plain',
        size: 5,
      });
      const fresh = await upload(steps, bytes(100));
      const kept = await upload(steps, bytes(100));
      expect((await confirm(kept.filePath, 100)).status).to.equal(200);
      const past = new Date(Date.now() - 60 * 60_000);
      await files.updateMany(
        { path: { $in: [stale.filePath, staleNoBytes.filePath, kept.filePath] } },
        { $set: { expiresAt: past } },
      );
      const before = await usage();

      await uploadCleanupJob(apps.public.deps, apps.public.services).run();

      const store = apps.public.services.storage.stores.internal;
      expect(await files.countDocuments({ path: { $in: [stale.filePath, staleNoBytes.filePath] } })).to.equal(
        0,
      );
      expect(await store.head(stale.filePath)).to.equal(undefined);
      expect((await confirm(stale.filePath, 100)).status).to.equal(404);
      expect(await store.head(fresh.filePath)).to.deep.include({ size: 100 });
      expect((await confirm(fresh.filePath, 100)).status).to.equal(200);
      expect((await fetch(fileUrl(kept.filePath))).status).to.equal(200);
      expect(await usage()).to.equal(before + 100);
    });
  });
});
