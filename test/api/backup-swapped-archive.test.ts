// A restore from a bucket its tenant controls, attacked for real: the project's own bucket sits
// behind an S3 lookalike that serves the backup on the first read (the request's check) and a
// crafted archive on every later one (the worker's). The crafted archive carries an operator
// developer, a session, another tenant's project, that tenant's webhook id and a file at that
// tenant's path. The worker copies the archive once, finds the checksum wrong, and writes nothing.
// Then the same parts in an archive whose checksum the job does record: the request and the worker
// each refuse what no backup holds (unknown parts, another project's ids and paths).
import { expect } from 'chai';
import { createHash, randomBytes } from 'node:crypto';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { BSON, ObjectId, type Db } from 'mongodb';
import { startTestApps } from '../helpers/app.js';
import { createProjectFixture, type ProjectFixture } from '../helpers/fixtures.js';
import type { ApiClient } from '../helpers/client.js';
import { backupRunner } from '../../src/jobs/backup-runner.js';
import { backupJobsRepo } from '../../src/db/backup-jobs.js';
import { hashPassword } from '../../src/lib/passwords.js';
import { jsonLines, packParts, padGzip, swappingS3Proxy } from './backup-shared.js';
import { createBucket, putBytes, rebase, requestUpload, s3, s3Env } from './storage-shared.js';

const WATCHED = [
  'developers',
  'sessions',
  'projects',
  'webhooks',
  'webhook_counts',
  'files',
  'collections',
  'mail_templates',
];

