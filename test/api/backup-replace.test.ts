// A backup restored over its own project on the real stack: refused without the exact
// confirmation, over another project's archive and past the plan (nothing changed each time);
// then replace and read back: documents deep-equal, what was added since the backup gone (a
// document, a collection, an end user, a file and its bytes, a webhook), old passwords work, the
// project's keys still work, usage recomputed; run again, and stopped halfway then taken over,
// it gives the same result; while it is queued or running the project's clients get a 503
// PROJECT_RESTORING (its backups still answer), and a failed or ended restore lets them go.
import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { ObjectId } from 'mongodb';
import { startTestApps } from '../helpers/app.js';
import { createProjectFixture, type ProjectFixture } from '../helpers/fixtures.js';
import type { ApiClient } from '../helpers/client.js';
import { backupRunner } from '../../src/jobs/backup-runner.js';
import { dumpDatabase, packArchive } from './backup-shared.js';
import { putBytes, requestUpload } from './storage-shared.js';

describe('backups: restore over the same project, with a replace confirmation', () => {
  let apps: Awaited<ReturnType<typeof startTestApps>>;
  let fx: ProjectFixture;
  let dash: ApiClient;
  let keyed: ApiClient;
  let backupId: string;
  let snapshot: Record<string, unknown[]>;
  let listed: { webhooks: unknown; files: unknown; collections: unknown };
  let laterNoteId: string;
  let laterFilePath: string;
  const ada = { email: 'ada@example.test', password: 'correct horse battery' };
  const bob = { email: 'bob@example.test', password: 'another horse battery' };
  const firstBytes = Buffer.from(Array.from({ length: 2000 }, (_, i) => (i * 7) % 256));
  const restorePath = () => `/api/projects/${fx.project.id}/backups/${backupId}/restore`;
  const runner = () => backupRunner(apps.dashboard.deps, apps.dashboard.services);
  const db = () => apps.dashboard.deps.db.project(fx.project.id);
  const jobs = () => apps.dashboard.deps.db.platform.collection('backup_jobs');
  const endUsers = () => apps.public.client.with({ 'x-api-key': fx.publishableKey });

  const upload = async (filename: string, bytes: Buffer) => {
    const ticket = await requestUpload(keyed, {
      filename,
      contentType: 'application/octet-stream',
      size: bytes.length,
    });
    expect((await putBytes(ticket.signedUrl, bytes, 'application/octet-stream')).status).to.equal(200);
    const res = await keyed.post('/api/storage/upload-confirm', {
      filePath: ticket.filePath,
      size: bytes.length,
    });
    expect(res.status, res.text).to.equal(200);
    return ticket.filePath;
  };
  const lists = async () => {
    const base = `/api/projects/${fx.project.id}`;
    return {
      webhooks: (await dash.get(`${base}/webhooks`)).body.data.webhooks,
      files: (await dash.get(`${base}/files`)).body.data,
      collections: (await dash.get(`${base}/collections`)).body.data,
    };
  };
  /** The project as it is now: its database and what the dashboard lists of it. */
  const state = async () => ({ data: await dumpDatabase(db()), ...(await lists()) });

  before(async () => {
    apps = await startTestApps('backup_replace', { USER_AUTH_SIGNUPS_PER_HOUR: '1000' });
    fx = await createProjectFixture(apps.dashboard.services, 'Home');
    dash = apps.dashboard.client.with({ cookie: fx.cookie });
    keyed = apps.public.client.with({ 'x-api-key': fx.secretKey });
    const notes = await dash.post(`/api/projects/${fx.project.id}/collections`, {
      name: 'notes',
      fields: [
        { name: 'title', type: 'String', required: true, unique: true },
        { name: 'body', type: 'Object', fields: [{ name: 'tags', type: 'Array' }] },
      ],
    });
    expect(notes.status, notes.text).to.equal(201);
    for (let i = 0; i < 12; i++) {
      const res = await keyed.post('/api/data/notes', { title: `Note ${i}`, body: { tags: [i, 'x'] } });
      expect(res.status, res.text).to.equal(201);
    }
    const users = await dash.post(`/api/projects/${fx.project.id}/collections`, {
      name: 'users',
      fields: [{ name: 'nickname', type: 'String' }],
    });
    expect(users.status, users.text).to.equal(201);
    const signup = await endUsers().post('/api/userAuth/signup', ada);
    expect(signup.status, signup.text).to.equal(201);
    await upload('first.bin', firstBytes);
    const hook = await dash.post(`/api/projects/${fx.project.id}/webhooks`, {
      url: 'https://93.184.215.14/in',
      events: ['document.created'],
    });
    expect(hook.status, hook.text).to.equal(201);

    const res = await dash.post(`/api/projects/${fx.project.id}/backups`, { includeUsers: true });
    expect(res.status, res.text).to.equal(202);
    backupId = res.body.data.backup.id;
    await runner().drain();
    const done = (await dash.get(`/api/projects/${fx.project.id}/backups/${backupId}`)).body.data.backup;
    expect(done.state, done.error).to.equal('done');
    snapshot = await dumpDatabase(db());
    listed = await lists();

    // What happens after the backup, which a replace takes back.
    const later = await keyed.post('/api/data/notes', { title: 'Written later' });
    expect(later.status).to.equal(201);
    laterNoteId = later.body.data._id;
    const first = (await keyed.get('/api/data/notes?limit=1')).body.data[0];
    expect((await keyed.patch(`/api/data/notes/${first._id}`, { title: 'Renamed' })).status).to.equal(200);
    const extra = await dash.post(`/api/projects/${fx.project.id}/collections`, {
      name: 'extra',
      fields: [{ name: 'n', type: 'Number' }],
    });
    expect(extra.status, extra.text).to.equal(201);
    expect((await keyed.post('/api/data/extra', { n: 1 })).status).to.equal(201);
    expect((await endUsers().post('/api/userAuth/signup', bob)).status).to.equal(201);
    laterFilePath = await upload('later.bin', Buffer.alloc(500, 1));
    const hookId = (listed.webhooks as { id: string }[])[0]!.id;
    expect((await dash.delete(`/api/projects/${fx.project.id}/webhooks/${hookId}`)).status).to.equal(200);
    const other = await dash.post(`/api/projects/${fx.project.id}/webhooks`, {
      url: 'https://93.184.215.14/other',
      events: ['document.updated'],
    });
    expect(other.status, other.text).to.equal(201);
  });
  after(() => apps?.close());

  const count = (name: string) => db().collection(name).countDocuments({});
  /** Every kind of client request of the project is refused with a 503 saying why and when to retry. */
  async function expectHeld() {
    const held = {
      write: await keyed.post('/api/data/notes', { title: 'During the restore' }),
      read: await keyed.get('/api/data/notes'),
      login: await endUsers().post('/api/userAuth/login', ada),
      export: await keyed.get('/api/collections/notes/export'),
      import: await keyed.post('/api/collections/notes/import', {
        format: 'jsonl',
        content: '{"title":"x"}\n',
      }),
    };
    for (const [what, res] of Object.entries(held)) {
      expect(res.status, what).to.equal(503);
      expect(res.body.code, what).to.equal('PROJECT_RESTORING');
      expect(res.body.message).to.equal(
        'The project is being restored from a backup; retry once the restore ends',
      );
      expect(res.headers.get('retry-after'), what).to.equal('10');
    }
  }

  it('is refused without the exact confirmation (400 saying what to send), nothing changed', async () => {
    const before = await state();
    const refusals: [unknown, RegExp][] = [
      [{ target: 'same' }, /"confirm": "Home"/],
      [{ target: 'same', confirm: 'home' }, /"confirm": "Home"/],
      [{ target: 'same', confirm: 'Home ' }, /the project's name/],
      [{ target: 'same', confirm: 'Home', name: 'Other' }, /name is for a restore into a new project/],
      [{}, /name is required/],
    ];
    for (const [body, message] of refusals) {
      const res = await dash.post(restorePath(), body);
      expect(res.status, JSON.stringify(body)).to.equal(400);
      expect(res.body.message, JSON.stringify(body)).to.match(message);
    }
    expect((await dash.post(restorePath(), { target: 'same' })).body.code).to.equal('CONFIRMATION_REQUIRED');
    expect(await state()).to.deep.equal(before);
    expect(await jobs().countDocuments({ kind: 'restore' })).to.equal(0);
  });

  it('is refused over another project’s archive and past the plan, nothing changed', async () => {
    const before = await state();
    const store = apps.dashboard.services.backups.archives;
    const key = (await jobs().findOne({ _id: new ObjectId(backupId) }))!.key as string;
    const original = await readAll((await store.open(key))!.stream);
    const originalSha = createHash('sha256').update(original).digest('hex');
    const replace = async (bytes: Buffer) => {
      const file = path.join(mkdtempSync(path.join(tmpdir(), 'backup-test-')), 'a.tar.gz');
      writeFileSync(file, bytes);
      await store.put(key, file, bytes.length);
      const sha256 = createHash('sha256').update(bytes).digest('hex');
      await jobs().updateOne({ _id: new ObjectId(backupId) }, { $set: { sha256 } });
    };
    try {
      const foreign = {
        formatVersion: 1,
        project: { id: new ObjectId().toHexString(), name: 'Home' },
        parts: [],
      };
      await replace(await packArchive(foreign));
      const res = await dash.post(restorePath(), { target: 'same', confirm: 'Home' });
      expect(res.status).to.equal(403);
      expect(res.body.code).to.equal('FOREIGN_ARCHIVE');
    } finally {
      await replace(original);
    }
    expect((await jobs().findOne({ _id: new ObjectId(backupId) }))!.sha256).to.equal(originalSha);

    // The project's own limit, not a new project's: the archive's documents past it are refused.
    await apps.dashboard.services.repos.projects.setLimits(fx.project.id, { databaseBytes: 100 });
    try {
      const res = await dash.post(restorePath(), { target: 'same', confirm: 'Home' });
      expect(res.status).to.equal(403);
      expect(res.body.code).to.equal('QUOTA_EXCEEDED');
      expect(res.body.message).to.match(/bytes of documents; the plan allows 100/);
    } finally {
      await apps.dashboard.services.repos.projects.setLimits(fx.project.id, {});
    }
    expect(await state()).to.deep.equal(before);
    expect(await jobs().countDocuments({ kind: 'restore' })).to.equal(0);
  });

  it('replaces the project’s data with the backup’s; keys stay; old passwords work; usage recomputed', async () => {
    const res = await dash.post(restorePath(), { target: 'same', confirm: 'Home' });
    expect(res.status, res.text).to.equal(202);
    expect(res.body.data.project.id).to.equal(fx.project.id);
    expect(res.body.data).not.to.have.property('keys');
    expect(res.body.data.restore).to.deep.include({ kind: 'restore', replace: true, state: 'queued' });
    const restoreId = res.body.data.restore.id;
    // One at a time, and no backup of a project being replaced.
    expect((await dash.post(restorePath(), { target: 'same', confirm: 'Home' })).status).to.equal(409);
    expect((await dash.post(`/api/projects/${fx.project.id}/backups`, {})).status).to.equal(409);
    // Until the job ends the project's clients wait, reads and writes alike (a write would be
    // cleared or mixed with the backup's, a read would see it half loaded); its backups answer.
    await expectHeld();
    expect(await count('notes')).to.equal(13);
    expect((await keyed.get('/api/backups')).status).to.equal(200);
    expect((await keyed.get(`/api/backups/${backupId}`)).status).to.equal(200);

    expect(await runner().drain()).to.equal(1);
    const restore = await dash.get(`/api/projects/${fx.project.id}/restores/${restoreId}`);
    expect(restore.body.data.restore.state, restore.body.data.restore.error).to.equal('done');

    expect(await dumpDatabase(db())).to.deep.equal(snapshot);
    expect(await lists()).to.deep.equal(listed);
    // The same secret key reads the project: the note written later is gone, the renamed one back.
    expect((await keyed.get(`/api/data/notes/${laterNoteId}`)).status).to.equal(404);
    const titles = (await keyed.get('/api/data/notes?limit=100')).body.data.map((n: any) => n.title);
    expect(titles).to.have.length(12).and.include('Note 0').and.not.include('Renamed');
    expect((await dash.get(`/api/projects/${fx.project.id}/collections/extra`)).status).to.equal(404);
    // The unique index of the definition holds.
    expect((await keyed.post('/api/data/notes', { title: 'Note 3' })).status).to.equal(409);

    expect((await endUsers().post('/api/userAuth/login', ada)).status).to.equal(200);
    expect((await endUsers().post('/api/userAuth/login', bob)).status).to.equal(401);

    const store = apps.dashboard.services.backups.archives;
    expect(await store.open(laterFilePath)).to.equal(undefined);
    const [file] = listed.files as { path: string }[];
    expect(await readAll((await store.open(file!.path))!.stream)).to.deep.equal(firstBytes);
    const services = apps.dashboard.services;
    // Read where the writes went: a process gives back what its own quota leases hold before it
    // reads the counter (another process's open lease may show in it for about a second).
    const usage = await apps.public.services.repos.projects.usage(fx.project.id);
    expect(usage.storageUsed).to.equal(firstBytes.length);
    expect(usage.databaseUsed).to.equal(await services.documents.databaseSize(fx.project.id));
  });

  it('gives the same result run again, and when stopped halfway and taken over', async () => {
    expect((await keyed.delete(`/api/data/notes/${(snapshot.notes![0] as any)._id.$oid}`)).status).to.equal(
      200,
    );
    const again = await dash.post(restorePath(), { target: 'same', confirm: 'Home' });
    expect(again.status, again.text).to.equal(202);
    await runner().drain();
    expect(await dumpDatabase(db())).to.deep.equal(snapshot);

    expect((await keyed.post('/api/data/notes', { title: 'Before the crash' })).status).to.equal(201);
    const halted = await dash.post(restorePath(), { target: 'same', confirm: 'Home' });
    expect(halted.status).to.equal(202);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let reached!: () => void;
    const stopped = new Promise<void>((resolve) => (reached = resolve));
    let stoppedAt = -1;
    const first = backupRunner(apps.dashboard.deps, apps.dashboard.services, {
      owner: 'worker-a',
      onProgress: async (job, done) => {
        if (job.kind === 'restore' && done > 0 && stoppedAt < 0) {
          stoppedAt = done;
          reached();
          await gate; // the worker stops here, its data half loaded
        }
      },
    });
    const firstRun = first.drain();
    await stopped;
    await expectHeld();
    const later = () => new Date(Date.now() + 120_000);
    const second = backupRunner(apps.dashboard.deps, apps.dashboard.services, {
      owner: 'worker-b',
      now: later,
    });
    expect(await second.drain()).to.equal(1);
    release();
    await firstRun;
    const job = await jobs().findOne({ _id: new ObjectId(halted.body.data.restore.id) });
    expect(job).to.deep.include({ state: 'done', attempts: 2, error: null });
    expect(await dumpDatabase(db())).to.deep.equal(snapshot);
    expect(await lists()).to.deep.equal(listed);
    expect((await keyed.get('/api/data/notes?limit=1')).status).to.equal(200);
  });

  it('lets the clients go when the restore fails, and past a mark that an ended job left', async () => {
    const res = await dash.post(restorePath(), { target: 'same', confirm: 'Home' });
    expect(res.status, res.text).to.equal(202);
    const restoreId = res.body.data.restore.id;
    await expectHeld();
    // Its archive gone before a worker takes it: the job fails, nothing was cleared.
    await jobs().updateOne({ _id: new ObjectId(restoreId) }, { $set: { key: 'gone/archive.tar.gz' } });
    await runner().drain();
    const failed = (await dash.get(`/api/projects/${fx.project.id}/restores/${restoreId}`)).body.data.restore;
    expect(failed).to.deep.include({ state: 'failed', error: 'the backup archive is gone' });
    expect((await keyed.get('/api/data/notes?limit=1')).status).to.equal(200);
    expect(await dumpDatabase(db())).to.deep.equal(snapshot);

    // A worker that died between recording the end and removing the mark: the next request
    // finds the job ended, removes the mark and is answered.
    await apps.dashboard.services.repos.projects.setRestoring(fx.project.id, restoreId);
    expect((await keyed.get('/api/data/notes?limit=1')).status).to.equal(200);
    const projects = apps.dashboard.deps.db.platform.collection('projects');
    expect(await projects.findOne({ _id: new ObjectId(fx.project.id) })).not.to.have.property('restoringId');
  });
});

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}
