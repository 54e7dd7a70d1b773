import { expect } from 'chai';
import { startTestApps } from '../helpers/app.js';
import { contextFor, createProjectFixture, type ProjectFixture } from '../helpers/fixtures.js';
import type { ApiClient } from '../helpers/client.js';

describe('GET /api/schemas/:collectionName (public)', () => {
  let apps: Awaited<ReturnType<typeof startTestApps>>;
  let mine: ProjectFixture;
  let theirs: ProjectFixture;
  let client: ApiClient;

  const definition = {
    name: 'posts',
    mode: 'schema' as const,
    fields: [
      { name: 'title', type: 'String' as const, required: true },
      { name: 'userId', type: 'String' as const },
      {
        name: 'meta',
        type: 'Object' as const,
        fields: [{ name: 'views', type: 'Number' as const, default: 0 }],
      },
    ],
    rls: { enabled: true, mode: 'private' as const, ownerField: 'userId' },
  };

  before(async () => {
    apps = await startTestApps('schemas');
    const services = apps.dashboard.services;
    mine = await createProjectFixture(services, 'Mine');
    theirs = await createProjectFixture(services, 'Theirs');
    await services.collections.create(contextFor({ developer: mine.developer }), mine.project.id, definition);
    await services.collections.create(contextFor({ developer: theirs.developer }), theirs.project.id, {
      name: 'secrets',
      fields: [{ name: 'value', type: 'String' }],
    });
    client = apps.public.client;
  });
  after(() => apps.close());

  const expected = {
    name: 'posts',
    mode: 'schema',
    fields: [
      { name: 'title', type: 'String', required: true, unique: false },
      { name: 'userId', type: 'String', required: false, unique: false },
      {
        name: 'meta',
        type: 'Object',
        required: false,
        unique: false,
        fields: [{ name: 'views', type: 'Number', required: false, unique: false, default: 0 }],
      },
    ],
    rls: definition.rls,
    indexes: [],
  };

  it('answers the definition for a publishable key', async () => {
    const res = await client.with({ 'x-api-key': mine.publishableKey }).get('/api/schemas/posts');
    expect(res.status).to.equal(200);
    expect(res.body).to.deep.equal({ success: true, data: { collection: expected }, message: '' });
  });

  it('answers it for a secret key', async () => {
    const res = await client.with({ 'x-api-key': mine.secretKey }).get('/api/schemas/posts');
    expect(res.status).to.equal(200);
    expect(res.body.data.collection).to.deep.equal(expected);
  });

  it('answers it for a publishable key in the query', async () => {
    const res = await client.get('/api/schemas/posts', { query: { key: mine.publishableKey } });
    expect(res.status).to.equal(200);
    expect(res.body.data.collection).to.deep.equal(expected);
  });

  it('refuses a secret key in the query with 401', async () => {
    const res = await client.get('/api/schemas/posts', { query: { key: mine.secretKey } });
    expect(res.status).to.equal(401);
    expect(res.body.message).to.equal('Only a publishable key may be sent as a query parameter');
  });

  it('answers 401 without a key or with an unknown one', async () => {
    expect((await client.get('/api/schemas/posts')).status).to.equal(401);
    const res = await client.with({ 'x-api-key': 'pk_live_' + 'x'.repeat(43) }).get('/api/schemas/posts');
    expect(res.status).to.equal(401);
    expect(res.body.code).to.equal('INVALID_API_KEY');
  });

  it('answers 400 naming the parameter for an unknown query parameter or a name over 64 characters', async () => {
    const keyed = client.with({ 'x-api-key': mine.publishableKey });
    const extra = await keyed.get('/api/schemas/posts', { query: { limit: '5' } });
    expect(extra.status).to.equal(400);
    expect(extra.body.code).to.equal('VALIDATION_FAILED');
    expect(extra.body.message).to.include('limit');
    const long = await keyed.get(`/api/schemas/${'p'.repeat(65)}`);
    expect(long.status).to.equal(400);
    expect(long.body.code).to.equal('VALIDATION_FAILED');
  });

  it('answers 404 for a collection that is not registered, or registered in another project', async () => {
    for (const name of ['ghosts', 'secrets']) {
      const res = await client.with({ 'x-api-key': mine.publishableKey }).get(`/api/schemas/${name}`);
      expect(res.status).to.equal(404);
      expect(res.body).to.include({
        code: 'COLLECTION_NOT_FOUND',
        message: `Collection "${name}" not found`,
      });
    }
  });

  it('answers 403 to a browser origin the project does not allow', async () => {
    const services = apps.dashboard.services;
    await services.projects.update(mine.project, {
      settings: { allowedOrigins: ['https://app.example.com'] },
    });
    try {
      const key = client.with({ 'x-api-key': mine.publishableKey });
      const refused = await key.get('/api/schemas/posts', { headers: { origin: 'https://evil.example' } });
      expect(refused.status).to.equal(403);
      expect(refused.body.code).to.equal('ORIGIN_NOT_ALLOWED');
      const allowed = await key.get('/api/schemas/posts', { headers: { origin: 'https://app.example.com' } });
      expect(allowed.status).to.equal(200);
    } finally {
      await services.projects.update(mine.project, { settings: { allowedOrigins: [] } });
    }
  });
});