describe('backups: a restore from a bucket that serves another archive on the second read', () => {
  let apps: Awaited<ReturnType<typeof startTestApps>>;
  let bucket: Awaited<ReturnType<typeof createBucket>>;
  let proxy: Awaited<ReturnType<typeof swappingS3Proxy>>;
  let attacker: ProjectFixture;
  let victim: ProjectFixture;
  let dash: ApiClient;
  let platform: Db;
  let backupId: string;
  let victimFile: { id: string; path: string };
  let victimHookId: string;
  const victimBytes = Buffer.from('the victim’s own file, which must never change');
  const mallory = { email: 'mallory@example.test', password: 'mallory owns the platform' };
  const base = () => `/api/projects/${attacker.project.id}/backups`;
  const drain = () => backupRunner(apps.dashboard.deps, apps.dashboard.services).drain();
  const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

  /** Every watched platform collection, each record as canonical Extended JSON. */
  const snapshot = async (keepProjects?: Set<string>) => {
    const out: Record<string, string[]> = {};
    for (const name of WATCHED) {
      const docs = await platform.collection(name).find({}).sort({ _id: 1 }).toArray();
      out[name] = docs
        .filter((d) => name !== 'projects' || !keepProjects || keepProjects.has(String(d._id)))
        .map((d) => BSON.EJSON.stringify(d, { relaxed: false }));
    }
    return out;
  };
  const projectIds = async () =>
    new Set((await platform.collection('projects').find({}).toArray()).map((d) => String(d._id)));

  /** What an attacker would want written: each part as the generic loader used to take it. */
  const hostileParts = async () => {
    const now = new Date();
    return [
      {
        name: 'platform/developers.jsonl',
        body: jsonLines({
          _id: new ObjectId(),
          email: mallory.email,
          name: 'Mallory',
          passwordHash: await hashPassword(mallory.password),
          plan: 'pro',
          isOperator: true,
          emailVerified: true,
          createdAt: now,
          updatedAt: now,
        }),
      },
      {
        name: 'platform/sessions.jsonl',
        body: jsonLines({
          _id: new ObjectId(),
          tokenHash: sha(Buffer.from('mallory-session')),
          developerId: new ObjectId(victim.developer.id),
          createdAt: now,
          expiresAt: new Date(Date.now() + 86_400_000),
        }),
      },
      {
        name: 'platform/projects.jsonl',
        body: jsonLines({
          _id: new ObjectId(victim.project.id),
          name: 'Owned',
          ownerId: attacker.developer.id,
        }),
      },
      ...fileParts(),
      ...webhookParts(),
    ];
  };
  /** A webhook record with the victim's webhook id (a restore keeping ids would overwrite it). */
  const webhookParts = () => {
    const now = new Date();
    return [
      {
        name: 'platform/webhooks.jsonl',
        body: jsonLines({
          _id: new ObjectId(victimHookId),
          projectId: new ObjectId(attacker.project.id),
          url: 'https://mallory.example/in',
          description: null,
          events: ['document.created'],
          collections: [],
          enabled: true,
          secretEnc: 'mallory',
          createdAt: now,
          updatedAt: now,
        }),
      },
    ];
  };
  /** A file record at the victim's path, and bytes for it. */
  const fileParts = () => {
    const now = new Date();
    return [
      {
        name: 'platform/files.jsonl',
        body: jsonLines({
          _id: new ObjectId(victimFile.id),
          projectId: new ObjectId(attacker.project.id),
          path: victimFile.path,
          provider: 'internal',
          backend: 'fs',
          location: null,
          uploadKey: victimFile.path,
          filename: 'x.txt',
          contentType: 'text/plain',
          declaredSize: 5,
          size: 5,
          chargedBytes: 5,
          ownerUserId: null,
          state: 'confirmed',
          url: null,
          createdAt: now,
          expiresAt: now,
          claimedAt: null,
          confirmedAt: now,
        }),
      },
      { name: `files/${victimFile.id}`, body: Buffer.from('owned') },
    ];
  };
  const archiveOf = (parts: { name: string; body: Buffer }[]) =>
    packParts({ project: { id: attacker.project.id, name: 'Attacker' } }, parts);

  /** Nothing an attacker aimed at changed: the platform's records, the victim's file, the login. */
  const expectUntouched = async (before: Record<string, string[]>, keep: Set<string>) => {
    expect(await snapshot(keep)).to.deep.equal(before);
    const stored = await apps.dashboard.services.backups.archives.open(victimFile.path);
    const chunks: Buffer[] = [];
    for await (const chunk of stored!.stream) chunks.push(chunk as Buffer);
    expect(Buffer.concat(chunks)).to.deep.equal(victimBytes);
    const login = await apps.dashboard.client.post('/api/auth/login', mallory);
    expect(login.status, login.text).to.equal(401);
  };
  const lastRestore = async (projectId: string) =>
    (await backupJobsRepo(platform).list(projectId, 'restore'))[0]!;

  before(async () => {
    bucket = await createBucket('bk-swap');
    proxy = await swappingS3Proxy(s3Env.endpoint);
    apps = await startTestApps('backup_swap', { S3_BUCKET: '', ALLOW_PRIVATE_HOSTS: 'true' });
    platform = apps.dashboard.deps.db.platform;
    const services = apps.dashboard.services;

    victim = await createProjectFixture(services, 'Victim');
    const victimKeyed = apps.public.client.with({ 'x-api-key': victim.secretKey });
    const ticket = await requestUpload(victimKeyed, {
      filename: 'own.txt',
      contentType: 'text/plain',
      size: victimBytes.length,
    });
    expect(
      (await putBytes(rebase(ticket.signedUrl, apps.public.url), victimBytes, 'text/plain')).status,
    ).to.equal(200);
    const confirmed = await victimKeyed.post('/api/storage/upload-confirm', {
      filePath: ticket.filePath,
      size: victimBytes.length,
    });
    expect(confirmed.status, confirmed.text).to.equal(200);
    const record = await platform.collection('files').findOne({ path: ticket.filePath });
    victimFile = { id: String(record!._id), path: ticket.filePath };
    const hook = await apps.dashboard.client
      .with({ cookie: victim.cookie })
      .post(`/api/projects/${victim.project.id}/webhooks`, {
        url: 'https://93.184.215.14/in',
        events: ['document.created'],
      });
    expect(hook.status, hook.text).to.equal(201);
    victimHookId = hook.body.data.webhook.id;

    attacker = await createProjectFixture(services, 'Attacker');
    await services.repos.developers.setPlan(attacker.developer.id, 'pro');
    dash = apps.dashboard.client.with({ cookie: attacker.cookie });
    const set = await dash.put(`/api/projects/${attacker.project.id}/storage`, {
      endpoint: proxy.endpoint,
      region: s3Env.region,
      bucket: bucket.name,
      accessKeyId: s3Env.accessKeyId,
      secretAccessKey: s3Env.secretAccessKey,
    });
    expect(set.status, set.text).to.equal(200);
    await apps.dashboard.deps.db
      .project(attacker.project.id)
      .collection('notes')
      .insertMany(Array.from({ length: 100 }, (_, n) => ({ n, noise: randomBytes(64).toString('hex') })));
    const created = await dash.post(base(), {});
    expect(created.status).to.equal(202);
    backupId = created.body.data.backup.id;
    expect(await drain()).to.equal(1);
    expect((await dash.get(`${base()}/${backupId}`)).body.data.backup).to.deep.include({
      state: 'done',
      storage: 'external',
    });
  });
  after(async () => {
    await apps?.close();
    await proxy?.close();
    await bucket?.drop();
  });

  const cases = [
    { mode: 'new', swapped: 'of the same size', error: /^its SHA-256 does not match the backup$/ },
    { mode: 'same', swapped: 'larger', error: /^the archive is larger than the backup's \d+ bytes$/ },
  ] as const;
  for (const { mode, swapped, error } of cases) {
    it(`into ${mode === 'new' ? 'a new project' : 'its own project'}, an archive ${swapped}: the worker reads once, refuses it, writes nothing`, async () => {
      const before = await snapshot();
      const keep = await projectIds();
      const hostile = await archiveOf(await hostileParts());
      const size = (await dash.get(`${base()}/${backupId}`)).body.data.backup.size as number;
      expect(hostile.length).to.be.below(size);
      proxy.swapAfterFirstRead(
        swapped === 'larger' ? Buffer.concat([hostile, Buffer.alloc(size)]) : padGzip(hostile, size),
      );
      const gets = proxy.archiveGets;
      try {
        const res = await dash.post(
          `${base()}/${backupId}/restore`,
          mode === 'new' ? { name: 'Swapped copy' } : { target: 'same', confirm: 'Attacker' },
        );
        expect(res.status, res.text).to.equal(202); // the request read the real archive
        expect(await drain()).to.equal(1);
      } finally {
        proxy.stopSwapping();
      }
      expect(proxy.archiveGets - gets).to.equal(2); // the request's check, then the worker's one copy
      const target =
        mode === 'new' ? [...(await projectIds())].find((id) => !keep.has(id))! : attacker.project.id;
      const job = await lastRestore(target);
      expect(job.state).to.equal('failed');
      expect(job.error).to.match(error);
      await expectUntouched(before, keep);
      // Nothing of the attacker's own project was cleared either, and its clients are let go.
      const notes = await apps.dashboard.deps.db
        .project(attacker.project.id)
        .collection('notes')
        .countDocuments();
      expect(notes).to.equal(100);
      if (mode === 'new') {
        expect(await apps.dashboard.deps.db.project(target).collection('notes').countDocuments()).to.equal(0);
      }
      expect(
        (await apps.dashboard.services.repos.projects.findById(attacker.project.id))!.restoringId,
      ).to.equal(undefined);
    });
  }

  describe('an archive whose checksum the job records', () => {
    let key: string;
    let original: { sha256: string; size: number };
    const jobs = () => platform.collection('backup_jobs');
    /** Puts `bytes` in the bucket as the backup and records their checksum, as if a backup had made them. */
    const plant = async (bytes: Buffer) => {
      await s3.send(new PutObjectCommand({ Bucket: bucket.name, Key: key, Body: bytes }));
      await jobs().updateOne(
        { _id: new ObjectId(backupId) },
        { $set: { sha256: sha(bytes), size: bytes.length } },
      );
      return { sha256: sha(bytes), size: bytes.length };
    };
    /** A restore job queued as the request would, straight to the worker (past the request's check). */
    const queue = async (projectId: string, recorded: { sha256: string; size: number }, replace: boolean) =>
      backupJobsRepo(platform).create(projectId, {
        kind: 'restore',
        trigger: 'manual',
        includeUsers: false,
        sourceBackupId: backupId,
        sourceProjectId: attacker.project.id,
        key,
        location: `${proxy.endpoint}|${bucket.name}`,
        replace,
        ...recorded,
      });

    before(async () => {
      const job = await jobs().findOne({ _id: new ObjectId(backupId) });
      key = job!.key as string;
      original = { sha256: job!.sha256 as string, size: job!.size as number };
      expect(job!.location).to.equal(`${proxy.endpoint}|${bucket.name}`);
    });
    after(async () => {
      await jobs().updateOne({ _id: new ObjectId(backupId) }, { $set: original });
    });

    it('refuses parts no backup holds (developers, sessions, projects), at the request and in the worker', async () => {
      const before = await snapshot();
      const keep = await projectIds();
      const recorded = await plant(await archiveOf(await hostileParts()));
      const res = await dash.post(`${base()}/${backupId}/restore`, { name: 'Planted' });
      expect(res.status, res.text).to.equal(400);
      expect(res.body.message).to.equal('The archive is refused: unknown part platform/developers.jsonl');
      expect(await projectIds()).to.deep.equal(keep);

      const job = await queue(attacker.project.id, recorded, true);
      expect(await drain()).to.equal(1);
      const ran = await backupJobsRepo(platform).get(attacker.project.id, job.id);
      expect(ran).to.deep.include({
        state: 'failed',
        error: 'The archive is refused: unknown part platform/developers.jsonl',
      });
      await expectUntouched(before, keep);
    });

    it('refuses a record with another project’s id over its own project, before clearing anything', async () => {
      const before = await snapshot();
      const keep = await projectIds();
      const recorded = await plant(await archiveOf(webhookParts()));
      const job = await queue(attacker.project.id, recorded, true);
      expect(await drain()).to.equal(1);
      const ran = await backupJobsRepo(platform).get(attacker.project.id, job.id);
      expect(ran!.state).to.equal('failed');
      expect(ran!.error).to.equal(
        'The archive is refused: platform/webhooks.jsonl: a record has the id of a record of another project',
      );
      await expectUntouched(before, keep);
      const notes = await apps.dashboard.deps.db
        .project(attacker.project.id)
        .collection('notes')
        .countDocuments();
      expect(notes).to.equal(100);
    });

    it('refuses a file path under another project, at the request and in the worker', async () => {
      const before = await snapshot();
      const keep = await projectIds();
      const recorded = await plant(await archiveOf(fileParts()));
      const problem = `The archive is refused: platform/files.jsonl line 1: path ${JSON.stringify(victimFile.path)} is not a file of the project the archive was made of`;
      const res = await dash.post(`${base()}/${backupId}/restore`, { target: 'same', confirm: 'Attacker' });
      expect(res.status, res.text).to.equal(400);
      expect(res.body.message).to.equal(problem);

      for (const replace of [true, false]) {
        const job = await queue(attacker.project.id, recorded, replace);
        expect(await drain()).to.equal(1);
        const ran = await backupJobsRepo(platform).get(attacker.project.id, job.id);
        expect(ran).to.deep.include({ state: 'failed', error: problem });
      }
      await expectUntouched(before, keep);
    });
  });
});
