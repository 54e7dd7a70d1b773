// Hooks and functions through a backup, over HTTP: the archive (format version 2) holds them,
// every field and version; a restore into a new project brings them back disabled, their secrets'
// names kept and values dropped, an HTTP hook with a new signing secret, each named on the
// restore's job, and one PATCH enables one again; a restore over the same project brings them back
// as they were at the backup (state, sealed values, ids), so its hooks refuse what they refused.
import { expect } from 'chai';
import { ObjectId, type Document } from 'mongodb';
import { startTestApps } from '../helpers/app.js';
import { createCollectionFixture, createProjectFixture, type ProjectFixture } from '../helpers/fixtures.js';
import type { ApiClient } from '../helpers/client.js';
import { startHookReceiver, type HookReceiver } from '../helpers/hook-receiver.js';
import { backupRunner } from '../../src/jobs/backup-runner.js';
import { decrypt, deriveKey } from '../../src/lib/secrets.js';

describe('backups: hooks and functions kept through a backup', () => {
  let apps: Awaited<ReturnType<typeof startTestApps>>;
  let fx: ProjectFixture;
  let dash: ApiClient;
  let secret: ApiClient;
  let hooks: HookReceiver;
  let backupId: string;
  let ids: Record<string, string>;
  let signing: string;
  /** The functions as stored when the backup was made, by name. */
  let atBackup: Record<string, Document>;
  const fns = (projectId = fx.project.id) => `/api/projects/${projectId}/functions`;
  const drain = () => backupRunner(apps.dashboard.deps, apps.dashboard.services).drain();
  const stored = async (projectId: string) => {
    const docs = await apps.dashboard.deps.db.platform
      .collection('functions')
      .find({ projectId: new ObjectId(projectId) })
      .toArray();
    return Object.fromEntries(docs.map((d) => [d.name as string, d]));
  };
  const open = (sealed: string) =>
    decrypt(deriveKey(apps.dashboard.deps.config.encryptionKey, 'function-secret'), sealed);
  const create = async (body: object) => {
    const res = await dash.post(fns(), body);
    expect(res.status, res.text).to.equal(201);
    return res.body.data as { function: { id: string }; signingSecret: string | null };
  };

  before(async function () {
    this.timeout(120_000);
    apps = await startTestApps('backup_functions', { ALLOW_PRIVATE_HOSTS: 'true' });
    hooks = await startHookReceiver();
    fx = await createProjectFixture(apps.dashboard.services, 'Live');
    dash = apps.dashboard.client.with({ cookie: fx.cookie });
    secret = apps.public.client.with({ 'x-api-key': fx.secretKey });
    await createCollectionFixture(apps.dashboard.services, fx.project.id, {
      name: 'posts',
      mode: 'schema',
      fields: [{ name: 'title', type: 'String', required: true }],
    });
    hooks.answer('/check', (event) =>
      event?.documents?.[0]?.title === 'draft'
        ? { json: { refuse: { status: 403, code: 'NO_DRAFTS', message: 'Drafts stay out' } } }
        : { json: {} },
    );
    const check = await create({
      name: 'checkPost',
      trigger: { type: 'beforeCreate', collection: 'posts' },
      runtime: { type: 'http', url: hooks.url('/check') },
      env: { API_TOKEN: 's3cr3t', REGION: 'eu' },
    });
    signing = check.signingSecret!;
    hooks.secret('/check', signing);
    const nightly = await create({
      name: 'nightly',
      trigger: { type: 'schedule', cron: '0 3 * * *' },
      runtime: { type: 'javascript', code: 'export default async () => 1;', privileged: true },
      failurePolicy: 'open',
    });
    // A second version, then back to the first: versions, active and latest all differ.
    const v2 = await dash.patch(`${fns()}/${nightly.function.id}`, {
      runtime: { type: 'javascript', code: 'export default async () => 2;' },
    });
    expect(v2.status, v2.text).to.equal(200);
    expect((await dash.post(`${fns()}/${nightly.function.id}/versions/1/activate`)).status).to.equal(200);
    const greet = await create({
      name: 'greet',
      trigger: { type: 'callable', access: 'public' },
      runtime: { type: 'javascript', code: 'export default async () => "hi";' },
      rateLimitPerMinute: 30,
      enabled: false,
    });
    ids = { checkPost: check.function.id, nightly: nightly.function.id, greet: greet.function.id };

    expect((await secret.post('/api/data/posts', { title: 'draft' })).status).to.equal(403);
    const created = await dash.post(`/api/projects/${fx.project.id}/backups`, {});
    backupId = created.body.data.backup.id;
    expect(await drain()).to.equal(1);
    atBackup = await stored(fx.project.id);
  });
  after(async () => {
    await apps?.close();
    await hooks?.close();
  });

  it('the archive holds them: format version 2, platform/functions.jsonl', async () => {
    const backup = await dash.get(`/api/projects/${fx.project.id}/backups/${backupId}`);
    expect(backup.body.data.backup.counts).to.include({ 'platform/functions.jsonl': 3 });
  });

  it('into a new project: every field back, disabled and named; env names without values; one PATCH enables', async () => {
    const res = await dash.post(`/api/projects/${fx.project.id}/backups/${backupId}/restore`, {
      name: 'Staging',
    });
    expect(res.status, res.text).to.equal(202);
    const target = res.body.data.project.id as string;
    expect(res.body.data.restore.disabledFunctions).to.deep.equal([]);
    expect(await drain()).to.equal(1);

    const copies = await stored(target);
    expect(Object.keys(copies).sort()).to.deep.equal(['checkPost', 'greet', 'nightly']);
    for (const [name, source] of Object.entries(atBackup)) {
      const copy = copies[name]!;
      // Field for field: what is not listed here is the same (versions, triggers, schedule,
      // runtimes, hashes, failure policies, dates, rate limit, active and latest version).
      const same = (doc: Document) => {
        const leftOut = [
          '_id',
          'projectId',
          'slot',
          'enabled',
          'disabledReason',
          'envEnc',
          'signingSecretEnc',
        ];
        return Object.fromEntries(Object.entries(doc).filter(([k]) => !leftOut.includes(k)));
      };
      expect(same(copy), name).to.deep.equal(same(source));
      expect(copy._id.toHexString()).not.to.equal(source._id.toHexString());
      expect(copy.enabled, name).to.equal(false);
      expect(Object.keys(copy.envEnc).sort()).to.deep.equal(Object.keys(source.envEnc).sort());
      for (const sealed of Object.values(copy.envEnc)) expect(open(sealed as string)).to.equal('');
    }
    expect(copies.checkPost!.disabledReason).to.match(/^Disabled after restore: /);
    expect(copies.nightly!.disabledReason).to.match(/^Disabled after restore: /);
    // Disabled in the backup already: stays so, and is not named as the restore's doing.
    expect(copies.greet!.disabledReason ?? null).to.equal(null);
    const newSecret = open(copies.checkPost!.signingSecretEnc);
    expect(newSecret).to.match(/^whsec_/);
    expect(newSecret).not.to.equal(signing);
    expect(copies.greet!.signingSecretEnc).to.equal(null);

    const job = await dash.get(`/api/projects/${target}/restores/${res.body.data.restore.id}`);
    expect(job.status).to.equal(200);
    expect(job.body.data.restore.state).to.equal('done');
    const named = [...job.body.data.restore.disabledFunctions].sort((a, b) => a.name.localeCompare(b.name));
    expect(named).to.deep.equal([
      { id: copies.checkPost!._id.toHexString(), name: 'checkPost' },
      { id: copies.nightly!._id.toHexString(), name: 'nightly' },
    ]);

    // The API's read: the same definition, the env's names, the reason.
    const read = await dash.get(`${fns(target)}/${copies.nightly!._id.toHexString()}`);
    const original = await dash.get(`${fns()}/${ids.nightly}`);
    const view = (f: Record<string, unknown>) => {
      const leftOut = ['id', 'enabled', 'disabledReason', 'createdAt', 'updatedAt', 'breaker'];
      return Object.fromEntries(Object.entries(f).filter(([k]) => !leftOut.includes(k)));
    };
    expect(view(read.body.data.function)).to.deep.equal(view(original.body.data.function));
    expect(read.body.data.function).to.include({ enabled: false, version: 1, latestVersion: 2 });
    const versions = await dash.get(`${fns(target)}/${copies.nightly!._id.toHexString()}/versions`);
    const sourceVersions = await dash.get(`${fns()}/${ids.nightly}/versions`);
    expect(versions.body.data.versions).to.deep.equal(sourceVersions.body.data.versions);
    const hook = await dash.get(`${fns(target)}/${copies.checkPost!._id.toHexString()}`);
    expect(hook.body.data.function.env).to.deep.equal(['API_TOKEN', 'REGION']);

    // Disabled: the copy's hook does not run; enabled (one PATCH), it refuses again, signed anew.
    const keyed = apps.public.client.with({ 'x-api-key': res.body.data.keys.secret });
    const before = hooks.on('/check').length;
    expect((await keyed.post('/api/data/posts', { title: 'draft' })).status).to.equal(201);
    expect(hooks.on('/check').length).to.equal(before);
    const enabled = await dash.patch(`${fns(target)}/${copies.checkPost!._id.toHexString()}`, {
      enabled: true,
    });
    expect(enabled.status, enabled.text).to.equal(200);
    expect(enabled.body.data.function).to.include({ enabled: true, disabledReason: null });
    // Enabling it shows its signing secret once: a new one, which its developer can now verify.
    const shown = enabled.body.data.signingSecret as string;
    expect(shown).to.match(/^whsec_/);
    expect(shown).not.to.equal(signing);
    expect(shown).not.to.equal(newSecret);
    const saved = await apps.dashboard.deps.db.platform
      .collection('functions')
      .findOne({ _id: copies.checkPost!._id });
    expect(open(saved!.signingSecretEnc)).to.equal(shown);
    hooks.secret('/check', shown);
    const refused = await keyed.post('/api/data/posts', { title: 'draft' });
    expect(refused.status, refused.text).to.equal(403);
    expect(hooks.on('/check').at(-1)!.verified).to.equal(true);
    hooks.secret('/check', signing);
    // The project's count of functions is the restored one: the plan's limit still holds.
    const counts = await apps.dashboard.deps.db.platform
      .collection('function_counts')
      .findOne({ _id: target } as Document);
    expect(counts!.count).to.equal(3);
  });

  it('over the same project: each function as it was at the backup, its hooks refusing again', async () => {
    // Changed since the backup: one deleted, one's env and state changed, one added.
    expect((await dash.delete(`${fns()}/${ids.checkPost}`)).status).to.equal(200);
    expect((await dash.patch(`${fns()}/${ids.greet}`, { enabled: true, env: { NEW: 'x' } })).status).to.equal(
      200,
    );
    await create({
      name: 'later',
      trigger: { type: 'callable', access: 'secret' },
      runtime: { type: 'javascript', code: 'export default async () => 0;' },
    });
    expect((await secret.post('/api/data/posts', { title: 'draft' })).status).to.equal(201);

    const res = await dash.post(`/api/projects/${fx.project.id}/backups/${backupId}/restore`, {
      target: 'same',
      confirm: 'Live',
    });
    expect(res.status, res.text).to.equal(202);
    expect(await drain()).to.equal(1);
    const job = await dash.get(`/api/projects/${fx.project.id}/restores/${res.body.data.restore.id}`);
    expect(job.body.data.restore).to.deep.include({ state: 'done', disabledFunctions: [] });

    const now = await stored(fx.project.id);
    const bare = (doc: Document) => ({ ...doc, disabledReason: doc.disabledReason ?? null });
    expect(Object.keys(now).sort()).to.deep.equal(['checkPost', 'greet', 'nightly']);
    for (const [name, source] of Object.entries(atBackup))
      expect(bare(now[name]!), name).to.deep.equal(bare(source));
    expect(open(now.checkPost!.envEnc.API_TOKEN)).to.equal('s3cr3t');
    expect(open(now.checkPost!.signingSecretEnc)).to.equal(signing);
    const refused = await secret.post('/api/data/posts', { title: 'draft' });
    expect(refused.status, refused.text).to.equal(403);
    expect(refused.body.code).to.equal('HOOK_NO_DRAFTS');
  });
});
