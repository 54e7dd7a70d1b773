// Backups over HTTP on the real stack: a project with nested objects, arrays, Refs, Dates, raw
// Decimal128/Int64/Binary values, trashed documents, RLS, end users and a webhook is backed up
// and restored into a new project (same ids and types, old passwords work, usage exact); the
// archive is read by the standard `tar`; a flipped byte, a wrong format version and another
// project's archive are refused with nothing written; and the 400/401/403/404/409 of each operation.
import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { Binary, BSON, Decimal128, Long, ObjectId } from 'mongodb';
import { startTestApps } from '../helpers/app.js';
import {
  createDeveloper,
  createOperator,
  createProjectFixture,
  type ProjectFixture,
} from '../helpers/fixtures.js';
import type { ApiClient } from '../helpers/client.js';
import { backupRunner } from '../../src/jobs/backup-runner.js';
import { dumpDatabase, packArchive } from './backup-shared.js';
import { putBytes, requestUpload } from './storage-shared.js';

describe('backups: back up a project and restore it into a new one', () => {
  let apps: Awaited<ReturnType<typeof startTestApps>>;
  let fx: ProjectFixture;
  let dash: ApiClient;
  let publicKeyed: ApiClient;
  let operator: ApiClient;
  const base = (projectId = fx.project.id) => `/api/projects/${projectId}/backups`;
  const endUser = { email: 'ada@example.test', password: 'correct horse battery' };
  let backupId: string;
  const fileBytes = Buffer.from(Array.from({ length: 3000 }, (_, i) => (i * 31) % 256));
  const runner = () => backupRunner(apps.dashboard.deps, apps.dashboard.services);

  before(async () => {
    apps = await startTestApps('backups', { USER_AUTH_SIGNUPS_PER_HOUR: '1000' });
    const op = await createDeveloper(apps.dashboard.services);
    operator = apps.dashboard.client.with({ cookie: op.cookie });
    fx = await createProjectFixture(apps.dashboard.services, 'Source');
    dash = apps.dashboard.client.with({ cookie: fx.cookie });
    publicKeyed = apps.public.client.with({ 'x-api-key': fx.secretKey });

    // Collections with nested objects, arrays, a Ref, a Date, RLS and a declared unique field.
    const authors = await dash.post(`/api/projects/${fx.project.id}/collections`, {
      name: 'authors',
      fields: [{ name: 'name', type: 'String', required: true, unique: true }],
    });
    expect(authors.status, authors.text).to.equal(201);
    const posts = await dash.post(`/api/projects/${fx.project.id}/collections`, {
      name: 'posts',
      fields: [
        { name: 'title', type: 'String', required: true },
        { name: 'author', type: 'Ref', ref: 'authors' },
        { name: 'publishedAt', type: 'Date' },
        { name: 'meta', type: 'Object', fields: [{ name: 'tags', type: 'Array' }] },
        { name: 'userId', type: 'String' },
      ],
      rls: { enabled: true, mode: 'public-read', ownerField: 'userId' },
    });
    expect(posts.status, posts.text).to.equal(201);
    const ada = await publicKeyed.post('/api/data/authors', { name: 'Ada' });
    expect(ada.status, ada.text).to.equal(201);
    for (let i = 0; i < 30; i++) {
      const res = await publicKeyed.post('/api/data/posts', {
        title: `Post ${i}`,
        author: ada.body.data._id,
        publishedAt: new Date(Date.UTC(2026, 0, 1 + i)).toISOString(),
        meta: { tags: ['a', String(i)], nested: { deep: [1, { x: i }] } },
        userId: 'u1',
      });
      expect(res.status, res.text).to.equal(201);
      if (i % 10 === 0)
        expect((await publicKeyed.delete(`/api/data/posts/${res.body.data._id}`)).status).to.equal(200);
    }
    // Values the data API does not write, straight into the project's database.
    await apps.dashboard.deps.db
      .project(fx.project.id)
      .collection('ledger')
      .insertOne({
        _id: new ObjectId(),
        amount: Decimal128.fromString('1234.5678901234567890'),
        big: Long.fromString('9007199254740993'),
        blob: new Binary(Buffer.from([0, 1, 2, 250, 255])),
        at: new Date('2026-03-04T05:06:07.089Z'),
      });
    const users = await dash.post(`/api/projects/${fx.project.id}/collections`, {
      name: 'users',
      fields: [{ name: 'nickname', type: 'String' }],
    });
    expect(users.status, users.text).to.equal(201);
    const signup = await apps.public.client
      .with({ 'x-api-key': fx.publishableKey })
      .post('/api/userAuth/signup', endUser);
    expect(signup.status, signup.text).to.equal(201);
    const ticket = await requestUpload(publicKeyed, {
      filename: 'hello.bin',
      contentType: 'application/octet-stream',
      size: fileBytes.length,
    });
    expect((await putBytes(ticket.signedUrl, fileBytes, 'application/octet-stream')).status).to.equal(200);
    const confirmed = await publicKeyed.post('/api/storage/upload-confirm', {
      filePath: ticket.filePath,
      size: fileBytes.length,
    });
    expect(confirmed.status, confirmed.text).to.equal(200);
    const hook = await dash.post(`/api/projects/${fx.project.id}/webhooks`, {
      url: 'https://93.184.215.14/in',
      events: ['document.created'],
    });
    expect(hook.status, hook.text).to.equal(201);
  });
  after(() => apps?.close());

  it('backs up on request: 202 queued, one at a time (409), then done with size, checksum and counts', async () => {
    // The end users (and their password hashes) are asked for: they are opt-in (see below).
    const res = await dash.post(base(), { includeUsers: true });
    expect(res.status, res.text).to.equal(202);
    expect(res.body.data.backup).to.deep.include({ state: 'queued', kind: 'backup', includeUsers: true });
    backupId = res.body.data.backup.id;
    expect((await dash.post(base(), {})).status).to.equal(409);
    const early = await dash.post(`${base()}/${backupId}/download`);
    expect(early.status).to.equal(409);
    expect((await dash.get(`${base()}/${backupId}/archive`)).status).to.equal(409);
    expect((await dash.post(`${base()}/${backupId}/restore`, { name: 'Too early' })).status).to.equal(409);

    expect(await runner().drain()).to.equal(1);
    const one = await dash.get(`${base()}/${backupId}`);
    expect(one.status).to.equal(200);
    const backup = one.body.data.backup;
    expect(backup.state, backup.error).to.equal('done');
    expect(backup.progress).to.deep.equal({ done: 33, total: 33 }); // 1 author, 30 posts, 1 ledger row, 1 user
    expect(backup.size).to.be.greaterThan(0);
    expect(backup.sha256).to.match(/^[0-9a-f]{64}$/);
    expect(backup.counts).to.include({
      'data/authors.jsonl': 1,
      'data/posts.jsonl': 30,
      'data/ledger.jsonl': 1,
      'platform/collections.jsonl': 3, // authors, posts, users (ledger has no definition)
      'data/users.jsonl': 1,
      'platform/webhooks.jsonl': 1,
      'platform/files.jsonl': 1,
    });
    expect(Object.keys(backup.counts).filter((name) => name.startsWith('files/'))).to.have.length(1);
    const list = await dash.get(base());
    expect(list.status).to.equal(200);
    expect(list.body.data.backups.map((b: any) => b.id)).to.deep.equal([backupId]);
    expect(list.body.data.totalBytes).to.equal(backup.size);
  });

  it('downloads through a short-lived URL; standard tar reads the archive; no API key is in it', async () => {
    const res = await dash.post(`${base()}/${backupId}/download`);
    expect(res.status).to.equal(200);
    expect(res.body.data.containsPasswordHashes).to.equal(true);
    expect(res.body.message).to.match(/password hashes/);
    const url = new URL(res.body.data.url, apps.dashboard.url);
    const bytes = Buffer.from(await (await fetch(url)).arrayBuffer());
    expect(createHash('sha256').update(bytes).digest('hex')).to.equal(res.body.data.sha256);
    const through = await dash.get(`${base()}/${backupId}/archive`);
    expect(through.status).to.equal(200);
    expect(through.headers.get('content-type')).to.equal('application/gzip');

    const dir = mkdtempSync(path.join(tmpdir(), 'backup-test-'));
    try {
      writeFileSync(path.join(dir, 'b.tar.gz'), bytes);
      const names = execFileSync('tar', ['-tzf', 'b.tar.gz'], { cwd: dir, encoding: 'utf8' })
        .trim()
        .split('\n');
      expect(names[0]).to.equal('manifest.json');
      expect(names).to.include.members(['data/posts.jsonl', 'data/users.jsonl', 'platform/webhooks.jsonl']);
      execFileSync('tar', ['-xzf', 'b.tar.gz'], { cwd: dir });
      const manifest = JSON.parse(readFileSync(path.join(dir, 'manifest.json'), 'utf8'));
      expect(manifest).to.deep.include({ formatVersion: 2, project: { id: fx.project.id, name: 'Source' } });
      const ledger = readFileSync(path.join(dir, 'data/ledger.jsonl'), 'utf8');
      expect(ledger)
        .to.include('"$numberDecimal":"1234.5678901234567890"')
        .and.include('"$numberLong":"9007199254740993"');
      const all = execFileSync(
        'cat',
        names.filter((n) => n.endsWith('.jsonl')),
        { cwd: dir, encoding: 'utf8' },
      );
      expect(all).to.include('$argon2'); // end users keep their password hashes
      const stored = await apps.dashboard.deps.db.platform
        .collection('projects')
        .findOne({ _id: new ObjectId(fx.project.id) });
      for (const key of Object.values(stored!.keys as Record<string, { hash: string }>))
        expect(all).not.to.include(key.hash);
      expect(all).not.to.include(fx.secretKey).and.not.include(fx.publishableKey);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('restores into a new project: same documents, ids and types; old passwords; exact usage', async () => {
    const res = await dash.post(`${base()}/${backupId}/restore`, { name: 'Copy' });
    expect(res.status, res.text).to.equal(202);
    const target = res.body.data.project.id;
    expect(target).not.to.equal(fx.project.id);
    expect(res.body.data.keys.secret).to.match(/^sk_live_/);
    const restoreId = res.body.data.restore.id;
    expect(await runner().drain()).to.equal(1);
    const restore = await dash.get(`/api/projects/${target}/restores/${restoreId}`);
    expect(restore.status).to.equal(200);
    expect(restore.body.data.restore.state, restore.body.data.restore.error).to.equal('done');

    const source = await dumpDatabase(apps.dashboard.deps.db.project(fx.project.id));
    const copy = await dumpDatabase(apps.dashboard.deps.db.project(target));
    expect(Object.keys(copy)).to.deep.equal(Object.keys(source));
    for (const name of Object.keys(source)) expect(copy[name], name).to.deep.equal(source[name]);
    const ledger = await apps.dashboard.deps.db.project(target).collection('ledger').findOne({});
    expect(ledger!.amount).to.be.instanceOf(Decimal128);
    expect(ledger!.big).to.be.instanceOf(Long);
    expect(ledger!.blob).to.be.instanceOf(Binary);
    expect(ledger!.at).to.be.instanceOf(Date);

    const defs = await dash.get(`/api/projects/${target}/collections/posts`);
    expect(defs.status).to.equal(200);
    expect(defs.body.data.collection.rls).to.deep.equal({
      enabled: true,
      mode: 'public-read',
      ownerField: 'userId',
    });
    const hooks = await dash.get(`/api/projects/${target}/webhooks`);
    expect(hooks.body.data.webhooks.map((w: any) => w.url)).to.deep.equal(['https://93.184.215.14/in']);
    const login = await apps.public.client
      .with({ 'x-api-key': res.body.data.keys.publishable })
      .post('/api/userAuth/login', endUser);
    expect(login.status, login.text).to.equal(200);
    // The unique index came back: a second author of the same name is refused.
    const copyClient = apps.public.client.with({ 'x-api-key': res.body.data.keys.secret });
    expect((await copyClient.post('/api/data/authors', { name: 'Ada' })).status).to.equal(409);

    const files = await dash.get(`/api/projects/${target}/files`);
    expect(files.status).to.equal(200);
    const [file] = files.body.data;
    expect(file.path).to.match(new RegExp(`^${target}/[0-9a-f-]+_hello\\.bin$`));
    const stored = await apps.dashboard.services.backups.archives.open(file.path);
    expect(await readAll(stored!.stream)).to.deep.equal(fileBytes);

    const services = apps.dashboard.services;
    const usage = await services.repos.projects.usage(target);
    expect(usage.storageUsed).to.equal(fileBytes.length);
    expect(usage.databaseUsed).to.equal(await services.documents.databaseSize(target));
    expect(usage.databaseUsed).to.equal(await services.documents.databaseSize(fx.project.id));
    const listed = await dash.get(base(target));
    expect(listed.body.data.backups).to.deep.equal([]);
  });

  it('refuses a flipped byte, a wrong format version and another project’s archive, writing nothing', async () => {
    const store = apps.dashboard.services.backups.archives;
    const jobs = apps.dashboard.deps.db.platform.collection('backup_jobs');
    const projectsBefore = await apps.dashboard.deps.db.platform.collection('projects').countDocuments();
    const key = (await jobs.findOne({ _id: new ObjectId(backupId) }))!.key as string;
    const original = await readAll((await store.open(key))!.stream);
    const replace = async (bytes: Buffer, sha256 = createHash('sha256').update(bytes).digest('hex')) => {
      const file = path.join(mkdtempSync(path.join(tmpdir(), 'backup-test-')), 'a.tar.gz');
      writeFileSync(file, bytes);
      await store.put(key, file, bytes.length);
      await jobs.updateOne({ _id: new ObjectId(backupId) }, { $set: { sha256 } });
    };
    try {
      const flipped = Buffer.from(original);
      flipped[Math.floor(flipped.length / 2)]! ^= 0x01;
      await replace(flipped, createHash('sha256').update(original).digest('hex'));
      // At the plan's project limit (Source and Copy), the project count refuses before the archive is read.
      const atLimit = await dash.post(`${base()}/${backupId}/restore`, { name: 'Corrupt' });
      expect(atLimit.status, atLimit.text).to.equal(403);
      expect(atLimit.body).to.deep.include({ code: 'PLAN_LIMIT' });
      expect(atLimit.body.message).to.match(/allows 2 projects/);
      await apps.dashboard.services.repos.developers.setPlan(fx.developer.id, 'pro');
      const corrupt = await dash.post(`${base()}/${backupId}/restore`, { name: 'Corrupt' });
      expect(corrupt.status).to.equal(400);
      expect(corrupt.body.message).to.match(/The archive is refused/);

      await replace(
        await packArchive({ formatVersion: 3, project: { id: fx.project.id, name: 'x' }, parts: [] }),
      );
      const version = await dash.post(`${base()}/${backupId}/restore`, { name: 'Future' });
      expect(version.status).to.equal(400);
      expect(version.body.message).to.match(/unknown format version 3 \(this server reads 1 and 2\)/);

      const other = new ObjectId().toHexString();
      await replace(await packArchive({ formatVersion: 1, project: { id: other, name: 'x' }, parts: [] }));
      const foreign = await dash.post(`${base()}/${backupId}/restore`, { name: 'Foreign' });
      expect(foreign.status).to.equal(403);
      expect(foreign.body.code).to.equal('FOREIGN_ARCHIVE');

      // Another developer cannot reach this project's backups at all.
      const stranger = await createProjectFixture(apps.dashboard.services, 'Stranger');
      const theirs = apps.dashboard.client.with({ cookie: stranger.cookie });
      expect((await theirs.post(`${base()}/${backupId}/restore`, { name: 'Stolen' })).status).to.equal(404);
      expect(await apps.dashboard.deps.db.platform.collection('projects').countDocuments()).to.equal(
        projectsBefore + 1,
      );
    } finally {
      await replace(original);
      await apps.dashboard.services.repos.developers.setPlan(fx.developer.id, 'free');
    }
  });

  it('answers 400, 401 and 404 for every operation; 403 past the plan; deletes a backup', async () => {
    const anon = apps.dashboard.client;
    const id = backupId;
    const ops: [string, string, unknown?][] = [
      ['GET', ''],
      ['POST', '', {}],
      ['GET', `/${id}`],
      ['DELETE', `/${id}`],
      ['POST', `/${id}/download`],
      ['GET', `/${id}/archive`],
      ['POST', `/${id}/restore`, { name: 'x' }],
    ];
    for (const [method, suffix, body] of ops) {
      const call = (client: ApiClient, projectId: string) =>
        client.request(method, `/api/projects/${projectId}/backups${suffix}`, body ? { body } : {});
      expect((await call(anon, fx.project.id)).status, `${method} ${suffix} 401`).to.equal(401);
      expect((await call(dash, 'nope')).status, `${method} ${suffix} 400`).to.equal(400);
      expect((await call(dash, new ObjectId().toHexString())).status, `${method} ${suffix} 404`).to.equal(
        404,
      );
    }
    const restorePath = (projectId: string) =>
      `/api/projects/${projectId}/restores/${new ObjectId().toHexString()}`;
    expect((await anon.get(restorePath(fx.project.id))).status).to.equal(401);
    expect((await dash.get(restorePath('nope'))).status).to.equal(400);
    expect((await dash.get(restorePath(fx.project.id))).status).to.equal(404);

    // Free keeps 3 backups: two more are done, the fourth is refused until one is deleted.
    for (let i = 0; i < 2; i++) {
      expect((await dash.post(base(), { includeUsers: false })).status).to.equal(202);
      await runner().drain();
    }
    const past = await dash.post(base(), {});
    expect(past.status).to.equal(403);
    expect(past.text).to.match(/keeps 3 backups made on request/);

    const jobs = apps.dashboard.deps.db.platform.collection('backup_jobs');
    const key = (await jobs.findOne({ _id: new ObjectId(id) }))!.key as string;
    expect(await apps.dashboard.services.backups.archives.open(key)).not.to.equal(undefined);
    await jobs.updateOne({ _id: new ObjectId(id) }, { $set: { state: 'running' } });
    expect((await dash.delete(`${base()}/${id}`)).status).to.equal(409);
    await jobs.updateOne({ _id: new ObjectId(id) }, { $set: { state: 'done' } });
    expect((await dash.delete(`${base()}/${id}`)).status).to.equal(200);
    expect((await dash.get(`${base()}/${id}`)).status).to.equal(404);
    expect(await apps.dashboard.services.backups.archives.open(key)).to.equal(undefined);
    expect((await dash.post(base(), {})).status).to.equal(202);
    void operator;
    void BSON;
  });
});

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

describe('backups: the schedule and its retention', () => {
  let app: Awaited<ReturnType<typeof startTestApps>>['dashboard'];
  let close: () => Promise<void>;
  let fx: ProjectFixture;

  before(async () => {
    const apps = await startTestApps('backup_schedule');
    app = apps.dashboard;
    close = () => apps.close();
    await createOperator(app.services); // the tenant below is then on the Free plan
    fx = await createProjectFixture(app.services, 'Scheduled');
  });
  after(() => close?.());

  it('backs a Free project up once a day and keeps the newest 3 scheduled backups', async () => {
    const { workerJobs } = await import('../../src/jobs/worker.js');
    expect(workerJobs(app.deps, app.services).map((job) => job.name)).to.include('backup-schedule');
    const runner = backupRunner(app.deps, app.services);
    const dash = app.client.with({ cookie: fx.cookie });
    const day = (n: number, hour = 3) => new Date(Date.UTC(2026, 5, n, hour));
    const ids: string[] = [];
    const keys: string[] = [];
    const jobs = app.deps.db.platform.collection('backup_jobs');
    for (let n = 1; n <= 5; n++) {
      expect(await runner.schedule(day(n)), `day ${n}`).to.be.greaterThanOrEqual(1);
      expect(await runner.schedule(day(n, 15)), `day ${n} again`).to.equal(0);
      await runner.drain();
      const list = (await dash.get(`/api/projects/${fx.project.id}/backups`)).body.data.backups;
      ids.push(list[0].id);
      keys.push((await jobs.findOne({ _id: new ObjectId(list[0].id) }))!.key as string);
      expect(list[0]).to.deep.include({ trigger: 'schedule', state: 'done' });
    }
    const kept = (await dash.get(`/api/projects/${fx.project.id}/backups`)).body.data.backups;
    expect(kept.map((b: any) => b.id)).to.deep.equal(ids.slice(2).reverse());
    for (const gone of keys.slice(0, 2))
      expect(await app.services.backups.archives.open(gone)).to.equal(undefined);
    expect(await app.services.backups.archives.open(keys[4]!)).not.to.equal(undefined);
    // Scheduled backups do not take the places of backups made on request.
    expect((await dash.post(`/api/projects/${fx.project.id}/backups`, {})).status).to.equal(202);
  });
});

describe('backups: a restore that would not fit the caller’s plan', () => {
  let app: Awaited<ReturnType<typeof startTestApps>>['dashboard'];
  let close: () => Promise<void>;

  before(async () => {
    const apps = await startTestApps('backup_quota');
    app = apps.dashboard;
    close = () => apps.close();
    await createOperator(app.services); // the developer below is then on a plan
  });
  after(() => close?.());

  it('is refused before anything is written (403 QUOTA_EXCEEDED naming what does not fit)', async () => {
    const fx = await createProjectFixture(app.services, 'Many hooks');
    await app.services.repos.developers.setPlan(fx.developer.id, 'pro');
    const dash = app.client.with({ cookie: fx.cookie });
    for (let i = 0; i < 3; i++) {
      const hook = await dash.post(`/api/projects/${fx.project.id}/webhooks`, {
        url: `https://93.184.215.14/in/${i}`,
        events: ['document.created'],
      });
      expect(hook.status, hook.text).to.equal(201);
    }
    const id = (await dash.post(`/api/projects/${fx.project.id}/backups`, {})).body.data.backup.id;
    await backupRunner(app.deps, app.services).drain();
    await app.services.repos.developers.setPlan(fx.developer.id, 'free'); // Free allows 2 webhooks
    const projects = app.deps.db.platform.collection('projects');
    const before = await projects.countDocuments();
    const res = await dash.post(`/api/projects/${fx.project.id}/backups/${id}/restore`, { name: 'Too big' });
    expect(res.status).to.equal(403);
    expect(res.body.code).to.equal('QUOTA_EXCEEDED');
    expect(res.body.message).to.match(/more webhooks than the plan allows \(2\)/);
    expect(await projects.countDocuments()).to.equal(before);
    expect(await app.deps.db.platform.collection('backup_jobs').countDocuments({ kind: 'restore' })).to.equal(
      0,
    );
  });
});
