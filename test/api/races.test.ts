// Limits under concurrency: parallel requests racing for the last collection slot, on the
// dashboard and with the secret key, and projects written before the slot counter existed.
import { expect } from 'chai';
import { ObjectId } from 'mongodb';
import { startTestApps } from '../helpers/app.js';
import { createProjectFixture, type ProjectFixture } from '../helpers/fixtures.js';

const PARALLEL = 8;
const field = [{ name: 'a', type: 'String' }];

describe('collection plan limit under concurrent creates', () => {
  let apps: Awaited<ReturnType<typeof startTestApps>>;

  before(async () => {
    apps = await startTestApps('races');
  });
  after(() => apps.close());

  /** A project allowed `limit` collections that already has `limit - 1` of them. */
  async function projectWithOneSlot(limit = 3): Promise<ProjectFixture> {
    const p = await createProjectFixture(apps.dashboard.services);
    await apps.dashboard.services.repos.projects.setLimits(p.project.id, { collectionsPerProject: limit });
    const dash = apps.dashboard.client.with({ cookie: p.cookie });
    for (let i = 1; i < limit; i++) {
      const res = await dash.post(`/api/projects/${p.project.id}/collections`, {
        name: `s${i}`,
        fields: field,
      });
      expect(res.status, res.text).to.equal(201);
    }
    return p;
  }

  const statuses = (responses: { status: number; body: { code?: string } }[]) => {
    const created = responses.filter((r) => r.status === 201);
    const refused = responses.filter((r) => r.status === 403);
    expect(refused.every((r) => r.body.code === 'PLAN_LIMIT')).to.equal(true);
    expect(created.length + refused.length).to.equal(responses.length);
    return { created: created.length, refused: refused.length };
  };

  it('lets exactly one of parallel dashboard creates take the last slot', async () => {
    const p = await projectWithOneSlot();
    const dash = apps.dashboard.client.with({ cookie: p.cookie });
    const url = `/api/projects/${p.project.id}/collections`;
    const responses = await Promise.all(
      Array.from({ length: PARALLEL }, (_, i) => dash.post(url, { name: `race${i}`, fields: field })),
    );
    expect(statuses(responses)).to.deep.equal({ created: 1, refused: PARALLEL - 1 });
    expect((await dash.get(url)).body.data.collections).to.have.length(3);
  });

  it('lets exactly one of parallel secret-key creates (/api/schemas) take the last slot', async () => {
    const p = await projectWithOneSlot();
    const secret = apps.public.client.with({ 'x-api-key': p.secretKey });
    const responses = await Promise.all(
      Array.from({ length: PARALLEL }, (_, i) =>
        secret.post('/api/schemas', { name: `race${i}`, fields: field }),
      ),
    );
    expect(statuses(responses)).to.deep.equal({ created: 1, refused: PARALLEL - 1 });
  });

  it('gives the slot back on a delete and on a create that fails', async () => {
    const p = await projectWithOneSlot(2);
    const secret = apps.public.client.with({ 'x-api-key': p.secretKey });
    // A duplicate name fails after the slot was claimed: the slot must come back.
    expect((await secret.post('/api/schemas', { name: 's1', fields: field })).status).to.equal(409);
    expect((await secret.post('/api/schemas', { name: 'x1', fields: field })).status).to.equal(201);
    expect((await secret.post('/api/schemas', { name: 'x2', fields: field })).status).to.equal(403);
    expect((await secret.delete('/api/schemas/x1')).status).to.equal(200);
    expect((await secret.post('/api/schemas', { name: 'x2', fields: field })).status).to.equal(201);
  });

  it('counts the existing collections of a project stored without the counter', async () => {
    const p = await projectWithOneSlot();
    await apps.dashboard.deps.db.platform
      .collection('projects')
      .updateOne({ _id: new ObjectId(p.project.id) }, { $unset: { collectionsCount: '' } });
    const secret = apps.public.client.with({ 'x-api-key': p.secretKey });
    const responses = await Promise.all(
      Array.from({ length: PARALLEL }, (_, i) =>
        secret.post('/api/schemas', { name: `old${i}`, fields: field }),
      ),
    );
    expect(statuses(responses)).to.deep.equal({ created: 1, refused: PARALLEL - 1 });
  });
});
