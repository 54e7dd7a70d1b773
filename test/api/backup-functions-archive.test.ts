// A tenant-controlled archive's functions, over HTTP: a downloaded archive can be edited and put
// back (a project's own bucket), so every function record is checked before anything is written
// and only what the check returns is written, under the target project's id: unknown fields,
// two hooks in one slot, code past the plan and more functions than the plan allows are refused
// with nothing written; a forged project id, slot or code hash is not what is stored. A version 1
// archive (no functions) still restores, and a replace with it keeps the project's functions.
import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ObjectId, type Document } from 'mongodb';
import { startTestApps } from '../helpers/app.js';
import { createOperator, createProjectFixture, type ProjectFixture } from '../helpers/fixtures.js';
import type { ApiClient } from '../helpers/client.js';
import { backupRunner } from '../../src/jobs/backup-runner.js';
import { jsonLines, packParts } from './backup-shared.js';

const CODE = 'export default async () => 1;';

describe('backups: the functions of an edited archive', () => {
  let apps: Awaited<ReturnType<typeof startTestApps>>;
  let fx: ProjectFixture;
  let other: ProjectFixture;
  let dash: ApiClient;
  let backupId: string;
  const jobs = () => apps.dashboard.deps.db.platform.collection('backup_jobs');
  const functions = () => apps.dashboard.deps.db.platform.collection('functions');
  const drain = () => backupRunner(apps.dashboard.deps, apps.dashboard.services).drain();
  const restore = (body: object) =>
    dash.post(`/api/projects/${fx.project.id}/backups/${backupId}/restore`, body);

  /** Puts `bytes` in place of the backup's archive, with its checksum (an edited archive). */
  async function useArchive(bytes: Buffer) {
    const key = (await jobs().findOne({ _id: new ObjectId(backupId) }))!.key as string;
    const file = path.join(mkdtempSync(path.join(tmpdir(), 'backup-test-')), 'a.tar.gz');
    writeFileSync(file, bytes);
    await apps.dashboard.services.backups.archives.put(key, file, bytes.length);
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    await jobs().updateOne({ _id: new ObjectId(backupId) }, { $set: { sha256, size: bytes.length } });
  }

  const projectLine = () =>
    jsonLines({ name: 'Home', settings: { allowedOrigins: [], endUserAuth: true, siteUrl: null } });
  const fn = (over: Document = {}, version: Document = {}) => ({
    _id: new ObjectId(),
    projectId: new ObjectId(fx.project.id),
    name: 'fn',
    enabled: true,
    activeVersion: 1,
    latestVersion: 1,
    versions: [
      {
        version: 1,
        sha256: 'a'.repeat(64),
        codeHash: 'b'.repeat(64),
        trigger: { type: 'callable', access: 'secret' },
        runtime: { type: 'javascript', code: CODE, privileged: false },
        failurePolicy: 'closed',
        createdAt: new Date(),
        ...version,
      },
    ],
    signingSecretEnc: null,
    envEnc: {},
    rateLimitPerMinute: null,
    slot: 'fn:x',
    createdAt: new Date(),
    updatedAt: new Date(),
    ...over,
  });
  const v2 = (...records: Document[]) =>
    packParts({ project: { id: fx.project.id, name: 'Home' }, formatVersion: 2 }, [
      { name: 'platform/project.jsonl', body: projectLine() },
      { name: 'platform/functions.jsonl', body: jsonLines(...records) },
    ]);

  before(async function () {
    this.timeout(120_000);
    apps = await startTestApps('backup_functions_archive');
    await createOperator(apps.dashboard.services); // the tenants below are then on a plan
    other = await createProjectFixture(apps.dashboard.services, 'Other');
    fx = await createProjectFixture(apps.dashboard.services, 'Home');
    await apps.dashboard.services.repos.developers.setPlan(fx.developer.id, 'pro');
    dash = apps.dashboard.client.with({ cookie: fx.cookie });
    const kept = await dash.post(`/api/projects/${fx.project.id}/functions`, {
      name: 'kept',
      trigger: { type: 'callable', access: 'secret' },
      runtime: { type: 'javascript', code: CODE },
    });
    expect(kept.status, kept.text).to.equal(201);
    backupId = (await dash.post(`/api/projects/${fx.project.id}/backups`, {})).body.data.backup.id;
    expect(await drain()).to.equal(1);
  });
  after(() => apps?.close());

  it('refuses a record of the wrong shape, two hooks in one slot, code and counts past the plan: nothing written', async () => {
    const before = await functions().countDocuments({});
    const projects = await apps.dashboard.deps.db.platform.collection('projects').countDocuments({});
    const refusals: [Buffer, number, RegExp][] = [
      [
        await v2(fn({}, { runtime: { type: 'javascript', code: CODE, privileged: false, extra: 1 } })),
        400,
        /platform\/functions\.jsonl line 1: versions\.0\.runtime has unknown fields/,
      ],
      [
        await v2(fn({}, { trigger: { type: 'beforeCreate', collection: 'posts', $where: 'x' } })),
        400,
        /line 1: versions\.0\.trigger has unknown fields/,
      ],
      [await v2(fn({ envEnc: { $set: 'x' } })), 400, /line 1: envEnc has a name that is no secret name/],
      [await v2(fn({ name: '../x' })), 400, /line 1: name is not a function name/],
      [await v2(fn({ activeVersion: 7 })), 400, /line 1: activeVersion is not one of its versions/],
      [
        await v2(
          fn({ name: 'a' }, { trigger: { type: 'beforeCreate', collection: 'posts' } }),
          fn({ name: 'b' }, { trigger: { type: 'beforeCreate', collection: 'posts' } }),
        ),
        400,
        /line 2: the hook slot is taken by an earlier line/,
      ],
      [await v2(fn({ name: 'a' }), fn({ name: 'a' })), 400, /line 2: the name is taken by an earlier line/],
    ];
    for (const [bytes, status, message] of refusals) {
      await useArchive(bytes);
      const res = await restore({ name: 'Copy' });
      expect(res.status, res.text).to.equal(status);
      expect(res.body.message).to.match(message);
    }
    // Back on Free: 64 KB of code and 5 functions.
    await apps.dashboard.services.repos.developers.setPlan(fx.developer.id, 'free');
    try {
      await useArchive(
        await v2(fn({}, { runtime: { type: 'javascript', code: 'x'.repeat(70_000), privileged: false } })),
      );
      const code = await restore({ name: 'Copy' });
      expect(code.status, code.text).to.equal(403);
      expect(code.body).to.include({ code: 'PLAN_LIMIT' });
      expect(code.body.message).to.match(/70000 bytes of code; the plan allows 65536/);
      await useArchive(await v2(...['a', 'b', 'c', 'd', 'e', 'f'].map((name) => fn({ name }))));
      const many = await restore({ name: 'Copy' });
      expect(many.status, many.text).to.equal(403);
      expect(many.body).to.include({ code: 'QUOTA_EXCEEDED' });
      expect(many.body.message).to.match(/more functions than the plan allows \(5\)/);
    } finally {
      await apps.dashboard.services.repos.developers.setPlan(fx.developer.id, 'pro');
    }
    expect(await functions().countDocuments({})).to.equal(before);
    expect(await apps.dashboard.deps.db.platform.collection('projects').countDocuments({})).to.equal(
      projects,
    );
  });

  it('writes what the check returns under the target project: a forged project id, slot and hash are not kept', async () => {
    const forged = fn({
      projectId: new ObjectId(other.project.id),
      slot: 'beforeCreate:posts',
      injected: true,
    });
    await useArchive(await v2(forged));
    const res = await restore({ name: 'Copy' });
    expect(res.status, res.text).to.equal(202);
    const target = res.body.data.project.id as string;
    expect(await drain()).to.equal(1);
    const written = await functions()
      .find({ projectId: new ObjectId(target) })
      .toArray();
    expect(written).to.have.length(1);
    const [doc] = written;
    expect(doc!.slot).to.equal(`fn:${doc!._id.toHexString()}`);
    expect(doc!).not.to.have.property('injected');
    expect(doc!.versions[0].codeHash).to.equal(createHash('sha256').update(CODE).digest('hex'));
    expect(doc!.versions[0].sha256).not.to.equal('a'.repeat(64));
    expect(await functions().countDocuments({ projectId: new ObjectId(other.project.id) })).to.equal(0);
  });

  it('a version 1 archive restores; its replace keeps the project’s functions; one naming functions is refused', async () => {
    const empty = Buffer.alloc(0);
    const v1 = (extra: { name: string; body: Buffer }[] = []) =>
      packParts({ project: { id: fx.project.id, name: 'Home' }, formatVersion: 1 }, [
        { name: 'platform/project.jsonl', body: projectLine() },
        { name: 'platform/collections.jsonl', body: empty },
        { name: 'platform/webhooks.jsonl', body: empty },
        { name: 'platform/mail_templates.jsonl', body: empty },
        { name: 'platform/files.jsonl', body: empty },
        ...extra,
      ]);
    await useArchive(await v1([{ name: 'platform/functions.jsonl', body: jsonLines(fn()) }]));
    const refused = await restore({ name: 'Copy' });
    expect(refused.status).to.equal(400);
    expect(refused.body.message).to.match(/a format version 1 archive holds no platform\/functions\.jsonl/);

    await useArchive(await v1());
    const copy = await restore({ name: 'Old' });
    expect(copy.status, copy.text).to.equal(202);
    expect(await drain()).to.equal(1);
    const job = await dash.get(
      `/api/projects/${copy.body.data.project.id}/restores/${copy.body.data.restore.id}`,
    );
    expect(job.body.data.restore).to.deep.include({ state: 'done', disabledFunctions: [] });

    const same = await restore({ target: 'same', confirm: 'Home' });
    expect(same.status, same.text).to.equal(202);
    expect(await drain()).to.equal(1);
    const list = await dash.get(`/api/projects/${fx.project.id}/functions`);
    expect(list.body.data.functions.map((f: { name: string }) => f.name)).to.deep.equal(['kept']);
  });
});
