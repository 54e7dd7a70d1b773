import { expect } from 'chai';
import { startTestApps } from '../helpers/app.js';
import { createOperator, createProjectFixture, type ProjectFixture } from '../helpers/fixtures.js';
import type { ApiClient } from '../helpers/client.js';
import { ttlSweepJob } from '../../src/jobs/ttl-sweep.js';

describe('Declared indexes (dashboard and secret key)', () => {
  let apps: Awaited<ReturnType<typeof startTestApps>>;
  let p: ProjectFixture;
  let dash: ApiClient;
  let secret: ApiClient;
  let publishable: ApiClient;
  const base = () => `/api/projects/${p.project.id}/collections`;
  /** The index names in the project database (what MongoDB really has). */
  const dbIndexes = async (collection: string) =>
    (await apps.public.deps.db.project(p.project.id).collection(collection).listIndexes().toArray()).map(
      (i) => String(i.name),
    );

  before(async () => {
    apps = await startTestApps('indexes');
    await createOperator(apps.dashboard.services);
    p = await createProjectFixture(apps.dashboard.services, 'Indexes');
    dash = apps.dashboard.client.with({ cookie: p.cookie });
    secret = apps.public.client.with({ 'x-api-key': p.secretKey });
    publishable = apps.public.client.with({ 'x-api-key': p.publishableKey });
    const posts = await dash.post(base(), {
      name: 'posts',
      mode: 'schema',
      fields: [
        { name: 'status', type: 'String' },
        { name: 'score', type: 'Number' },
        { name: 'email', type: 'String', unique: true },
        { name: 'expiresAt', type: 'Date' },
        { name: 'address', type: 'Object', fields: [{ name: 'city', type: 'String' }] },
      ],
    });
    expect(posts.status, posts.text).to.equal(201);
    const notes = await dash.post(base(), { name: 'notes', fields: [{ name: 'code', type: 'String' }] });
    expect(notes.status, notes.text).to.equal(201);
  });
  after(() => apps.close());

  it('creates, lists and drops an index from the dashboard, in the definition and the database', async () => {
    const created = await dash.post(`${base()}/posts/indexes`, {
      keys: [{ field: 'status' }, { field: 'score', direction: -1 }],
    });
    expect(created.status, created.text).to.equal(201);
    expect(created.body.data.index).to.deep.include({
      name: 'status_1_score_-1',
      keys: [
        { field: 'status', direction: 1 },
        { field: 'score', direction: -1 },
      ],
      unique: false,
      source: 'declared',
    });
    expect(await dbIndexes('posts')).to.include('i_status_1_score_-1');

    const listed = await dash.get(`${base()}/posts/indexes`);
    expect(listed.status).to.equal(200);
    expect(listed.body.data.limit).to.equal(5);
    expect(
      listed.body.data.indexes.map((i: { name: string; source: string }) => [i.name, i.source]),
    ).to.deep.equal([
      ['u_email', 'unique-field'],
      ['status_1_score_-1', 'declared'],
    ]);
    const def = await dash.get(`${base()}/posts`);
    expect(def.body.data.collection.indexes.map((i: { name: string }) => i.name)).to.deep.equal([
      'status_1_score_-1',
    ]);

    const dropped = await dash.delete(`${base()}/posts/indexes/status_1_score_-1`);
    expect(dropped.status, dropped.text).to.equal(200);
    expect(dropped.body.data).to.deep.equal({ name: 'status_1_score_-1' });
    expect(await dbIndexes('posts')).not.to.include('i_status_1_score_-1');
    expect((await dash.get(`${base()}/posts`)).body.data.collection.indexes).to.deep.equal([]);
  });

  it('does the same with the secret key, nested paths included, and refuses other keys', async () => {
    const created = await secret.post('/api/schemas/posts/indexes', {
      name: 'by_city',
      keys: [{ field: 'address.city' }],
    });
    expect(created.status, created.text).to.equal(201);
    expect(await dbIndexes('posts')).to.include('i_by_city');
    const listed = await secret.get('/api/schemas/posts/indexes');
    expect(listed.status).to.equal(200);
    expect(listed.body.data.indexes.map((i: { name: string }) => i.name)).to.include('by_city');
    // The definition carries it, for client code and for the project's OpenAPI document.
    const schema = await secret.get('/api/schemas/posts');
    expect(schema.body.data.collection.indexes[0]).to.deep.include({ name: 'by_city', unique: false });
    const document = await secret.get('/api/openapi.json');
    expect(document.status, document.text).to.equal(200);
    expect(document.body.components.schemas.posts['x-indexes']).to.deep.equal([
      { name: 'by_city', keys: [{ field: 'address.city', direction: 1 }], unique: false },
    ]);

    for (const res of [
      await publishable.get('/api/schemas/posts/indexes'),
      await publishable.post('/api/schemas/posts/indexes', { keys: [{ field: 'score' }] }),
      await publishable.delete('/api/schemas/posts/indexes/by_city'),
    ]) {
      expect(res.status).to.equal(403);
      expect(res.body.code).to.equal('SECRET_KEY_REQUIRED');
    }
    for (const res of [
      await apps.public.client.get('/api/schemas/posts/indexes'),
      await apps.public.client.post('/api/schemas/posts/indexes', { keys: [{ field: 'score' }] }),
      await apps.public.client.delete('/api/schemas/posts/indexes/by_city'),
    ]) {
      expect(res.status).to.equal(401);
    }
    const dropped = await secret.delete('/api/schemas/posts/indexes/by_city');
    expect(dropped.status, dropped.text).to.equal(200);
    expect(await dbIndexes('posts')).not.to.include('i_by_city');
  });

  it('answers 4xx naming the problem: unknown field, duplicate, implied index, TTL type, plan limit', async () => {
    const unknown = await dash.post(`${base()}/posts/indexes`, { keys: [{ field: 'nope' }] });
    expect(unknown.status).to.equal(400);
    expect(unknown.body.code).to.equal('UNKNOWN_FIELD');
    expect(unknown.body.message).to.include('nope is not a field of this collection');
    expect(unknown.body.details[0].path).to.equal('keys[0].field');

    const first = await dash.post(`${base()}/posts/indexes`, { name: 'a', keys: [{ field: 'score' }] });
    expect(first.status, first.text).to.equal(201);
    const sameKeys = await dash.post(`${base()}/posts/indexes`, { name: 'b', keys: [{ field: 'score' }] });
    expect(sameKeys.status).to.equal(409);
    expect(sameKeys.body.code).to.equal('INDEX_EXISTS');
    expect(sameKeys.body.message).to.include('"a"');
    const sameName = await dash.post(`${base()}/posts/indexes`, { name: 'a', keys: [{ field: 'status' }] });
    expect(sameName.status).to.equal(409);
    expect(sameName.body.message).to.include('already has an index named "a"');
    const unique = await dash.post(`${base()}/posts/indexes`, { keys: [{ field: 'email' }] });
    expect(unique.status).to.equal(409);
    expect(unique.body.message).to.include('u_email');

    const ttlOnString = await dash.post(`${base()}/posts/indexes`, {
      keys: [{ field: 'status' }],
      expireAfterSeconds: 60,
    });
    expect(ttlOnString.status).to.equal(400);
    expect(ttlOnString.body.code).to.equal('NOT_A_DATE_FIELD');
    const ttlFlexible = await dash.post(`${base()}/notes/indexes`, {
      keys: [{ field: 'when' }],
      expireAfterSeconds: 60,
    });
    expect(ttlFlexible.status).to.equal(400);
    expect(ttlFlexible.body.message).to.include('flexible collection');
    const id = await dash.post(`${base()}/posts/indexes`, { keys: [{ field: '_id' }] });
    expect(id.status).to.equal(400);

    const managed = await dash.delete(`${base()}/posts/indexes/u_email`);
    expect(managed.status).to.equal(409);
    expect(managed.body.code).to.equal('INDEX_MANAGED');
    const overlong = await secret.delete(`/api/schemas/posts/indexes/${'i'.repeat(65)}`);
    expect(overlong.status).to.equal(400);
    const missing = await secret.delete('/api/schemas/posts/indexes/none');
    expect(missing.status).to.equal(404);
    expect(missing.body.code).to.equal('INDEX_NOT_FOUND');
    const noCollection = await dash.get(`${base()}/nowhere/indexes`);
    expect(noCollection.status).to.equal(404);

    await apps.dashboard.services.repos.projects.setLimits(p.project.id, { indexesPerCollection: 2 });
    expect((await dash.post(`${base()}/posts/indexes`, { keys: [{ field: 'status' }] })).status).to.equal(
      201,
    );
    const over = await dash.post(`${base()}/posts/indexes`, {
      keys: [{ field: 'createdAt', direction: -1 }],
    });
    expect(over.status).to.equal(403);
    expect(over.body.code).to.equal('PLAN_LIMIT');
    expect(over.body.message).to.include('indexesPerCollection');
    expect(await dbIndexes('posts')).not.to.include('i_createdAt_-1');
    await apps.dashboard.services.repos.projects.setLimits(p.project.id, {});
    for (const name of ['a', 'status_1']) {
      expect((await dash.delete(`${base()}/posts/indexes/${name}`)).status).to.equal(200);
    }
  });

  it('answers every documented error of both APIs', async () => {
    const idx = `${base()}/posts/indexes`;
    const anon = apps.dashboard.client;
    // Dashboard: 400 (a project id that is not one), 401 (no session), 404 (no such collection or index).
    expect((await dash.get('/api/projects/nope/collections/posts/indexes')).status).to.equal(400);
    expect(
      (await dash.post('/api/projects/nope/collections/posts/indexes', { keys: [{ field: 'a' }] })).status,
    ).to.equal(400);
    expect((await dash.delete('/api/projects/nope/collections/posts/indexes/a')).status).to.equal(400);
    expect((await anon.get(idx)).status).to.equal(401);
    expect((await anon.post(idx, { keys: [{ field: 'score' }] })).status).to.equal(401);
    expect((await anon.delete(`${idx}/a`)).status).to.equal(401);
    expect((await dash.post(`${base()}/nowhere/indexes`, { keys: [{ field: 'a' }] })).status).to.equal(404);
    const noIndex = await dash.delete(`${idx}/none`);
    expect(noIndex.status).to.equal(404);
    expect(noIndex.body.code).to.equal('INDEX_NOT_FOUND');
    // Public: 400 (an empty key list), 404 (no such collection), 409 (an implied index).
    const empty = await secret.post('/api/schemas/posts/indexes', { keys: [] });
    expect(empty.status).to.equal(400);
    expect((await secret.get('/api/schemas/nowhere/indexes')).status).to.equal(404);
    expect((await secret.post('/api/schemas/nowhere/indexes', { keys: [{ field: 'a' }] })).status).to.equal(
      404,
    );
    const implied = await secret.delete('/api/schemas/posts/indexes/u_email');
    expect(implied.status).to.equal(409);
    expect(implied.body.code).to.equal('INDEX_MANAGED');
    const twice = await secret.post('/api/schemas/posts/indexes', {
      keys: [{ field: 'email', direction: 1 }],
    });
    expect(twice.status).to.equal(409);
  });

  it('builds the indexes a new collection declares in its body (infrastructure as code)', async () => {
    const created = await secret.post('/api/schemas', {
      name: 'events',
      mode: 'schema',
      fields: [
        { name: 'kind', type: 'String' },
        { name: 'at', type: 'Date' },
      ],
      indexes: [
        { keys: [{ field: 'kind' }, { field: 'at', direction: -1 }, { field: '_id' }] },
        { name: 'expiry', keys: [{ field: 'at' }], expireAfterSeconds: 86400 },
      ],
    });
    expect(created.status, created.text).to.equal(201);
    expect(created.body.data.collection.indexes.map((i: { name: string }) => i.name)).to.deep.equal([
      'kind_1_at_-1__id_1',
      'expiry',
    ]);
    expect(await dbIndexes('events')).to.include.members(['i_kind_1_at_-1__id_1', 'i_expiry']);

    const badKey = await secret.post('/api/schemas', {
      name: 'events2',
      mode: 'schema',
      fields: [{ name: 'kind', type: 'String' }],
      indexes: [{ keys: [{ field: 'nope' }] }],
    });
    expect(badKey.status).to.equal(400);
    expect(badKey.body.code).to.equal('UNKNOWN_FIELD');
    expect(badKey.body.details[0].path).to.equal('indexes[0].keys[0].field');
    const twice = await secret.post('/api/schemas', {
      name: 'events2',
      fields: [{ name: 'kind', type: 'String' }],
      indexes: [{ keys: [{ field: 'kind' }] }, { name: 'again', keys: [{ field: 'kind' }] }],
    });
    expect(twice.status).to.equal(400);
    const tooMany = await dash.post(base(), {
      name: 'events2',
      fields: [{ name: 'kind', type: 'String' }],
      indexes: ['a', 'b', 'c', 'd', 'e', 'f'].map((field) => ({ keys: [{ field }] })),
    });
    expect(tooMany.status).to.equal(403);
    expect(tooMany.body.code).to.equal('PLAN_LIMIT');
    expect((await secret.get('/api/schemas/events2')).status).to.equal(404);
  });

  it('holds the plan limit under concurrent creates; the losers leave no index behind', async () => {
    const made = await dash.post(base(), { name: 'race', fields: [{ name: 'a', type: 'String' }] });
    expect(made.status, made.text).to.equal(201);
    await apps.dashboard.services.repos.projects.setLimits(p.project.id, { indexesPerCollection: 2 });
    try {
      const answers = await Promise.all(
        ['a', 'b', 'c', 'd', 'e'].map((field) => dash.post(`${base()}/race/indexes`, { keys: [{ field }] })),
      );
      const statuses = answers.map((res) => res.status).sort();
      expect(statuses).to.deep.equal([201, 201, 403, 403, 403]);
      const declared = (await dash.get(`${base()}/race`)).body.data.collection.indexes;
      expect(declared).to.have.length(2);
      const inDb = (await dbIndexes('race')).filter((name) => name.startsWith('i_')).sort();
      expect(inDb).to.deep.equal(declared.map((i: { name: string }) => `i_${i.name}`).sort());
    } finally {
      await apps.dashboard.services.repos.projects.setLimits(p.project.id, {});
    }
  });

  it('reserves the plan slot before building: 12 parallel creates at a limit of 3 build 3 indexes, never more, and refuse 9', async () => {
    const fields = 'abcdefghijkl'.split('');
    const made = await dash.post(base(), {
      name: 'reserve',
      fields: fields.map((name) => ({ name, type: 'String' })),
    });
    expect(made.status, made.text).to.equal(201);
    // Documents make each build take a while, so an index built beyond the limit would be seen.
    const rows = Array.from({ length: 100 }, (_, i) =>
      Object.fromEntries(fields.map((f) => [f, `${f}${i}`])),
    );
    for (let i = 0; i < rows.length; i += 50) {
      expect(
        (await secret.post('/api/data/reserve/bulk', { documents: rows.slice(i, i + 50) })).status,
      ).to.equal(201);
    }
    await apps.dashboard.services.repos.projects.setLimits(p.project.id, { indexesPerCollection: 3 });
    let most = 0;
    let racing = true;
    const watch = (async () => {
      while (racing) {
        most = Math.max(most, (await dbIndexes('reserve')).filter((n) => n.startsWith('i_')).length);
      }
    })();
    try {
      const answers = await Promise.all(
        fields.map((field) => dash.post(`${base()}/reserve/indexes`, { keys: [{ field }] })),
      );
      racing = false;
      await watch;
      const refused = answers.filter((res) => res.status === 403);
      expect(answers.filter((res) => res.status === 201)).to.have.length(3);
      expect(refused).to.have.length(9);
      for (const res of refused) {
        expect(res.body.code).to.equal('PLAN_LIMIT');
        expect(res.body.message).to.equal(
          'Plan limit reached: a collection may have at most 3 declared indexes (indexesPerCollection)',
        );
      }
      const inDb = (await dbIndexes('reserve')).filter((name) => name.startsWith('i_'));
      expect(inDb).to.have.length(3);
      expect(most, 'indexes seen in the database during the race').to.be.at.most(3);
    } finally {
      racing = false;
      await apps.dashboard.services.repos.projects.setLimits(p.project.id, {});
    }
  });

  it('gives the slot back when the database refuses the build (duplicate values)', async () => {
    const made = await dash.post(base(), {
      name: 'giveback',
      fields: [
        { name: 'v', type: 'String' },
        { name: 'w', type: 'String' },
      ],
    });
    expect(made.status, made.text).to.equal(201);
    for (const v of ['x', 'x'])
      expect((await secret.post('/api/data/giveback', { v, w: v })).status).to.equal(201);
    await apps.dashboard.services.repos.projects.setLimits(p.project.id, { indexesPerCollection: 1 });
    try {
      const unique = await dash.post(`${base()}/giveback/indexes`, { keys: [{ field: 'v' }], unique: true });
      expect(unique.status, unique.text).to.equal(409);
      expect((await dash.get(`${base()}/giveback`)).body.data.collection.indexes ?? []).to.have.length(0);
      const plain = await dash.post(`${base()}/giveback/indexes`, { keys: [{ field: 'w' }] });
      expect(plain.status, 'the refused build left its slot free').to.equal(201);
    } finally {
      await apps.dashboard.services.repos.projects.setLimits(p.project.id, {});
    }
  });

  it('refuses a unique index over values active documents share, naming them, and changes nothing', async () => {
    for (const code of ['A1', 'A1', 'B2', 'B2', 'C3']) {
      expect((await secret.post('/api/data/notes', { code })).status).to.equal(201);
    }
    const refused = await dash.post(`${base()}/notes/indexes`, { keys: [{ field: 'code' }], unique: true });
    expect(refused.status).to.equal(409);
    expect(refused.body.code).to.equal('DUPLICATE_VALUES');
    expect(refused.body.message).to.include('"A1"').and.include('"B2"');
    expect(refused.body.details).to.have.length(2);
    expect(refused.body.details[0].message).to.match(/is used by 2 documents/);
    expect(await dbIndexes('notes')).not.to.include('i_code_1');
    expect((await dash.get(`${base()}/notes`)).body.data.collection.indexes).to.deep.equal([]);

    // Once the duplicates are in the trash, they hold their values no more.
    for (const code of ['A1', 'B2']) {
      const { body } = await secret.get(`/api/data/notes?code=${code}&limit=1`);
      expect((await secret.delete(`/api/data/notes/${body.data[0]._id}`)).status).to.equal(200);
    }
    const accepted = await secret.post('/api/schemas/notes/indexes', {
      keys: [{ field: 'code' }],
      unique: true,
    });
    expect(accepted.status, accepted.text).to.equal(201);
    const clash = await secret.post('/api/data/notes', { code: 'C3' });
    expect(clash.status).to.equal(409);
    expect(clash.body.message).to.equal('Duplicate value for "code": it must be unique in this collection');
  });

  it('a TTL index expires documents, trashed or not, and gives their bytes back', async () => {
    const usage = async () => (await apps.public.services.repos.projects.usage(p.project.id)).databaseUsed;
    const created = await secret.post('/api/schemas/posts/indexes', {
      keys: [{ field: 'expiresAt' }],
      expireAfterSeconds: 60,
    });
    expect(created.status, created.text).to.equal(201);
    expect(created.body.data.index.expireAfterSeconds).to.equal(60);

    const hour = 3600_000;
    const kept = await secret.post('/api/data/posts', {
      status: 'kept',
      expiresAt: new Date(Date.now() + hour),
    });
    expect(kept.status, kept.text).to.equal(201);
    const before = await usage();
    const old = await secret.post('/api/data/posts', {
      status: 'old',
      expiresAt: new Date(Date.now() - hour),
    });
    const trashed = await secret.post('/api/data/posts', {
      status: 'gone',
      expiresAt: new Date(Date.now() - hour),
    });
    expect((await secret.delete(`/api/data/posts/${trashed.body.data._id}`)).status).to.equal(200);
    expect(await usage()).to.be.greaterThan(before);

    const report = await ttlSweepJob(apps.public.deps, apps.public.services).sweep();
    expect(report).to.include({ removed: 2 });
    expect(await usage()).to.equal(before);
    expect((await secret.get(`/api/data/posts/${old.body.data._id}`)).status).to.equal(404);
    expect((await secret.get(`/api/data/posts/${kept.body.data._id}`)).status).to.equal(200);
    const again = await ttlSweepJob(apps.public.deps, apps.public.services).sweep();
    expect(again.removed).to.equal(0);
  });
});
