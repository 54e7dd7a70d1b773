// Security regressions of the data API, in the spirit of Parse Server's suite: operator injection
// through every query parameter and body, prototype keys, RLS bypass attempts, the reserved users
// collection, malformed ids and oversized input. Each is a 4xx that leaks nothing and writes nothing.
import { expect } from 'chai';
import type { ApiResponse } from '../helpers/client.js';
import { rls, startDataSuite, USER_A, USER_B, type DataSuite } from './data-helpers.js';

describe('Data API: security regressions', () => {
  let s: DataSuite;
  const ids: Record<string, string> = {};

  const status4xx = (res: ApiResponse, expected?: number) => {
    expect(res.status, res.text).to.be.within(400, 499);
    if (expected) expect(res.status, res.text).to.equal(expected);
    expect(res.body).to.include({ success: false, data: null });
  };
  const raw = (method: string, path: string, json: string, client = s.secret) =>
    client.request(method, path, { rawBody: json, headers: { 'content-type': 'application/json' } });
  const storedCount = (collection: string, filter: Record<string, unknown> = {}) =>
    s.app.deps.db.project(s.fx.project.id).collection(collection).countDocuments(filter);

  before(async () => {
    s = await startDataSuite('data_security');
    const fields = [
      { name: 'title', type: 'String' as const },
      { name: 'userId', type: 'String' as const },
    ];
    await s.collection({ name: 'posts', mode: 'schema', fields });
    await s.collection({ name: 'flex', mode: 'flexible', fields: [{ name: 'title', type: 'String' }] });
    await s.collection({ name: 'vault', mode: 'schema', fields, rls: rls('private') });
    await s.collection({
      name: 'flexvault',
      mode: 'flexible',
      fields: [{ name: 'title', type: 'String' }],
      rls: rls('private'),
    });
    await s.collection({
      name: 'comments',
      mode: 'schema',
      fields: [
        { name: 'text', type: 'String' },
        { name: 'note', type: 'Ref', ref: 'vault' },
      ],
    });
    for (const [name, body] of [
      ['post', { title: 'public post' }],
      ['hidden', { title: 'hidden', userId: USER_B }],
    ] as const) {
      const collection = name === 'post' ? 'posts' : 'vault';
      ids[name] = (await s.secret.post(`/api/data/${collection}`, body)).body.data._id;
    }
    ids.mine = (await s.secret.post('/api/data/vault', { title: 'mine', userId: USER_A })).body.data._id;
    ids.flexB = (await s.secret.post('/api/data/flexvault', { title: 'b', userId: USER_B })).body.data._id;
    ids.flexA = (await s.secret.post('/api/data/flexvault', { title: 'a', userId: USER_A })).body.data._id;
    await s.secret.post('/api/data/comments/bulk', {
      documents: [
        { text: 'on mine', note: ids.mine },
        { text: 'on hidden', note: ids.hidden },
      ],
    });
  });
  after(() => s.close());

  describe('operator injection through query parameters', () => {
    it('refuses $-keys and bracket syntax in every position', async () => {
      for (const query of [
        '$where=1',
        'title[$ne]=x',
        'title[$gt]=',
        'title[$regex]=.*',
        '_id[$ne]=x',
        'title.$ne=x',
        'limit[$gt]=1',
        'page[$ne]=1',
        'sort[$natural]=1',
        'include_deleted[$ne]=false',
        '$or=x',
        'title_ne[$exists]=true',
      ]) {
        const res = await s.publishable.get(`/api/data/posts?${query}`);
        status4xx(res, 400);
        expect(res.body.code, query).to.equal('INVALID_FILTER');
      }
    });

    it('treats operator-looking values as plain values', async () => {
      for (const value of ['{"$ne":null}', '{"$gt":""}', '[$ne]', '$where', 'this.title']) {
        const res = await s.publishable.get('/api/data/flex', { query: { title: value } });
        expect(res.status, value).to.equal(200);
        expect(res.body.data, value).to.deep.equal([]);
      }
      const id = await s.publishable.get('/api/data/posts', { query: { _id: '{"$ne":null}' } });
      status4xx(id, 400);
      const ne = await s.publishable.get('/api/data/posts', { query: { title_ne: '{"$exists":false}' } });
      expect(ne.body.data.map((d: any) => d.title)).to.deep.equal(['public post']);
    });

    it('refuses operators in sort, fields, populate, cursor and the switches', async () => {
      const cases: Record<string, string>[] = [
        { sort: '$natural' },
        { sort: '{"title":1}' },
        { fields: '$where' },
        { fields: 'title,__proto__' },
        { populate: '$where' },
        { populate: '__proto__' },
        { cursor: Buffer.from('{"s":"_id","v":[{"$where":"1"}]}').toString('base64url') },
        { count: '{"$gt":0}' },
        { include_deleted: '1' },
        { meta: '$ne' },
        { limit: '{"$gt":1}' },
      ];
      for (const query of cases) status4xx(await s.publishable.get('/api/data/posts', { query }), 400);
    });
  });

  describe('operator and prototype keys in bodies', () => {
    it('refuses $-keys at any depth on create, update and bulk', async () => {
      const before = await storedCount('flex');
      const bodies = [
        '{"$set":{"title":"x"}}',
        '{"title":{"$gt":""}}',
        '{"a":{"b":[{"$where":"1"}]}}',
        '{"a.b":1}',
      ];
      for (const body of bodies) status4xx(await raw('POST', '/api/data/flex', body), 400);
      status4xx(await raw('POST', '/api/data/flex/bulk', `{"documents":[{"ok":1},${bodies[0]}]}`), 400);
      for (const body of [
        '{"$unset":{"title":1}}',
        '{"title.$":1}',
        '{"$rename":{"title":"t"}}',
        '{"a":{"$inc":1}}',
      ]) {
        status4xx(await raw('PATCH', `/api/data/flex/${ids.flexA ?? ''}`, body), 400);
      }
      expect(await storedCount('flex')).to.equal(before);
    });

    it('an update into a path the stored value cannot hold is a 400, never a 500', async () => {
      const doc = (await s.secret.post('/api/data/flex', { title: 'plain string' })).body.data;
      const res = await s.secret.patch(`/api/data/flex/${doc._id}`, { 'title.deeper': 1 });
      status4xx(res, 400);
      expect(res.body.message).to.match(/^Invalid update: /);
      expect((await s.secret.get(`/api/data/flex/${doc._id}`)).body.data.title).to.equal('plain string');
    });

    it('refuses __proto__, constructor and prototype keys, and pollutes nothing', async () => {
      const before = await storedCount('flex');
      for (const body of [
        '{"__proto__":{"polluted":true}}',
        '{"constructor":{"prototype":{"polluted":true}}}',
        '{"prototype":1}',
        '{"a":{"__proto__":{"polluted":true}}}',
        '{"a":[{"constructor":1}]}',
      ]) {
        const res = await raw('POST', '/api/data/flex', body);
        status4xx(res, 400);
        // The JSON parser itself refuses some prototype-poisoning shapes before the service sees them.
        expect(res.body.code, body).to.be.oneOf(['INVALID_FIELD_NAME', 'INVALID_JSON']);
        if (res.body.code === 'INVALID_JSON') expect(res.body.message, body).to.match(/"__proto__"/);
      }
      status4xx(await raw('PATCH', `/api/data/posts/${ids.post}`, '{"__proto__.polluted":true}'), 400);
      status4xx(
        await raw('POST', '/api/data/flex/bulk', '{"documents":[{"__proto__":{"polluted":true}}]}'),
        400,
      );
      status4xx(
        await raw(
          'POST',
          '/api/data/flex/aggregate',
          '{"pipeline":[{"$match":{"__proto__":{"polluted":true}}}]}',
        ),
        400,
      );
      expect(({} as any).polluted).to.equal(undefined);
      expect(await storedCount('flex')).to.equal(before);
    });

    it('refuses bodies nested too deeply', async () => {
      let deep: unknown = 1;
      for (let i = 0; i < 70; i++) deep = { a: deep };
      status4xx(await s.secret.post('/api/data/flex', { deep }), 400);
      let pipelineDeep: unknown = { x: 1 };
      for (let i = 0; i < 70; i++) pipelineDeep = { $and: [pipelineDeep] };
      status4xx(
        await s.secret.post('/api/data/flex/aggregate', { pipeline: [{ $match: pipelineDeep }] }),
        400,
      );
    });
  });

  describe('RLS bypass attempts', () => {
    it('a padded or differently cased owner key cannot pass for the owner', async () => {
      const asA = await s.asUser(USER_A);
      const before = await storedCount('flexvault');
      const padded = await raw('POST', '/api/data/flexvault', `{"userId ":"${USER_B}"}`, asA);
      status4xx(padded, 400);
      for (const key of ['UserId', 'USERID', 'userid', ' userId']) {
        const res = await raw('POST', '/api/data/flexvault', `{"${key}":"${USER_B}","title":"x"}`, asA);
        status4xx(res, 400);
      }
      const cased = await raw('POST', '/api/data/flexvault', `{"UserId":"${USER_B}"}`, asA);
      expect(cased.body.code).to.equal('OWNER_FIELD_LOOKALIKE');
      const schemaCased = await raw('POST', '/api/data/vault', `{"UserId":"${USER_B}"}`, asA);
      status4xx(schemaCased, 400);
      const patch = await raw('PATCH', `/api/data/flexvault/${ids.flexA}`, `{"UserId":"${USER_B}"}`, asA);
      status4xx(patch, 400);
      expect(await storedCount('flexvault')).to.equal(before);
    });

    it('the owner cannot be changed by a dot path, an object or an operator value', async () => {
      const asA = await s.asUser(USER_A);
      for (const body of [
        { 'userId.x': 1 },
        { userId: { $ne: null } },
        { userId: [USER_B] },
        { userId: USER_B },
      ]) {
        const res = await asA.patch(`/api/data/flexvault/${ids.flexA}`, body);
        status4xx(res);
      }
      status4xx(await asA.patch(`/api/data/vault/${ids.mine}`, { 'userId.x': 1 }), 400);
      const created = await asA.post('/api/data/flexvault', { userId: { $ne: null } });
      status4xx(created, 400);
      const stored = await s.secret.get(`/api/data/flexvault/${ids.flexA}`);
      expect(stored.body.data.userId).to.equal(USER_A);
    });

    it('filters cannot widen the private scope', async () => {
      const asA = await s.asUser(USER_A);
      const queries: Record<string, string>[] = [
        { userId: USER_B },
        { userId_ne: USER_A },
        { userId_exists: 'true' },
        { _id: ids.hidden! },
        { title_regex: '.*' },
      ];
      for (const query of queries) {
        const res = await asA.get('/api/data/vault', { query: { ...query, include_deleted: 'true' } });
        expect(res.status).to.equal(200);
        expect(
          res.body.data.map((d: any) => d.userId).filter((u: string) => u !== USER_A),
          JSON.stringify(query),
        ).to.deep.equal([]);
      }
      const one = await asA.get(`/api/data/vault/${ids.hidden}`, { query: { include_deleted: 'true' } });
      expect(one.status).to.equal(404);
      expect(one.text).to.not.include('hidden"');
    });

    it('populate shows only the referenced documents the caller may read', async () => {
      const asA = await s.asUser(USER_A);
      const res = await asA.get('/api/data/comments', { query: { populate: 'note', sort: 'text' } });
      expect(res.status).to.equal(200);
      const notes = Object.fromEntries(res.body.data.map((c: any) => [c.text, c.note]));
      expect(notes['on mine']).to.include({ title: 'mine', userId: USER_A });
      expect(notes['on hidden']).to.equal(null);
      const anonymous = await s.publishable.get('/api/data/comments', { query: { populate: 'note' } });
      expect(anonymous.body.data.map((c: any) => c.note)).to.deep.equal([null, null]);
      expect(anonymous.text).to.not.include('"hidden"');
      const secret = await s.secret.get('/api/data/comments', { query: { populate: 'note', sort: 'text' } });
      expect(secret.body.data.map((c: any) => c.note?.title)).to.deep.equal(['hidden', 'mine']);
    });

    it('aggregations cannot escape the owner match', async () => {
      const asA = await s.asUser(USER_A);
      const attempts = [
        [{ $match: { userId: USER_B } }],
        [{ $match: { $or: [{ userId: USER_B }, { userId: { $exists: true } }] } }],
        [{ $facet: { all: [{ $match: {} }] } }, { $unwind: '$all' }, { $replaceRoot: { newRoot: '$all' } }],
        [
          { $lookup: { from: 'vault', pipeline: [], as: 'everything' } },
          { $unwind: '$everything' },
          { $replaceRoot: { newRoot: '$everything' } },
        ],
      ];
      for (const pipeline of attempts) {
        const res = await asA.post(
          '/api/data/vault/aggregate',
          { pipeline },
          { query: { include_deleted: 'true' } },
        );
        expect(res.status, res.text).to.equal(200);
        expect(res.text).to.not.include(USER_B);
      }
      const fromOpen = await asA.post('/api/data/posts/aggregate', {
        pipeline: [
          { $lookup: { from: 'vault', pipeline: [], as: 'v' } },
          { $project: { n: { $size: '$v' } } },
        ],
      });
      expect(fromOpen.body.data.map((r: any) => r.n)).to.deep.equal([1]);
      const unionWith = await asA.post('/api/data/posts/aggregate', { pipeline: [{ $unionWith: 'vault' }] });
      status4xx(unionWith, 400);
    });

    it('?key= takes only a publishable key, and the key never acts as a filter', async () => {
      const secret = await s.app.client.get(`/api/data/posts?key=${s.fx.secretKey}`);
      status4xx(secret, 401);
      const publishable = await s.app.client.get(`/api/data/posts?key=${s.fx.publishableKey}`);
      expect(publishable.status).to.equal(200);
      expect(publishable.body.data.map((d: any) => d.title)).to.deep.equal(['public post']);
      const write = await s.app.client.post(`/api/data/posts?key=${s.fx.publishableKey}`, { title: 'x' });
      status4xx(write, 403);
    });

    it('a token for another project, or no token, cannot write under RLS', async () => {
      const res = await s.publishable.post('/api/data/vault', { title: 'x', userId: USER_A });
      status4xx(res, 401);
      expect(res.body.code).to.equal('MISSING_TOKEN');
      const forged = await s.publishable
        .with({ authorization: `Bearer ${'e30.e30.'}` })
        .post('/api/data/vault', { title: 'x' });
      status4xx(forged, 401);
    });
  });

  describe('the reserved users collection', () => {
    it('answers 403 on every operation, whatever the key', async () => {
      const id = '0123456789abcdef01234567';
      for (const client of [s.secret, s.publishable, await s.asUser(USER_A)]) {
        const responses = [
          await client.get('/api/data/users'),
          await client.get('/api/data/users', { query: { count: 'true' } }),
          await client.get(`/api/data/users/${id}`),
          await client.get('/api/data/users/not-an-id'),
          await client.post('/api/data/users', { email: 'x@example.com', password: 'secret-password' }),
          await client.post('/api/data/users/bulk', { documents: [{ email: 'x@example.com' }] }),
          await client.put(`/api/data/users/${id}`, { name: 'x' }),
          await client.patch(`/api/data/users/${id}`, { name: 'x' }),
          await client.delete(`/api/data/users/${id}`),
          await client.post(`/api/data/users/${id}/restore`),
          await client.post('/api/data/users/aggregate', { pipeline: [] }),
        ];
        for (const res of responses) {
          status4xx(res, 403);
          expect(res.body.code).to.equal('USERS_COLLECTION');
        }
      }
    });
  });

  describe('ids and collection names', () => {
    it('an id that is not an object id is a 400, never a 500', async () => {
      for (const id of [
        'aaaaaaaaaaaa',
        "1' OR '1'='1",
        '%7B%22%24ne%22%3Anull%7D',
        'x'.repeat(500),
        'null',
        '-1',
        '0x1234567890abcdef12345678',
      ]) {
        for (const res of [
          await s.secret.get(`/api/data/posts/${id}`),
          await s.secret.patch(`/api/data/posts/${id}`, { title: 'x' }),
          await s.secret.put(`/api/data/posts/${id}`, { title: 'x' }),
          await s.secret.delete(`/api/data/posts/${id}`),
          await s.secret.post(`/api/data/posts/${id}/restore`),
        ]) {
          status4xx(res, 400);
          expect(res.body.code, id).to.equal('INVALID_ID');
        }
      }
      status4xx(await s.secret.get('/api/data/posts', { query: { _id: 'aaaaaaaaaaaa' } }), 400);
    });

    it('odd collection names are unknown collections', async () => {
      for (const name of ['$cmd', 'system.users', '..%2Fposts', 'posts.x', 'Users', 'p_x.posts']) {
        const res = await s.secret.get(`/api/data/${name}`);
        status4xx(res, 404);
      }
    });
  });

  describe('oversized input', () => {
    it('refuses too many filters, values, fields, sort keys and long regexes', async () => {
      const manyFilters = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`f${i}`, 'x']));
      expect((await s.publishable.get('/api/data/flex', { query: manyFilters })).body.message).to.equal(
        'Too many filters: at most 50',
      );
      const manyValues = Array.from({ length: 101 }, (_, i) => String(i)).join(',');
      expect(
        (await s.publishable.get('/api/data/flex', { query: { title_in: manyValues } })).body.message,
      ).to.equal('Invalid filter "title_in": at most 100 values');
      const manyFields = Array.from({ length: 101 }, (_, i) => `f${i}`).join(',');
      expect(
        (await s.publishable.get('/api/data/flex', { query: { fields: manyFields } })).body.message,
      ).to.equal('Invalid fields: at most 100 items');
      expect(
        (await s.publishable.get('/api/data/flex', { query: { sort: 'a,b,c,d,e,f' } })).body.message,
      ).to.equal('Invalid sort: at most 5 items');
      status4xx(await s.publishable.get('/api/data/flex', { query: { title_regex: 'a'.repeat(129) } }), 400);
      status4xx(await s.publishable.get('/api/data/flex', { query: { title: 'x'.repeat(5000) } }), 400);
    });
  });
});
