// Webhook management on the dashboard: create (secret shown once), list, get, change, delete,
// rotate, the plan limit (also under concurrent creates), URL rules (https, no credentials,
// restricted hosts), and the 400/401/404 of every operation.
import { expect } from 'chai';
import { startTestApps } from '../helpers/app.js';
import { createDeveloper, createProjectFixture, type ProjectFixture } from '../helpers/fixtures.js';
import type { ApiClient } from '../helpers/client.js';

describe('webhooks: management (dashboard)', () => {
  let apps: Awaited<ReturnType<typeof startTestApps>>;
  let fx: ProjectFixture;
  let dash: ApiClient;
  let operator: ApiClient;
  const base = (f: ProjectFixture = fx) => `/api/projects/${f.project.id}/webhooks`;
  const input = { url: 'https://93.184.215.14/in', events: ['document.created'] };

  before(async () => {
    // No ALLOW_PRIVATE_HOSTS: targets are checked as in production; the example target is a public address literal (tests need no DNS).
    apps = await startTestApps('webhooks_manage');
    const op = await createDeveloper(apps.dashboard.services);
    operator = apps.dashboard.client.with({ cookie: op.cookie });
    fx = await createProjectFixture(apps.dashboard.services);
    await operator.put(`/api/admin/developers/${fx.developer.id}/plan`, { plan: 'pro' });
    dash = apps.dashboard.client.with({ cookie: fx.cookie });
  });
  after(() => apps?.close());

  it('creates a webhook and shows its secret once', async () => {
    const res = await dash.post(base(), { ...input, collections: ['posts'], description: 'indexer' });
    expect(res.status).to.equal(201);
    expect(res.body.data.secret).to.match(/^whsec_[A-Za-z0-9+/=]{40,}$/);
    expect(Buffer.from(res.body.data.secret.slice(6), 'base64')).to.have.length(32);
    expect(res.body.data.webhook).to.deep.include({
      url: input.url,
      events: ['document.created'],
      collections: ['posts'],
      description: 'indexer',
      enabled: true,
    });
    const id = res.body.data.webhook.id;
    const one = await dash.get(`${base()}/${id}`);
    expect(one.status).to.equal(200);
    expect(one.text).not.to.include(res.body.data.secret);
    const list = await dash.get(base());
    expect(list.status).to.equal(200);
    expect(list.body.data.webhooks.map((w: any) => w.id)).to.include(id);
    expect(list.text).not.to.include('whsec_');
    const stored = await apps.dashboard.deps.db.platform.collection('webhooks').findOne({});
    expect(JSON.stringify(stored)).not.to.include(res.body.data.secret.slice(6));
  });

  it('changes, rotates and deletes', async () => {
    const created = await dash.post(base(), input);
    const id = created.body.data.webhook.id;
    const patched = await dash.patch(`${base()}/${id}`, {
      enabled: false,
      events: ['document.deleted', 'user.created'],
    });
    expect(patched.status).to.equal(200);
    expect(patched.body.data.webhook).to.deep.include({
      enabled: false,
      events: ['document.deleted', 'user.created'],
    });
    expect((await dash.patch(`${base()}/${id}`, {})).status).to.equal(400);
    expect((await dash.patch(`${base()}/${id}`, { url: 'ftp://x.example.com' })).status).to.equal(400);
    const rotated = await dash.post(`${base()}/${id}/rotate-secret`);
    expect(rotated.status).to.equal(200);
    expect(rotated.body.data.secret)
      .to.match(/^whsec_/)
      .and.not.equal(created.body.data.secret);
    expect((await dash.delete(`${base()}/${id}`)).status).to.equal(200);
    expect((await dash.get(`${base()}/${id}`)).status).to.equal(404);
    expect((await dash.delete(`${base()}/${id}`)).status).to.equal(404);
  });

  it('refuses bad targets and inputs: http, credentials, restricted hosts, unknown events', async () => {
    const cases: [unknown, number, RegExp][] = [
      [
        { ...input, url: 'http://93.184.215.14/in' },
        400,
        /^The webhook URL is refused\. Use an https:\/\/ address/,
      ],
      [{ ...input, url: 'https://user:pw@93.184.215.14/in' }, 400, /credentials/],
      [{ ...input, url: 'https://127.0.0.1/in' }, 400, /restricted host/],
      [{ ...input, url: 'https://localhost:8443/in' }, 400, /restricted host/],
      [{ ...input, url: 'https://169.254.169.254/latest' }, 400, /restricted host/],
      [{ ...input, url: 'https://[::ffff:10.0.0.1]/in' }, 400, /restricted host/],
      [{ ...input, url: 'not a url' }, 400, /not a URL/],
      [{ ...input, events: ['document.exploded'] }, 400, /events/],
      [{ ...input, events: [] }, 400, /events/],
      [{ url: input.url }, 400, /events is required/],
    ];
    for (const [body, status, message] of cases) {
      const res = await dash.post(base(), body);
      expect(res.status, JSON.stringify(body)).to.equal(status);
      expect(res.body.message, JSON.stringify(body)).to.match(message);
    }
  });

  it('enforces the plan limit (Free 2) without a race, and a delete frees a slot', async () => {
    const free = await createProjectFixture(apps.dashboard.services);
    const client = apps.dashboard.client.with({ cookie: free.cookie });
    const results = await Promise.all(Array.from({ length: 6 }, () => client.post(base(free), input)));
    expect(results.filter((r) => r.status === 201)).to.have.length(2);
    const refused = results.filter((r) => r.status === 403);
    expect(refused).to.have.length(4);
    expect(refused[0]!.body.code).to.equal('PLAN_LIMIT');
    expect(refused[0]!.body.message).to.equal("Plan limit reached: this project's plan allows 2 webhooks");
    const first = results.find((r) => r.status === 201)!.body.data.webhook.id;
    expect((await client.delete(`${base(free)}/${first}`)).status).to.equal(200);
    expect((await client.post(base(free), input)).status).to.equal(201);
    expect((await client.post(base(free), input)).status).to.equal(403);
  });

  it('answers 400 for a malformed project id, 401 without a session, 404 for another project or webhook', async () => {
    const created = await dash.post(base(), input);
    const id = created.body.data.webhook.id;
    const stranger = await createProjectFixture(apps.dashboard.services);
    const other = apps.dashboard.client.with({ cookie: stranger.cookie });
    const calls: [string, string, unknown?][] = [
      ['GET', ''],
      ['POST', '', input],
      ['GET', `/${id}`],
      ['PATCH', `/${id}`, { enabled: true }],
      ['DELETE', `/${id}`],
      ['POST', `/${id}/rotate-secret`],
      ['POST', `/${id}/test`],
      ['GET', `/${id}/deliveries`],
      ['POST', `/${id}/deliveries/65f1c2a4b7e8d9001234567b/redeliver`],
    ];
    for (const [method, path, body] of calls) {
      expect(
        (await other.request(method, `/api/projects/nope/webhooks${path}`, { body })).status,
        path,
      ).to.equal(400);
      expect(
        (await apps.dashboard.client.request(method, `${base()}${path}`, { body })).status,
        path,
      ).to.equal(401);
      expect((await other.request(method, `${base()}${path}`, { body })).status, path).to.equal(404);
    }
    for (const [method, path, body] of calls.slice(2)) {
      const missing = path.replace(id, '65f1c2a4b7e8d9001234567a');
      expect((await dash.request(method, `${base()}${missing}`, { body })).status, missing).to.equal(404);
    }
    expect((await dash.get(`${base()}/${id}/deliveries`, { query: { limit: 500 } })).status).to.equal(400);
  });
});
