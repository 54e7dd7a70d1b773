// Backups are bounded: the documents a backup holds by the plan's database size (also for a
// project's own database, which has no quota), the worker's temporary folder with them, and the
// kept archives by the plan's backup storage (`backupBytes`). Limits are lowered here by the
// operator's per-project overrides, as an operator would.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { MongoClient, ObjectId } from 'mongodb';
import { startTestApps } from '../helpers/app.js';
import { createProjectFixture, type ProjectFixture } from '../helpers/fixtures.js';
import { startMongoServer, type MongoServer } from '../helpers/mongo-server.js';
import { backupRunner } from '../../src/jobs/backup-runner.js';
import { writeArchive } from '../../src/services/backups/archive.js';

describe('backups: bounded by the plan', function () {
  this.timeout(90_000);
  let ext: MongoServer;
  let apps: Awaited<ReturnType<typeof startTestApps>>;
  let operator: ProjectFixture;
  let spool: string;
  const savedTmp = process.env.TMPDIR;

  before(async () => {
    [ext, apps] = await Promise.all([
      startMongoServer(),
      startTestApps('backup_bounds', { ALLOW_PRIVATE_HOSTS: 'true' }),
    ]);
    // The first account of an installation is the operator.
    operator = await createProjectFixture(apps.dashboard.services, 'Own database');
    // The worker's temporary folder, watched: os.tmpdir() reads TMPDIR at each call.
    spool = mkdtempSync(path.join(tmpdir(), 'backup-bounds-'));
    process.env.TMPDIR = spool;
  });
  after(async () => {
    if (savedTmp === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = savedTmp;
    rmSync(spool, { recursive: true, force: true });
    await apps?.close();
    await ext?.stop();
  });

  const dash = (fx: ProjectFixture) => apps.dashboard.client.with({ cookie: fx.cookie });
  const setLimits = async (fx: ProjectFixture, limits: Record<string, number>) => {
    const res = await dash(operator).put(`/api/admin/projects/${fx.project.id}/limits`, { limits });
    expect(res.status, res.text).to.equal(200);
  };
  const drain = () => backupRunner(apps.dashboard.deps, apps.dashboard.services).drain();
  const backup = async (fx: ProjectFixture, id: string) =>
    (await dash(fx).get(`/api/projects/${fx.project.id}/backups/${id}`)).body.data.backup;
  const keptBytes = async (fx: ProjectFixture) =>
    (await dash(fx).get(`/api/projects/${fx.project.id}/usage`)).body.data.figures.backupBytes;

  it('stops the backup of an own database past the plan’s database size, keeping nothing', async () => {
    const saved = await dash(operator).put(`/api/projects/${operator.project.id}/database`, {
      uri: ext.uri('shop'),
    });
    expect(saved.status, saved.text).to.equal(200);
    const client = new MongoClient(`mongodb://127.0.0.1:${ext.port}/?directConnection=true`);
    try {
      await client
        .db('shop')
        .collection('notes')
        .insertMany(
          Array.from({ length: 60 }, (_, i) => ({ _id: new ObjectId(), i, text: 'x'.repeat(200) })),
        );
    } finally {
      await client.close();
    }
    await setLimits(operator, { databaseBytes: 4096 });

    const created = await dash(operator).post(`/api/projects/${operator.project.id}/backups`, {});
    expect(created.status, created.text).to.equal(202);
    expect(await drain()).to.equal(1);
    const job = await backup(operator, created.body.data.backup.id);
    expect(job.state).to.equal('failed');
    expect(job.error).to.equal(
      "the project's documents pass the plan's database size of 4096 bytes (databaseBytes); the backup was stopped",
    );
    expect(job.size ?? null, 'no archive').to.equal(null);
    expect((await keptBytes(operator)).used).to.equal(0);
    expect(readdirSync(spool), 'the temporary folder is cleaned up').to.deep.equal([]);
  });

  it('refuses a backup once the kept ones fill the plan’s backup storage, and fails one that would pass it', async () => {
    const fx = await createProjectFixture(apps.dashboard.services, 'Managed');
    await apps.dashboard.deps.db
      .project(fx.project.id)
      .collection('notes')
      .insertMany(Array.from({ length: 20 }, (_, i) => ({ _id: new ObjectId(), i, text: 'y'.repeat(100) })));
    const base = `/api/projects/${fx.project.id}/backups`;
    const first = (await dash(fx).post(base, {})).body.data.backup.id as string;
    await drain();
    const done = await backup(fx, first);
    expect(done.state, done.error).to.equal('done');
    const size = done.size as number;

    await setLimits(fx, { backupBytes: size });
    const refused = await dash(fx).post(base, {});
    expect(refused.status, refused.text).to.equal(403);
    expect(refused.body).to.include({ code: 'QUOTA_EXCEEDED' });
    expect(refused.body.message).to.equal(
      `Backup storage full: the project's backups take ${size} of the plan's ${size} bytes (backupBytes); delete one first`,
    );
    expect(await keptBytes(fx)).to.deep.equal({ used: size, limit: size, limitName: 'backupBytes' });

    // Room for 10 more bytes: accepted, then refused by the worker before anything is stored.
    await setLimits(fx, { backupBytes: size + 10 });
    const second = await dash(fx).post(base, {});
    expect(second.status, second.text).to.equal(202);
    await drain();
    const failed = await backup(fx, second.body.data.backup.id);
    expect(failed.state).to.equal('failed');
    expect(failed.error).to.match(
      /^the backup \(\d+ bytes\) does not fit in the plan's backup storage \(backupBytes\): 10 bytes are left; delete older backups$/,
    );
    expect((await keptBytes(fx)).used, 'only the first archive is kept').to.equal(size);
    expect(readdirSync(spool)).to.deep.equal([]);
  });

  it('stops spooling parts past the temporary space and removes the folder', async () => {
    async function* lines() {
      for (let i = 0; i < 10; i++) yield { line: 'z'.repeat(49) };
    }
    async function* parts() {
      yield { name: 'data/notes.jsonl', lines: lines() };
    }
    const header = {
      project: { id: 'p', name: 'p' },
      createdAt: new Date().toISOString(),
      includesUsers: true,
    };
    let error: unknown;
    await writeArchive(header, parts(), undefined, 200).catch((err) => (error = err));
    expect((error as Error)?.message).to.equal(
      "the backup passed its temporary space of 200 bytes (the plan's database and storage sizes) and was stopped",
    );
    expect(readdirSync(spool)).to.deep.equal([]);
    const fits = await writeArchive(header, parts(), undefined, 500);
    expect(fits.manifest.parts[0]).to.include({ name: 'data/notes.jsonl', count: 10, size: 500 });
    await fits.cleanup();
  });
});
