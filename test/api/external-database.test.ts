// A project's own database (SERVICE-SPEC "External database connection"): saved, replaced and
// removed on the dashboard after a check from both roles; once saved, the project's data, indexes,
// aggregations and populate go to it. The "own database" is a second mongo-java-server on
// loopback that this suite starts, so the apps run with ALLOW_PRIVATE_HOSTS (see
// external-database-hosts.test.ts for the same server refused without it).
import { expect } from 'chai';
import { MongoClient } from 'mongodb';
import { startTestApp, startTestApps, type TestApp } from '../helpers/app.js';
import { createProjectFixture, createDeveloper, type ProjectFixture } from '../helpers/fixtures.js';
import type { ApiClient } from '../helpers/client.js';
import { freePort, startMongoServer, type MongoServer } from '../helpers/mongo-server.js';
import { testEnv } from '../helpers/env.js';
import { MESSAGES } from './external-database-shared.js';
import { externalPools } from '../../src/db/external-databases.js';
import { hostResolver } from '../../src/lib/restricted-hosts.js';
import { memberRule } from '../../src/services/external-db/resolver.js';

describe('external database connection', function () {
  this.timeout(60_000);
  let ext: MongoServer;
  let extClient: MongoClient;
  let managed: MongoClient;
  let apps: Awaited<ReturnType<typeof startTestApps>>;
  let fx: ProjectFixture;
  let dash: ApiClient;
  let api: ApiClient;
  const path = () => `/api/projects/${fx.project.id}/database`;
  const overrides = {
    ALLOW_PRIVATE_HOSTS: 'true',
    DASHBOARD_EGRESS_IPS: '203.0.113.10',
    PUBLIC_EGRESS_IPS: '203.0.113.20,203.0.113.21',
  };

  before(async () => {
    [ext, apps] = await Promise.all([startMongoServer(), startTestApps('extdb', overrides)]);
    extClient = new MongoClient(`mongodb://127.0.0.1:${ext.port}/?directConnection=true`);
    managed = new MongoClient(testEnv.MONGODB_URI!);
    fx = await createProjectFixture(apps.dashboard.services);
    dash = apps.dashboard.client.with({ cookie: fx.cookie });
    api = apps.public.client.with({ 'x-api-key': fx.secretKey });
    const created = await dash.post(`/api/projects/${fx.project.id}/collections`, {
      name: 'posts',
      mode: 'flexible',
      fields: [
        { name: 'title', type: 'String' },
        { name: 'slug', type: 'String', unique: true },
      ],
    });
    expect(created.status).to.equal(201);
  });
  after(async () => {
    await apps?.close();
    await extClient?.close();
    await managed?.close();
    await ext?.stop();
  });

  const managedPosts = () => managed.db(`p_${fx.project.id}`).collection('posts');

  it('starts on the managed database and shows both egress addresses', async () => {
    const res = await dash.get(path());
    expect(res.status).to.equal(200);
    expect(res.body.data).to.deep.equal({
      connected: false,
      host: null,
      database: null,
      verifiedAt: null,
      egressIps: { dashboard: ['203.0.113.10'], public: ['203.0.113.20', '203.0.113.21'] },
    });
  });

  it('saves a reachable database after checking it from both roles, and never returns the string', async () => {
    const uri = `${ext.uri('shop')}?appName=shop-app`;
    const res = await dash.put(path(), { uri });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body.data).to.include({ connected: true, host: `127.0.0.1:${ext.port}`, database: 'shop' });
    expect(Date.parse(res.body.data.verifiedAt)).to.be.closeTo(Date.now(), 15_000);
    expect(res.text).not.to.include('mongodb://');
    expect(res.text).not.to.include('shop-app');
    const again = await dash.get(path());
    expect(again.body.data).to.deep.equal(res.body.data);
    // Stored sealed: nothing of the string is readable in the platform database.
    const stored = await apps.dashboard.deps.db.platform.collection('external_databases').find().toArray();
    expect(stored).to.have.length(1);
    const raw = JSON.stringify(stored);
    expect(raw).not.to.include('mongodb://');
    expect(raw).not.to.include('shop-app');
    expect(stored[0]).to.have.property('keyId').that.is.a('string');
    // The unique index of the registered collection exists in the new database too.
    const indexes = await extClient.db('shop').collection('posts').listIndexes().toArray();
    expect(indexes.map((i) => i.name)).to.include('u_slug');
  });

  it('sends data written after the switch to the external server, not the managed one', async () => {
    const created = await api.post('/api/data/posts', { title: 'Hello', slug: 'hello' });
    expect(created.status).to.equal(201);
    const id = created.body.data._id;
    const inExternal = await extClient.db('shop').collection('posts').findOne({ slug: 'hello' });
    expect(inExternal?._id.toHexString()).to.equal(id);
    expect(await managedPosts().countDocuments({ slug: 'hello' })).to.equal(0);
    // The unique index there is enforced.
    const duplicate = await api.post('/api/data/posts', { title: 'Again', slug: 'hello' });
    expect(duplicate.status).to.equal(409);
    // Reads, aggregations and populate see the external documents.
    await extClient
      .db('shop')
      .collection('posts')
      .insertOne({ title: 'Written elsewhere', slug: 'elsewhere', isDeleted: false, createdAt: new Date() });
    const list = await api.get('/api/data/posts', { query: { sort: 'slug' } });
    expect(list.body.data.map((d: { slug: string }) => d.slug)).to.deep.equal(['elsewhere', 'hello']);
    const counted = await api.post('/api/data/posts/aggregate', {
      pipeline: [{ $group: { _id: null, n: { $sum: 1 } } }],
    });
    expect(counted.status).to.equal(200);
    expect(counted.body.data[0].n).to.equal(2);
  });

  it('resolves the project database from the project cache: no platform read per request', async () => {
    // Taken away behind the service's back (no invalidation): requests keep going to the cached
    // setting, so they did not read it. A change through the API is seen at once (see below).
    const settings = apps.public.deps.db.platform.collection('external_databases');
    const saved = await settings.findOne({});
    await settings.deleteMany({});
    try {
      const created = await api.post('/api/data/posts', { title: 'Cached', slug: 'cached' });
      expect(created.status).to.equal(201);
      expect(await extClient.db('shop').collection('posts').countDocuments({ slug: 'cached' })).to.equal(1);
      expect(await managedPosts().countDocuments({ slug: 'cached' })).to.equal(0);
    } finally {
      await settings.insertOne(saved!);
    }
  });

  it('resolves populate and creates new collections with their indexes in the external database', async () => {
    const comments = await dash.post(`/api/projects/${fx.project.id}/collections`, {
      name: 'comments',
      mode: 'schema',
      fields: [
        { name: 'text', type: 'String', unique: true },
        { name: 'post', type: 'Ref', ref: 'posts' },
      ],
    });
    expect(comments.status).to.equal(201);
    const indexes = await extClient.db('shop').collection('comments').listIndexes().toArray();
    expect(indexes.map((i) => i.name)).to.include('u_text');
    const post = await api.get('/api/data/posts', { query: { slug: 'hello' } });
    const comment = await api.post('/api/data/comments', { text: 'Nice', post: post.body.data[0]._id });
    expect(comment.status).to.equal(201);
    const populated = await api.get('/api/data/comments', { query: { populate: 'post' } });
    expect(populated.body.data[0].post).to.include({ slug: 'hello' });
    expect(await managed.db(`p_${fx.project.id}`).collection('comments').countDocuments()).to.equal(0);
  });

  it('builds declared indexes in the external database, and again in the next one it moves to', async () => {
    const created = await api.post('/api/schemas/posts/indexes', { keys: [{ field: 'title' }] });
    expect(created.status, created.text).to.equal(201);
    const names = async (db: string) =>
      (await extClient.db(db).collection('posts').listIndexes().toArray()).map((i) => i.name);
    expect(await names('shop')).to.include('i_title_1');
    const managedNames = (await managedPosts().listIndexes().toArray()).map((i) => i.name);
    expect(managedNames).not.to.include('i_title_1');
    // The definition holds it, so the database a project moves to gets it built (checked below).
    const def = await apps.dashboard.services.repos.collections.findByName(fx.project.id, 'posts');
    expect(def?.indexes?.map((i) => i.name)).to.deep.equal(['title_1']);
  });

  it('does not apply the managed database quota (databaseUsed) to the external database', async () => {
    await apps.dashboard.services.repos.projects.setLimits(fx.project.id, { databaseBytes: 10 });
    const before = await apps.dashboard.services.repos.projects.usage(fx.project.id);
    const res = await api.post('/api/data/posts', { title: 'x'.repeat(500), slug: 'big' });
    expect(res.status).to.equal(201);
    const after = await apps.dashboard.services.repos.projects.usage(fx.project.id);
    expect(after.databaseUsed).to.equal(before.databaseUsed);
    await apps.dashboard.services.repos.projects.setLimits(fx.project.id, {});
  });

  it('refuses to switch to a database whose documents break a unique field (409, nothing stored)', async () => {
    await extClient
      .db('dup')
      .collection('posts')
      .insertMany([{ slug: 'same' }, { slug: 'same' }]);
    const res = await dash.put(path(), { uri: ext.uri('dup') });
    expect(res.status).to.equal(409);
    expect(res.body.code).to.equal('DUPLICATE_VALUES');
    expect((await dash.get(path())).body.data.database).to.equal('shop');
  });

  it('replaces the connection string: traffic moves to the new database', async () => {
    const res = await dash.put(path(), { uri: ext.uri('shop2') });
    expect(res.status).to.equal(200);
    expect(res.body.data.database).to.equal('shop2');
    const created = await api.post('/api/data/posts', { title: 'Second', slug: 'second' });
    expect(created.status).to.equal(201);
    expect(await extClient.db('shop2').collection('posts').countDocuments({ slug: 'second' })).to.equal(1);
    expect(await extClient.db('shop').collection('posts').countDocuments({ slug: 'second' })).to.equal(0);
    // The declared index came along (built when the project moved).
    const indexes = await extClient.db('shop2').collection('posts').listIndexes().toArray();
    expect(indexes.map((i) => i.name)).to.include('i_title_1');
  });

  it('removes the setting: traffic goes back to the managed database', async () => {
    const res = await dash.delete(path());
    expect(res.status).to.equal(200);
    expect(res.body.data).to.include({ connected: false, host: null, database: null, verifiedAt: null });
    const created = await api.post('/api/data/posts', { title: 'Back', slug: 'back' });
    expect(created.status).to.equal(201);
    expect(await managedPosts().countDocuments({ slug: 'back' })).to.equal(1);
    expect(await extClient.db('shop2').collection('posts').countDocuments({ slug: 'back' })).to.equal(0);
    const list = await api.get('/api/data/posts');
    expect(list.body.data.map((d: { slug: string }) => d.slug)).to.deep.equal(['back']);
    expect(await apps.dashboard.deps.db.platform.collection('external_databases').countDocuments()).to.equal(
      0,
    );
    expect((await dash.delete(path())).status).to.equal(200);
  });

  it('gives "could not connect" for a host that does not answer, within the cap', async () => {
    const started = Date.now();
    const res = await dash.put(path(), { uri: `mongodb://127.0.0.1:${await freePort()}/x` });
    expect(res.status).to.equal(400);
    expect(res.body.message).to.equal(MESSAGES.connect);
    expect(Date.now() - started).to.be.below(9800);
    const blackhole = Date.now();
    // No route answers this address: the 5-second server selection runs out, still inside the cap.
    const slow = await dash.put(path(), { uri: 'mongodb://10.255.255.1:27017/x' });
    expect(slow.status).to.equal(400);
    expect(slow.body.message).to.equal(MESSAGES.connect);
    expect(Date.now() - blackhole).to.be.below(9800);
    expect((await dash.get(path())).body.data.connected).to.equal(false);
  });

  it('refuses a URI that is not a standard connection string with the restricted message', async () => {
    for (const uri of [
      'https://example.com',
      'mongodb://',
      'mongodb://db.example.com:notaport/x',
      'mongodb://db.example.com/x?proxyHost=203.0.113.5',
      'mongodb://db.example.com/x?tlsCAFile=/etc/passwd',
      'mongodb://db.example.com/x?authMechanism=MONGODB-AWS',
      'mongodb://%2Ftmp%2Fmongodb-27017.sock/x',
      'mongodb://db.example.com/bad$name',
    ]) {
      const res = await dash.put(path(), { uri });
      expect(res.status, uri).to.equal(400);
      expect(res.body.message, uri).to.equal(MESSAGES.restricted);
    }
    const missing = await dash.put(path(), {});
    expect(missing.status).to.equal(400);
  });

  it('is for project admins; 400 for an invalid project id, 401 without a session, 404 otherwise', async () => {
    const other = await createDeveloper(apps.dashboard.services);
    const stranger = apps.dashboard.client.with({ cookie: other.cookie });
    for (const [method, body] of [
      ['GET', undefined],
      ['PUT', { uri: ext.uri('x') }],
      ['DELETE', undefined],
    ] as const) {
      expect((await stranger.request(method, path(), { body })).status).to.equal(404);
      expect((await apps.dashboard.client.request(method, path(), { body })).status).to.equal(401);
      expect((await dash.request(method, '/api/projects/nope/database', { body })).status).to.equal(400);
    }
  });

  it('is refused (403) when the plan does not include an external database', async () => {
    await apps.dashboard.services.repos.projects.setLimits(fx.project.id, { externalDatabase: false });
    const res = await dash.put(path(), { uri: ext.uri('shop') });
    expect(res.status).to.equal(403);
    await apps.dashboard.services.repos.projects.setLimits(fx.project.id, {});
  });

  describe('connection pools', () => {
    const target = (database: string) => async () => ({
      uri: `mongodb://127.0.0.1:${ext.port}/`,
      database,
      lookup: hostResolver().lookup,
      members: memberRule({ hosts: hostResolver(), allowPrivate: true }),
    });

    it('keeps at most the configured number of pools open, closing the least recently used', async () => {
      const pools = externalPools({
        maxPools: 2,
        idleMs: 600_000,
        poolSize: 2,
        timeoutMs: 5000,
        operationTimeoutMs: 5000,
      });
      try {
        const first = await pools.db('p1', 'v1', target('pool1'));
        await first.collection('c').insertOne({ n: 1 });
        await pools.db('p2', 'v1', target('pool2'));
        await pools.db('p1', 'v1', target('pool1')); // p1 used again: p2 is now the oldest
        await pools.db('p3', 'v1', target('pool3'));
        expect(pools.size()).to.equal(2);
        // p1 kept its pool (same client); p2's was closed and opens anew on next use.
        expect(await pools.db('p1', 'v1', target('pool1'))).to.equal(first);
        let opened = false;
        await pools.db('p2', 'v1', async () => {
          opened = true;
          return target('pool2')();
        });
        expect(opened).to.equal(true);
        // A changed setting (another fingerprint) replaces the pool.
        expect(await pools.db('p1', 'v2', target('pool1'))).not.to.equal(first);
      } finally {
        await pools.closeAll();
      }
    });

    it('closes pools left idle', async () => {
      const pools = externalPools({
        maxPools: 10,
        idleMs: 1000,
        poolSize: 1,
        timeoutMs: 5000,
        operationTimeoutMs: 5000,
      });
      try {
        await (await pools.db('p1', 'v1', target('idle'))).command({ ping: 1 });
        expect(pools.size()).to.equal(1);
        await new Promise((resolve) => setTimeout(resolve, 2500));
        expect(pools.size()).to.equal(0);
      } finally {
        await pools.closeAll();
      }
    });
  });

  describe('the public role check', () => {
    let lonely: TestApp;
    before(async () => {
      // A dashboard whose public role does not answer.
      lonely = await startTestApp('dashboard', 'extdb_lonely', {
        ...overrides,
        PUBLIC_INTERNAL_URL: `http://127.0.0.1:${await freePort()}`,
      });
    });
    after(async () => lonely?.close());

    it('gives "could not be completed" when the public role is down, and stores nothing', async () => {
      const owner = await createProjectFixture(lonely.services);
      const res = await lonely.client
        .with({ cookie: owner.cookie })
        .put(`/api/projects/${owner.project.id}/database`, { uri: ext.uri('shop') });
      expect(res.status).to.equal(400);
      expect(res.body.message).to.equal(MESSAGES.publicIncomplete);
      expect(await lonely.deps.db.platform.collection('external_databases').countDocuments()).to.equal(0);
    });

    it('answers the internal endpoint only with the shared secret', async () => {
      const internal = '/api/internal/external-database/verify';
      const good = apps.public.client.with({ 'x-internal-secret': testEnv.INTERNAL_API_SECRET! });
      const ok = await good.post(internal, { uri: ext.uri('shop') });
      expect(ok.status).to.equal(200);
      expect(ok.body.data).to.deep.equal({ ok: true });
      const refused = await good.post(internal, { uri: `mongodb://127.0.0.1:${await freePort()}/x` });
      expect(refused.body.data).to.include({ ok: false, kind: 'network' });
      expect((await good.post(internal, {})).status).to.equal(400);
      expect((await apps.public.client.post(internal, { uri: ext.uri('shop') })).status).to.equal(401);
      const wrong = apps.public.client.with({ 'x-internal-secret': 'x'.repeat(40) });
      expect((await wrong.post(internal, { uri: ext.uri('shop') })).status).to.equal(401);
    });
  });
});
