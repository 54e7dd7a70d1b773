import { expect } from 'chai';
import { startTestApps } from '../helpers/app.js';
import {
  contextFor,
  createOperator,
  createProjectFixture,
  type ProjectFixture,
} from '../helpers/fixtures.js';
import type { ApiClient } from '../helpers/client.js';

describe('/api/schemas with the secret key (public)', () => {
  let apps: Awaited<ReturnType<typeof startTestApps>>;
  let p: ProjectFixture;
  let secret: ApiClient;
  let publishable: ApiClient;

  const orders = {
    name: 'orders',
    mode: 'schema' as const,
    fields: [
      { name: 'total', type: 'Number' as const, required: true },
      { name: 'code', type: 'String' as const },
      { name: 'userId', type: 'String' as const },
    ],
    rls: { enabled: true, mode: 'private' as const, ownerField: 'userId' },
  };

  before(async () => {
    apps = await startTestApps('schemas_key');
    await createOperator(apps.dashboard.services);
    p = await createProjectFixture(apps.dashboard.services, 'Infra');
    secret = apps.public.client.with({ 'x-api-key': p.secretKey });
    publishable = apps.public.client.with({ 'x-api-key': p.publishableKey });
  });
  after(() => apps.close());

  it('creates a collection with its indexes, seen by the dashboard and the data API', async () => {
    const res = await secret.post('/api/schemas', orders);
    expect(res.status, res.text).to.equal(201);
    expect(res.body.data.collection).to.deep.include({ name: 'orders', mode: 'schema', rls: orders.rls });
    const dash = await apps.dashboard.client
      .with({ cookie: p.cookie })
      .get(`/api/projects/${p.project.id}/collections/orders`);
    expect(dash.status).to.equal(200);
    const written = await secret.post('/api/data/orders', { total: 3, userId: 'u1' });
    expect(written.status, written.text).to.equal(201);
    const refused = await secret.post('/api/data/orders', { total: 'three' });
    expect(refused.status).to.equal(400);
  });

  it('applies the dashboard rules: 400 on an invalid definition, 409 on a taken name', async () => {
    const empty = await secret.post('/api/schemas', { name: 'empty', mode: 'schema', fields: [] });
    expect(empty.status).to.equal(400);
    expect(empty.body.message).to.equal('At least one field is required');
    const badRef = await secret.post('/api/schemas', {
      name: 'lines',
      fields: [{ name: 'order', type: 'Ref', ref: 'nowhere' }],
    });
    expect(badRef.status).to.equal(400);
    expect(badRef.body.message).to.include('"nowhere"');
    const taken = await secret.post('/api/schemas', orders);
    expect(taken.status).to.equal(409);
    expect(taken.body.code).to.equal('COLLECTION_EXISTS');
  });

  it('refuses the publishable key with 403 and a missing key with 401, changing nothing', async () => {
    for (const res of [
      await publishable.post('/api/schemas', { name: 'sneaky', fields: [{ name: 'a', type: 'String' }] }),
      await publishable.put('/api/schemas/orders', { fields: [{ name: 'a', type: 'String' }] }),
      await publishable.delete('/api/schemas/orders'),
    ]) {
      expect(res.status).to.equal(403);
      expect(res.body.code).to.equal('SECRET_KEY_REQUIRED');
    }
    for (const res of [
      await apps.public.client.post('/api/schemas', { name: 'x', fields: [{ name: 'a', type: 'String' }] }),
      await apps.public.client.put('/api/schemas/orders', { fields: [{ name: 'a', type: 'String' }] }),
      await apps.public.client.delete('/api/schemas/orders'),
    ]) {
      expect(res.status).to.equal(401);
    }
    const names = (
      await apps.public.services.collections.list(contextFor({ developer: p.developer }), p.project.id)
    ).map((c) => c.name);
    expect(names).to.deep.equal(['orders']);
    expect((await secret.get('/api/schemas/orders')).body.data.collection.fields).to.have.length(3);
  });

  it('updates a definition: unique on repeated values is a 409 that changes nothing', async () => {
    await secret.post('/api/data/orders', { total: 1, code: 'A', userId: 'u1' });
    await secret.post('/api/data/orders', { total: 2, code: 'A', userId: 'u2' });
    const unique = await secret.put('/api/schemas/orders', {
      fields: [
        ...orders.fields.filter((f) => f.name !== 'code'),
        { name: 'code', type: 'String', unique: true },
      ],
    });
    expect(unique.status).to.equal(409);
    expect(unique.body.code).to.equal('DUPLICATE_VALUES');
    const renamed = await secret.put('/api/schemas/orders', { name: 'other', fields: orders.fields });
    expect(renamed.status).to.equal(400);
    expect(renamed.body.code).to.equal('NAME_IMMUTABLE');
    const missing = await secret.put('/api/schemas/ghosts', { fields: orders.fields });
    expect(missing.status).to.equal(404);
    const ok = await secret.put('/api/schemas/orders', {
      fields: [...orders.fields, { name: 'note', type: 'String' }],
    });
    expect(ok.status, ok.text).to.equal(200);
    expect(ok.body.data.collection.fields.map((f: { name: string }) => f.name)).to.include('note');
    expect(ok.body.data.collection.rls).to.deep.equal(orders.rls);
    expect((await secret.post('/api/data/orders', { total: 4, note: 'n' })).status).to.equal(201);
  });

  it('holds the plan limit of collections per project (403 PLAN_LIMIT)', async () => {
    const created: string[] = [];
    let res;
    for (let i = 0; i < 20; i++) {
      res = await secret.post('/api/schemas', { name: `c${i}`, fields: [{ name: 'a', type: 'String' }] });
      if (res.status !== 201) break;
      created.push(`c${i}`);
    }
    expect(res!.status).to.equal(403);
    expect(res!.body.code).to.equal('PLAN_LIMIT');
    expect(created).to.have.length(9); // 10 on the free plan, orders included
    for (const name of created) expect((await secret.delete(`/api/schemas/${name}`)).status).to.equal(200);
  });

  it('deletes a collection with its documents; a referenced one is a 409', async () => {
    const lines = await secret.post('/api/schemas', {
      name: 'lines',
      fields: [{ name: 'order', type: 'Ref', ref: 'orders' }],
    });
    expect(lines.status).to.equal(201);
    const referenced = await secret.delete('/api/schemas/orders');
    expect(referenced.status).to.equal(409);
    expect(referenced.body.code).to.equal('COLLECTION_REFERENCED');
    expect((await secret.delete('/api/schemas/lines')).status).to.equal(200);
    const gone = await secret.delete('/api/schemas/orders');
    expect(gone.status).to.equal(200);
    expect(gone.body.data).to.deep.equal({ name: 'orders' });
    expect((await secret.get('/api/schemas/orders')).status).to.equal(404);
    expect((await secret.delete('/api/schemas/orders')).status).to.equal(404);
    const docs = await apps.public.deps.db.project(p.project.id).collection('orders').countDocuments();
    expect(docs).to.equal(0);
  });
});
