import { expect } from 'chai';
import { startTestApp, type TestApp } from '../helpers/app.js';
import {
  createDeveloper,
  createProjectFixture,
  POST_FIELDS,
  type ProjectFixture,
} from '../helpers/fixtures.js';
import type { ApiClient } from '../helpers/client.js';

const posts = {
  name: 'posts',
  mode: 'schema',
  fields: [...POST_FIELDS, { name: 'userId', type: 'String' }],
  rls: { enabled: true, mode: 'public-read', ownerField: 'userId' },
};

describe('collections (dashboard)', () => {
  let app: TestApp;
  let owner: ProjectFixture;
  let operatorCookie: string;
  let client: ApiClient;
  let base: string;
  let n = 0;
  /** A fresh collection name, so tests do not depend on each other. */
  const fresh = (prefix = 'c') => `${prefix}${++n}`;

  const indexNames = async (name: string) => {
    const indexes = await app.deps.db.project(owner.project.id).collection(name).listIndexes().toArray();
    return indexes.map((i) => i.name as string).sort();
  };
  const create = async (body: Record<string, unknown>) => {
    const res = await client.post(base, body);
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    return res.body.data.collection;
  };

  before(async () => {
    app = await startTestApp('dashboard', 'collections');
    operatorCookie = (await createDeveloper(app.services)).cookie; // the first account: the operator
    owner = await createProjectFixture(app.services);
    client = app.client.with({ cookie: owner.cookie });
    base = `/api/projects/${owner.project.id}/collections`;
    // Room for every test of this suite; the plan limit is tested on a project of its own.
    await app.services.repos.projects.setLimits(owner.project.id, { collectionsPerProject: 200 });
  });
  after(() => app.close());

  describe('the lifecycle', () => {
    it('creates, lists, gets, updates and deletes a collection', async () => {
      const created = await client.post(base, posts);
      expect(created.status).to.equal(201);
      expect(created.body.message).to.equal('Collection created');
      const def = created.body.data.collection;
      expect(def).to.include({ name: 'posts', mode: 'schema', projectId: owner.project.id });
      expect(def.fields[0]).to.deep.equal({ name: 'title', type: 'String', required: true, unique: false });
      expect(def.rls).to.deep.equal(posts.rls);
      expect(await indexNames('posts')).to.deep.equal(['_id_', 'o_userId', 'u_slug']);

      const list = await client.get(base);
      expect(list.status).to.equal(200);
      expect(list.body.data.collections.map((c: { name: string }) => c.name)).to.include('posts');

      const got = await client.get(`${base}/posts`);
      expect(got.status).to.equal(200);
      expect(got.body.data.collection).to.deep.equal(def);

      const updated = await client.put(`${base}/posts`, {
        fields: [...posts.fields.filter((f) => f.name !== 'slug'), { name: 'body', type: 'String' }],
        rls: { enabled: false },
      });
      expect(updated.status).to.equal(200);
      expect(updated.body.message).to.equal('Updated');
      expect(updated.body.data.collection.mode).to.equal('schema');
      expect(updated.body.data.collection.rls).to.deep.equal({ ...posts.rls, enabled: false });
      expect(updated.body.data.collection.fields.map((f: { name: string }) => f.name)).to.deep.equal([
        'title',
        'views',
        'userId',
        'body',
      ]);
      expect(await indexNames('posts')).to.deep.equal(['_id_']);

      await app.deps.db.project(owner.project.id).collection('posts').insertOne({ title: 'x' });
      const deleted = await client.delete(`${base}/posts`);
      expect(deleted.status).to.equal(200);
      expect(deleted.body.data).to.deep.equal({ name: 'posts' });
      expect((await client.get(`${base}/posts`)).status).to.equal(404);
      const left = await app.deps.db.project(owner.project.id).listCollections({ name: 'posts' }).toArray();
      expect(left).to.have.length(0);
    });

    it('creates the MongoDB collection at once, in flexible mode by default', async () => {
      const name = fresh();
      const def = await create({ name, fields: [{ name: 'title', type: 'String' }] });
      expect(def.mode).to.equal('flexible');
      expect(def.rls).to.deep.equal({ enabled: false, mode: 'public-read', ownerField: 'userId' });
      const found = await app.deps.db.project(owner.project.id).listCollections({ name }).toArray();
      expect(found).to.have.length(1);
    });

    it('changes the mode later', async () => {
      const name = fresh();
      await create({ name, mode: 'flexible', fields: [{ name: 'title', type: 'String' }] });
      const res = await client.put(`${base}/${name}`, {
        mode: 'schema',
        fields: [{ name: 'title', type: 'String' }],
      });
      expect(res.body.data.collection.mode).to.equal('schema');
    });
  });

  describe('unique fields', () => {
    it('are enforced by a real unique index; documents without the field do not collide', async () => {
      const name = fresh('u');
      await create({
        name,
        fields: [
          { name: 'sku', type: 'String', unique: true },
          { name: 'n', type: 'Number' },
        ],
      });
      const coll = app.deps.db.project(owner.project.id).collection(name);
      await coll.insertOne({ sku: 'A' });
      await coll.insertMany([{ n: 1 }, { n: 2 }]);
      let code: unknown;
      try {
        await coll.insertOne({ sku: 'A' });
      } catch (err) {
        code = (err as { code?: number }).code;
      }
      expect(code).to.equal(11000);
    });

    it('cannot be turned on where values repeat: 409 DUPLICATE_VALUES, nothing changed', async () => {
      const name = fresh('d');
      const fields = [
        { name: 'code', type: 'String' },
        { name: 'sku', type: 'String' },
      ];
      const before = await create({ name, fields });
      const coll = app.deps.db.project(owner.project.id).collection(name);
      await coll.insertMany([
        { code: '1', sku: 'A' },
        { code: '2', sku: 'A' },
        { code: '3', sku: 'B' },
        { code: '4', sku: 'B' },
        { code: '5' },
      ]);
      const res = await client.put(`${base}/${name}`, {
        fields: [
          { name: 'code', type: 'String', unique: true },
          { name: 'sku', type: 'String', unique: true },
        ],
      });
      expect(res.status).to.equal(409);
      expect(res.body.code).to.equal('DUPLICATE_VALUES');
      expect(res.body.message).to.match(
        /^Cannot make "sku" unique: some documents share a value \((?:"A", "B"|"B", "A")\)$/,
      );
      expect(res.body.details).to.have.deep.members([
        { path: 'sku', message: '"A" is used by 2 documents' },
        { path: 'sku', message: '"B" is used by 2 documents' },
      ]);
      expect(await indexNames(name)).to.deep.equal(['_id_']);
      expect((await client.get(`${base}/${name}`)).body.data.collection).to.deep.equal(before);
    });

    it('can be turned on where only trashed documents share a value', async () => {
      const name = fresh('t');
      await create({ name, fields: [{ name: 'sku', type: 'String' }] });
      const coll = app.deps.db.project(owner.project.id).collection(name);
      const { ObjectId } = await import('mongodb');
      const trashed = new ObjectId();
      await coll.insertMany([
        { sku: 'A' },
        { _id: trashed, sku: 'A', isDeleted: true, deletedAt: new Date(), _trashId: trashed },
      ]);
      const res = await client.put(`${base}/${name}`, {
        fields: [{ name: 'sku', type: 'String', unique: true }],
      });
      expect(res.status, res.text).to.equal(200);
      expect(await indexNames(name)).to.deep.equal(['_id_', 'u_sku']);
    });

    it('get their index rebuilt from the older one-field shape when the definition is saved', async () => {
      const name = fresh('r');
      await create({ name, fields: [{ name: 'sku', type: 'String' }] });
      const coll = app.deps.db.project(owner.project.id).collection(name);
      await coll.createIndex({ sku: 1 }, { name: 'u_sku', unique: true, sparse: true });
      const res = await client.put(`${base}/${name}`, {
        fields: [{ name: 'sku', type: 'String', unique: true }],
      });
      expect(res.status, res.text).to.equal(200);
      const index = (await coll.listIndexes().toArray()).find((i) => i.name === 'u_sku');
      expect(index?.key).to.deep.equal({ sku: 1, _trashId: 1 });
      expect(index).to.include({ unique: true, sparse: true });
    });

    it('are dropped when turned off', async () => {
      const name = fresh('o');
      await create({ name, fields: [{ name: 'sku', type: 'String', unique: true }] });
      expect(await indexNames(name)).to.deep.equal(['_id_', 'u_sku']);
      await client.put(`${base}/${name}`, { fields: [{ name: 'sku', type: 'String' }] });
      expect(await indexNames(name)).to.deep.equal(['_id_']);
    });
  });

  describe('definition rules (400)', () => {
    const expect400 = async (
      res: { status: number; body: { message: string } },
      message: string | RegExp,
    ) => {
      expect(res.status, JSON.stringify(res.body)).to.equal(400);
      if (typeof message === 'string') expect(res.body.message).to.equal(message);
      else expect(res.body.message).to.match(message);
    };

    it('needs at least one field in schema mode, on create and on update', async () => {
      await expect400(
        await client.post(base, { name: fresh(), mode: 'schema', fields: [] }),
        'At least one field is required',
      );
      await expect400(
        await client.post(base, { name: fresh(), mode: 'schema' }),
        'At least one field is required',
      );
      const name = fresh();
      await create({ name, mode: 'schema', fields: [{ name: 'a', type: 'String' }] });
      await expect400(await client.put(`${base}/${name}`, { fields: [] }), 'At least one field is required');
      await expect400(
        await client.put(`${base}/${name}`, { mode: 'schema' }),
        'At least one field is required',
      );
    });

    it('lets a flexible collection have no field, and stores any JSON in it', async () => {
      const name = fresh();
      const made = await client.post(base, { name, mode: 'flexible', fields: [] });
      expect(made.status, made.text).to.equal(201);
      expect(made.body.data.collection).to.deep.include({ mode: 'flexible', fields: [] });
      expect((await create({ name: fresh() })).fields).to.deep.equal([]);
      // Emptied again on update; switching it to schema mode with no field is still refused.
      const other = fresh();
      await create({ name: other, fields: [{ name: 'a', type: 'String' }] });
      const emptied = await client.put(`${base}/${other}`, { fields: [] });
      expect(emptied.status, emptied.text).to.equal(200);
      expect(emptied.body.data.collection.fields).to.deep.equal([]);
      const stored = await app.services.repos.collections.findByName(owner.project.id, other);
      expect(stored?.fields).to.deep.equal([]);
      await expect400(
        await client.put(`${base}/${other}`, { mode: 'schema', fields: [] }),
        'At least one field is required',
      );
    });

    it('refuses a default on other types, or of the wrong type', async () => {
      await expect400(
        await client.post(base, {
          name: fresh(),
          fields: [{ name: 'when', type: 'Date', default: '2024-01-01' }],
        }),
        'Default is only allowed on non-required String, Number and Boolean fields (when is a Date)',
      );
      await expect400(
        await client.post(base, { name: fresh(), fields: [{ name: 'n', type: 'Number', default: '0' }] }),
        'Default of "n" must be a Number',
      );
    });

    it('clears the default of a required field', async () => {
      const def = await create({
        name: fresh(),
        fields: [{ name: 's', type: 'String', required: true, default: 'x' }],
      });
      expect(def.fields[0]).to.deep.equal({ name: 's', type: 'String', required: true, unique: false });
    });

    it('refuses bad names', async () => {
      await expect400(
        await client.post(base, { name: '1abc', fields: [{ name: 'a', type: 'String' }] }),
        /name must match pattern/,
      );
      await expect400(
        await client.post(base, { name: fresh(), fields: [{ name: '$where', type: 'String' }] }),
        'Invalid field name "$where": must not start with "$"',
      );
      await expect400(
        await client.post(base, { name: fresh(), fields: [{ name: 'createdAt', type: 'Date' }] }),
        'Invalid field name "createdAt": createdAt is a system field and cannot be defined',
      );
      await expect400(
        await client.post(base, { name: fresh(), fields: [{ name: 'a', type: 'String' }], extra: 1 }),
        'Validation failed: extra is not allowed',
      );
    });

    it('needs Ref targets that exist', async () => {
      await expect400(
        await client.post(base, { name: fresh(), fields: [{ name: 'a', type: 'Ref', ref: 'ghosts' }] }),
        'Ref field "a" points to collection "ghosts", which does not exist in this project',
      );
      const target = fresh('t');
      await create({ name: target, fields: [{ name: 'a', type: 'String' }] });
      await create({ name: fresh(), fields: [{ name: 'a', type: 'Ref', ref: target }] });
    });

    it('nests Object sub-fields up to 3 levels', async () => {
      const leaf = { name: 'x', type: 'String' };
      const three = { name: 'a', type: 'Object', fields: [{ name: 'b', type: 'Object', fields: [leaf] }] };
      await create({ name: fresh(), fields: [three] });
      const four = {
        name: 'a',
        type: 'Object',
        fields: [{ name: 'b', type: 'Object', fields: [{ name: 'c', type: 'Object', fields: [leaf] }] }],
      };
      const res = await client.post(base, { name: fresh(), fields: [four] });
      expect(res.status).to.equal(400);
      expect(res.body.message).to.equal(
        'Validation failed: fields.0.fields.0.fields.0.fields is not allowed',
      );
    });

    it('keeps the RLS owner field a String or Ref field', async () => {
      await expect400(
        await client.post(base, {
          name: fresh(),
          fields: [{ name: 'title', type: 'String' }],
          rls: { enabled: true },
        }),
        'RLS owner field "userId" is not a field of this collection',
      );
      await expect400(
        await client.post(base, {
          name: fresh(),
          fields: [{ name: 'owner', type: 'Number' }],
          rls: { enabled: true, ownerField: 'owner' },
        }),
        'RLS owner field "owner" must be a String or Ref field (it is a Number)',
      );
      // A Ref to another collection can never hold an end user's id.
      const selfRef = fresh();
      await expect400(
        await client.post(base, {
          name: selfRef,
          fields: [{ name: 'owner', type: 'Ref', ref: selfRef }],
          rls: { enabled: true, ownerField: 'owner' },
        }),
        `RLS owner field "owner" refers to "${selfRef}": an owner field holds an end user's id, so a Ref must point at users`,
      );
      const name = fresh();
      await create({ name, fields: [{ name: 'userId', type: 'String' }], rls: { enabled: true } });
      expect(await indexNames(name)).to.deep.equal(['_id_', 'o_userId']);
      await expect400(
        await client.put(`${base}/${name}`, { fields: [{ name: 'title', type: 'String' }] }),
        'RLS owner field "userId" is not a field of this collection',
      );
    });

    it('keeps the name fixed', async () => {
      const name = fresh();
      await create({ name, fields: [{ name: 'a', type: 'String' }] });
      await expect400(
        await client.put(`${base}/${name}`, { name: 'other', fields: [{ name: 'a', type: 'String' }] }),
        'The name of a collection cannot be changed',
      );
      expect(
        (await client.put(`${base}/${name}`, { name, fields: [{ name: 'a', type: 'String' }] })).status,
      ).to.equal(200);
    });

    it('answers 400 Invalid project ID for a malformed project id', async () => {
      for (const res of [
        await client.get('/api/projects/nope/collections'),
        await client.post('/api/projects/nope/collections', posts),
        await client.get('/api/projects/nope/collections/posts'),
        await client.put('/api/projects/nope/collections/posts', { fields: posts.fields }),
        await client.delete('/api/projects/nope/collections/posts'),
      ])
        await expect400(res, 'Invalid project ID');
    });
  });

  describe('the users collection', () => {
    it('gets its contract fields, keeps them, and accepts more', async () => {
      const def = await create({ name: 'users', mode: 'schema', fields: [{ name: 'name', type: 'String' }] });
      expect(def.fields.map((f: { name: string }) => f.name)).to.have.members(['email', 'password', 'name']);
      expect(def.fields.find((f: { name: string }) => f.name === 'email')).to.include({
        required: true,
        unique: true,
      });
      expect(await indexNames('users')).to.deep.equal(['_id_', 'u_email']);

      const retyped = await client.put(`${base}/users`, {
        fields: [
          { name: 'email', type: 'Number' },
          { name: 'password', type: 'String' },
        ],
      });
      expect(retyped.status).to.equal(400);
      expect(retyped.body.message).to.equal('Field "email" of the users collection must be a String');
      const optional = await client.put(`${base}/users`, {
        fields: [
          { name: 'email', type: 'String' },
          { name: 'password', type: 'String', required: false },
        ],
      });
      expect(optional.body.message).to.equal('Field "password" of the users collection must be required');
      const removed = await client.put(`${base}/users`, { fields: [{ name: 'email', type: 'String' }] });
      expect(removed.status).to.equal(400);
      expect(removed.body.message).to.equal(
        'The users collection must keep its password field (String, required)',
      );

      const more = await client.put(`${base}/users`, {
        fields: [...def.fields, { name: 'avatar', type: 'String' }],
      });
      expect(more.status).to.equal(200);
      expect(more.body.data.collection.fields).to.have.length(4);
    });
  });

  describe('conflicts (409)', () => {
    it('refuses a name taken in the project', async () => {
      const name = fresh();
      await create({ name, fields: [{ name: 'a', type: 'String' }] });
      const res = await client.post(base, { name, fields: [{ name: 'a', type: 'String' }] });
      expect(res.status).to.equal(409);
      expect(res.body).to.include({
        code: 'COLLECTION_EXISTS',
        message: `A collection named "${name}" already exists in this project`,
      });
    });

    it('refuses deleting a collection that a Ref field points to', async () => {
      const target = fresh('t');
      const source = fresh('s');
      await create({ name: target, fields: [{ name: 'a', type: 'String' }] });
      await create({
        name: source,
        fields: [{ name: 'refs', type: 'Array', items: { type: 'Ref', ref: target } }],
      });
      const res = await client.delete(`${base}/${target}`);
      expect(res.status).to.equal(409);
      expect(res.body.code).to.equal('COLLECTION_REFERENCED');
      expect(res.body.message).to.equal(
        `Collection "${target}" is referenced by ${source}.refs; remove those Ref fields first`,
      );
      expect((await client.delete(`${base}/${source}`)).status).to.equal(200);
      expect((await client.delete(`${base}/${target}`)).status).to.equal(200);
    });
  });

  describe('not found (404)', () => {
    it('answers 404 for an unknown collection', async () => {
      for (const res of [
        await client.get(`${base}/ghosts`),
        await client.put(`${base}/ghosts`, { fields: posts.fields }),
        await client.delete(`${base}/ghosts`),
      ]) {
        expect(res.status).to.equal(404);
        expect(res.body).to.include({
          code: 'COLLECTION_NOT_FOUND',
          message: 'Collection "ghosts" not found',
        });
      }
    });

    it('answers 404 for a project that does not exist', async () => {
      const res = await client.get('/api/projects/65f1c2a4b7e8d90012345678/collections');
      expect(res.status).to.equal(404);
      expect(res.body.message).to.equal('Project not found or access denied');
    });
  });

  describe('plan limit (403)', () => {
    it('stops at 10 collections on the free plan', async () => {
      const small = await createProjectFixture(app.services, 'Small');
      const c = app.client.with({ cookie: small.cookie });
      const url = `/api/projects/${small.project.id}/collections`;
      for (let i = 1; i <= 10; i++) {
        expect(
          (await c.post(url, { name: `c${i}`, fields: [{ name: 'a', type: 'String' }] })).status,
        ).to.equal(201);
      }
      const res = await c.post(url, { name: 'c11', fields: [{ name: 'a', type: 'String' }] });
      expect(res.status).to.equal(403);
      expect(res.body.code).to.equal('PLAN_LIMIT');
      expect(res.body.message).to.equal(
        'Plan limit reached: this project may have at most 10 collections (collectionsPerProject)',
      );
    });
  });

  describe('cross-site writes (403)', () => {
    it('refuses cookie-authenticated writes from another origin', async () => {
      const name = fresh();
      await create({ name, fields: [{ name: 'a', type: 'String' }] });
      const evil = client.with({ origin: 'https://evil.example' });
      for (const res of [
        await evil.post(base, { name: fresh(), fields: [{ name: 'a', type: 'String' }] }),
        await evil.put(`${base}/${name}`, { fields: [{ name: 'a', type: 'String' }] }),
        await evil.delete(`${base}/${name}`),
      ]) {
        expect(res.status).to.equal(403);
        expect(res.body.code).to.equal('CSRF_ORIGIN_MISMATCH');
      }
    });
  });

  describe('who may call (member, admin, operator, other developer, no session)', () => {
    let table: { who: string; client: () => ApiClient; allowed: boolean }[];
    before(async () => {
      const member = await createDeveloper(app.services);
      const admin = await createDeveloper(app.services);
      const stranger = await createDeveloper(app.services);
      await app.services.members.add(owner.project, member.developer.email, 'member');
      const refreshed = (await app.services.repos.projects.findById(owner.project.id))!;
      await app.services.members.add(refreshed, admin.developer.email, 'admin');
      table = [
        { who: 'member', client: () => app.client.with({ cookie: member.cookie }), allowed: true },
        { who: 'admin', client: () => app.client.with({ cookie: admin.cookie }), allowed: true },
        {
          who: 'operator (not a member)',
          client: () => app.client.with({ cookie: operatorCookie }),
          allowed: false,
        },
        {
          who: 'other developer',
          client: () => app.client.with({ cookie: stranger.cookie }),
          allowed: false,
        },
      ];
    });

    it('lets members and admins do everything, hides the project from others', async () => {
      for (const row of table) {
        const c = row.client();
        const name = fresh(row.who.slice(0, 3));
        const results = [
          [await c.post(base, { name, fields: [{ name: 'a', type: 'String' }] }), 201],
          [await c.get(base), 200],
          [await c.get(`${base}/${row.allowed ? name : 'posts'}`), 200],
          [
            await c.put(`${base}/${row.allowed ? name : 'posts'}`, {
              fields: [{ name: 'b', type: 'String' }],
            }),
            200,
          ],
          [await c.delete(`${base}/${row.allowed ? name : 'posts'}`), 200],
        ] as const;
        for (const [res, status] of results) {
          if (row.allowed) expect(res.status, `${row.who}: ${JSON.stringify(res.body)}`).to.equal(status);
          else {
            expect(res.status, row.who).to.equal(404);
            expect(res.body.message).to.equal('Project not found or access denied');
          }
        }
      }
    });

    it('answers 401 without a session', async () => {
      for (const res of [
        await app.client.post(base, posts),
        await app.client.get(base),
        await app.client.get(`${base}/posts`),
        await app.client.put(`${base}/posts`, { fields: posts.fields }),
        await app.client.delete(`${base}/posts`),
      ]) {
        expect(res.status).to.equal(401);
        expect(res.body.success).to.equal(false);
      }
    });
  });
});
