// Webhooks of a restored project over HTTP: a restore into a new project brings them back disabled,
// with a new signing secret and the reason in `pausedReason` (a staging copy must not sign events
// to the original's receivers with the original's secret); enabling one clears it. A restore over
// the same project keeps each webhook's state and secret.
import { expect } from 'chai';
import { ObjectId } from 'mongodb';
import { startTestApps } from '../helpers/app.js';
import { contextFor, createProjectFixture, type ProjectFixture } from '../helpers/fixtures.js';
import type { ApiClient } from '../helpers/client.js';
import { backupRunner } from '../../src/jobs/backup-runner.js';
import { decrypt, deriveKey } from '../../src/lib/secrets.js';

describe('backups: the webhooks a restore brings back', () => {
  let apps: Awaited<ReturnType<typeof startTestApps>>;
  let fx: ProjectFixture;
  let dash: ApiClient;
  let backupId: string;
  let hookId: string;
  let secret: string;
  const drain = () => backupRunner(apps.dashboard.deps, apps.dashboard.services).drain();
  /** The signing secret a webhook has as stored (sealed with the webhook key). */
  const secretOf = async (id: string) => {
    const doc = await apps.dashboard.deps.db.platform
      .collection('webhooks')
      .findOne({ _id: new ObjectId(id) });
    return decrypt(deriveKey(apps.dashboard.deps.config.encryptionKey, 'webhook-secret'), doc!.secretEnc);
  };

  before(async () => {
    apps = await startTestApps('backup_webhooks');
    fx = await createProjectFixture(apps.dashboard.services, 'Live');
    dash = apps.dashboard.client.with({ cookie: fx.cookie });
    const hook = await dash.post(`/api/projects/${fx.project.id}/webhooks`, {
      url: 'https://93.184.215.14/in',
      events: ['document.created'],
      description: 'orders to production',
    });
    expect(hook.status, hook.text).to.equal(201);
    hookId = hook.body.data.webhook.id;
    secret = hook.body.data.secret;
    expect(await secretOf(hookId)).to.equal(secret);
    const created = await dash.post(`/api/projects/${fx.project.id}/backups`, {});
    backupId = created.body.data.backup.id;
    expect(await drain()).to.equal(1);
  });
  after(() => apps?.close());

  it('into a new project: disabled, a new secret, the reason shown; enabling it clears the reason', async () => {
    const res = await dash.post(`/api/projects/${fx.project.id}/backups/${backupId}/restore`, {
      name: 'Staging',
    });
    expect(res.status, res.text).to.equal(202);
    const target = res.body.data.project.id;
    expect(await drain()).to.equal(1);
    const list = await dash.get(`/api/projects/${target}/webhooks`);
    expect(list.status).to.equal(200);
    const [copy] = list.body.data.webhooks;
    expect(copy).to.deep.include({
      url: 'https://93.184.215.14/in',
      description: 'orders to production',
      events: ['document.created'],
      enabled: false,
    });
    expect(copy.pausedReason).to.match(/^Disabled after restore: /);
    expect(copy.pausedAt).to.be.a('string');
    const copySecret = await secretOf(copy.id);
    expect(copySecret).to.match(/^whsec_/);
    expect(copySecret).not.to.equal(secret);

    // An event in the copy queues nothing while it is disabled.
    const keyed = apps.public.client.with({ 'x-api-key': res.body.data.keys.secret });
    const deliveries = async () => {
      const got = await dash.get(`/api/projects/${target}/webhooks/${copy.id}/deliveries`);
      expect(got.status, got.text).to.equal(200);
      return got.body.data.deliveries.length as number;
    };
    await apps.dashboard.services.collections.create(contextFor({ developer: fx.developer }), target, {
      name: 'orders',
      fields: [{ name: 'n', type: 'Number' }],
    });
    expect((await keyed.post('/api/data/orders', { n: 1 })).status).to.equal(201);

    const enabled = await dash.patch(`/api/projects/${target}/webhooks/${copy.id}`, { enabled: true });
    expect(enabled.status, enabled.text).to.equal(200);
    expect(enabled.body.data.webhook).to.deep.include({ enabled: true, pausedAt: null, pausedReason: null });
    // Once enabled, the next event is queued for it; the one made while it was disabled never was.
    expect((await keyed.post('/api/data/orders', { n: 2 })).status).to.equal(201);
    for (let i = 0; i < 50 && (await deliveries()) === 0; i++) await new Promise((r) => setTimeout(r, 100));
    expect(await deliveries()).to.equal(1);
    const source = await dash.get(`/api/projects/${fx.project.id}/webhooks/${hookId}`);
    expect(source.body.data.webhook).to.deep.include({ enabled: true, pausedReason: null });
  });

  it('over the same project: each webhook keeps its state and secret', async () => {
    const res = await dash.post(`/api/projects/${fx.project.id}/backups/${backupId}/restore`, {
      target: 'same',
      confirm: 'Live',
    });
    expect(res.status, res.text).to.equal(202);
    expect(await drain()).to.equal(1);
    const hook = await dash.get(`/api/projects/${fx.project.id}/webhooks/${hookId}`);
    expect(hook.body.data.webhook).to.deep.include({ enabled: true, pausedAt: null, pausedReason: null });
    expect(await secretOf(hookId)).to.equal(secret);
  });
});
