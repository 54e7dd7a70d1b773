// Aggregation over HTTP: the allowed stages, the trash and RLS guards (also on joined
// collections), and the 400 of every refused pipeline. The test server lacks `$set`, so the tests
// use `$addFields`; `$set` stays allowed for real MongoDB.
import { expect } from 'chai';
import { rls, startDataSuite, USER_A, USER_B, type DataSuite } from './data-helpers.js';
import { createCollectionFixture, createProjectFixture } from '../helpers/fixtures.js';

describe('Data API: aggregation', () => {
  let s: DataSuite;
  const run = (
    pipeline: unknown[],
    query: Record<string, string> = {},
    client = s.secret,
    collection = 'orders',
  ) => client.post(`/api/data/${collection}/aggregate`, { pipeline }, { query });
  const ok = async (
    pipeline: unknown[],
    query: Record<string, string> = {},
    client = s.secret,
    collection = 'orders',
  ) => {
    const res = await run(pipeline, query, client, collection);
    expect(res.status, res.text).to.equal(200);
    expect(res.body).to.include({ success: true, message: 'Aggregation executed successfully.' });
    return res.body.data as any[];
  };
  const refused = async (pipeline: unknown[], message: string | RegExp, code?: string) => {
    const res = await run(pipeline);
    expect(res.status, res.text).to.equal(400);
    if (typeof message === 'string') expect(res.body.message).to.equal(message);
    else expect(res.body.message).to.match(message);
    if (code) expect(res.body.code).to.equal(code);
  };

  before(async () => {
    s = await startDataSuite('data_aggregate');
    const fields = [
      { name: 'item', type: 'String' as const },
      { name: 'qty', type: 'Number' as const },
      { name: 'customer', type: 'String' as const },
      { name: 'userId', type: 'String' as const },
    ];
    await s.collection({ name: 'orders', mode: 'schema', fields });
    await s.collection({ name: 'customers', mode: 'flexible', fields: [{ name: 'name', type: 'String' }] });
    await s.collection({ name: 'mine', mode: 'schema', fields, rls: rls('public-read') });
    await s.collection({
      name: 'private_customers',
      mode: 'flexible',
      fields: [{ name: 'name', type: 'String' }],
      rls: rls('private'),
    });
    await s.secret.post('/api/data/orders/bulk', {
      documents: [
        { item: 'apple', qty: 5, customer: 'ann' },
        { item: 'pear', qty: 2, customer: 'bob' },
        { item: 'apple', qty: 1, customer: 'bob' },
      ],
    });
    const gone = await s.secret.post('/api/data/orders', { item: 'plum', qty: 100, customer: 'ann' });
    await s.secret.delete(`/api/data/orders/${gone.body.data._id}`);
    await s.secret.post('/api/data/customers/bulk', {
      documents: [
        { name: 'ann', city: 'Oslo' },
        { name: 'bob', city: 'Rome' },
      ],
    });
    const trashedCustomer = await s.secret.post('/api/data/customers', { name: 'ann', city: 'Trash' });
    await s.secret.delete(`/api/data/customers/${trashedCustomer.body.data._id}`);
    await s.secret.post('/api/data/private_customers/bulk', {
      documents: [
        { name: 'ann', city: 'A-city', userId: USER_A },
        { name: 'ann', city: 'B-city', userId: USER_B },
      ],
    });
    await s.secret.post('/api/data/mine/bulk', {
      documents: [
        { item: 'a1', qty: 1, customer: 'ann', userId: USER_A },
        { item: 'b1', qty: 2, customer: 'ann', userId: USER_B },
      ],
    });
  });
  after(() => s.close());

  it('runs the allowed stages and leaves trashed documents out', async () => {
    const totals = await ok([
      { $match: { qty: { $gte: 1 } } },
      { $group: { _id: '$item', total: { $sum: '$qty' } } },
      { $sort: { _id: 1 } },
    ]);
    expect(totals).to.deep.equal([
      { _id: 'apple', total: 6 },
      { _id: 'pear', total: 2 },
    ]);
    expect(await ok([{ $count: 'n' }])).to.deep.equal([{ n: 3 }]);
    expect(
      await ok([{ $sort: { qty: -1 } }, { $skip: 1 }, { $limit: 1 }, { $project: { _id: 0, item: 1 } }]),
    ).to.deep.equal([{ item: 'pear' }]);
    const facet = await ok([
      {
        $facet: {
          n: [{ $count: 'n' }],
          top: [{ $sort: { qty: -1 } }, { $limit: 1 }, { $project: { _id: 0, qty: 1 } }],
        },
      },
    ]);
    expect(facet).to.deep.equal([{ n: [{ n: 3 }], top: [{ qty: 5 }] }]);
    const added = await ok([
      { $addFields: { double: { $multiply: ['$qty', 2] } } },
      { $sort: { qty: 1 } },
      { $limit: 1 },
    ]);
    expect(added[0]).to.include({ qty: 1, double: 2 });
    expect(added[0]._id).to.match(/^[0-9a-f]{24}$/);
    expect(added[0].createdAt).to.match(/Z$/);
    const unwound = await ok([{ $addFields: { parts: ['x', 'y'] } }, { $unwind: '$parts' }, { $count: 'n' }]);
    expect(unwound).to.deep.equal([{ n: 6 }]);
    expect(await ok([{ $sortByCount: '$customer' }])).to.deep.equal([
      { _id: 'bob', count: 2 },
      { _id: 'ann', count: 1 },
    ]);
    const bucket = await ok([{ $bucket: { groupBy: '$qty', boundaries: [0, 3, 10], default: 'other' } }]);
    expect(bucket).to.deep.equal([
      { _id: 0, count: 2 },
      { _id: 3, count: 1 },
    ]);
    const root = await ok([{ $match: { qty: 5 } }, { $replaceRoot: { newRoot: { name: '$item' } } }]);
    expect(root).to.deep.equal([{ name: 'apple' }]);
    expect(await ok([{ $sample: { size: 2 } }])).to.have.length(2);
  });

  it('includes trashed documents with include_deleted=true', async () => {
    expect(await ok([{ $count: 'n' }], { include_deleted: 'true' })).to.deep.equal([{ n: 4 }]);
  });

  it('$lookup joins registered collections, leaving their trashed documents out', async () => {
    const joined = await ok([
      { $match: { customer: 'ann' } },
      {
        $lookup: {
          from: 'customers',
          let: { c: '$customer' },
          pipeline: [{ $match: { $expr: { $eq: ['$name', '$$c'] } } }],
          as: 'who',
        },
      },
      { $project: { _id: 0, item: 1, cities: '$who.city' } },
    ]);
    expect(joined).to.deep.equal([{ item: 'apple', cities: ['Oslo'] }]);
    const all = await ok(
      [
        { $match: { customer: 'ann' } },
        { $lookup: { from: 'customers', localField: 'customer', foreignField: 'name', as: 'who' } },
        { $project: { _id: 0, item: 1, cities: '$who.city' } },
        { $sort: { item: 1 } },
      ],
      { include_deleted: 'true' },
    );
    expect(all.map((r) => [r.item, [...r.cities].sort()])).to.deep.equal([
      ['apple', ['Oslo', 'Trash']],
      ['plum', ['Oslo', 'Trash']],
    ]);
  });

  it("with RLS and the publishable key: only the token user's documents, also in joins", async () => {
    const asA = await s.asUser(USER_A);
    const rows = await ok([{ $project: { _id: 0, item: 1 } }], {}, asA, 'mine');
    expect(rows).to.deep.equal([{ item: 'a1' }]);
    const sneaky = await ok([{ $match: { userId: USER_B } }], {}, asA, 'mine');
    expect(sneaky).to.deep.equal([]);
    // The cities of each order's customer, joined from `private_customers`.
    const customerCities = [
      {
        $lookup: {
          from: 'private_customers',
          let: { c: '$customer' },
          pipeline: [{ $match: { $expr: { $eq: ['$name', '$$c'] } } }],
          as: 'who',
        },
      },
      { $project: { _id: 0, cities: '$who.city' } },
    ];
    const joined = await ok(customerCities, {}, asA, 'mine');
    expect(joined).to.deep.equal([{ cities: ['A-city'] }]);
    const fromOpen = await ok([{ $match: { customer: 'ann' } }, ...customerCities], {}, asA);
    expect(fromOpen).to.deep.equal([{ cities: ['A-city'] }]);
    const noToken = await run(
      [{ $lookup: { from: 'private_customers', pipeline: [], as: 'x' } }],
      {},
      s.publishable,
    );
    expect(noToken.status).to.equal(401);
    expect(noToken.body.code).to.equal('MISSING_TOKEN');
    const secret = await ok([{ $count: 'n' }], {}, s.secret, 'mine');
    expect(secret).to.deep.equal([{ n: 2 }]);
  });

  it("blocks $out and $merge with the spec's message", async () => {
    await refused(
      [{ $out: 'stolen' }],
      'Pipeline stage $out is blocked: aggregations cannot write to collections',
      'BLOCKED_STAGE',
    );
    await refused(
      [{ $match: {} }, { $merge: { into: 'stolen' } }],
      'Pipeline stage $merge is blocked: aggregations cannot write to collections',
    );
    await refused(
      [{ $facet: { a: [{ $out: 'x' }] } }],
      'Pipeline stage $out is blocked: aggregations cannot write to collections',
    );
    const list = await s.secret.get('/api/data/orders', { query: { count: 'true' } });
    expect(list.body.data.count).to.equal(3);
  });

  it('refuses stages outside the allowlist', async () => {
    for (const stage of [
      '$graphLookup',
      '$unionWith',
      '$collStats',
      '$indexStats',
      '$currentOp',
      '$listSessions',
      '$planCacheStats',
      '$search',
      '$documents',
      '$changeStream',
    ]) {
      await refused([{ [stage]: {} }], `Pipeline stage ${stage} is not allowed`, 'STAGE_NOT_ALLOWED');
    }
    await refused(
      [{ $match: {}, $limit: 1 }],
      'Invalid pipeline: stage 0 must be an object with exactly one stage operator',
    );
    await refused([{}], 'Invalid pipeline: stage 0 must be an object with exactly one stage operator');
  });

  it('refuses $where, $function and $accumulator anywhere', async () => {
    const js = 'function() { return true; }';
    await refused(
      [{ $match: { $where: js } }],
      'Operator $where is not allowed in aggregation pipelines',
      'OPERATOR_NOT_ALLOWED',
    );
    await refused(
      [{ $match: { $expr: { $function: { body: js, args: [], lang: 'js' } } } }],
      'Operator $function is not allowed in aggregation pipelines',
    );
    await refused(
      [
        {
          $group: {
            _id: null,
            x: { $accumulator: { init: js, accumulate: js, accumulateArgs: [], merge: js, lang: 'js' } },
          },
        },
      ],
      'Operator $accumulator is not allowed in aggregation pipelines',
    );
    await refused(
      [{ $facet: { a: [{ $addFields: { x: { $function: { body: js, args: [], lang: 'js' } } } }] } }],
      /\$function is not allowed/,
    );
    await refused(
      [{ $lookup: { from: 'customers', pipeline: [{ $match: { $where: js } }], as: 'x' } }],
      /\$where is not allowed/,
    );
    await refused([{ $match: { $and: [{ a: 1 }, { $or: [{ $where: js }] }] } }], /\$where is not allowed/);
  });

  it('refuses $lookup into users, unregistered collections, other databases, and unknown options', async () => {
    await refused(
      [{ $lookup: { from: 'users', localField: 'userId', foreignField: '_id', as: 'u' } }],
      '$lookup into the users collection is not allowed',
      'LOOKUP_NOT_ALLOWED',
    );
    await refused(
      [{ $facet: { a: [{ $lookup: { from: 'users', pipeline: [], as: 'u' } }] } }],
      '$lookup into the users collection is not allowed',
    );
    await refused(
      [
        {
          $lookup: {
            from: 'customers',
            pipeline: [{ $lookup: { from: 'users', pipeline: [], as: 'u' } }],
            as: 'c',
          },
        },
      ],
      '$lookup into the users collection is not allowed',
    );
    await refused(
      [{ $lookup: { from: 'developers', pipeline: [], as: 'd' } }],
      '$lookup may only read collections of this project: "developers" is not registered',
      'LOOKUP_NOT_ALLOWED',
    );
    for (const from of [
      { db: s.app.deps.config.platformDb, coll: 'developers' },
      { db: 'admin', coll: 'system.users' },
      ['x'],
      1,
      '',
    ]) {
      await refused(
        [{ $lookup: { from, pipeline: [], as: 'd' } }],
        /^\$lookup may only read a collection of this project, named by a string in "from"/,
        'LOOKUP_NOT_ALLOWED',
      );
    }
    await refused(
      [{ $lookup: { from: 'customers', as: 'c', pipeline: [], db: 'other' } }],
      'Invalid pipeline: stage 0 $lookup does not take "db"',
    );
    await refused(
      [{ $lookup: { from: 'customers', as: 'c', pipeline: { $match: {} } } }],
      'Invalid pipeline: stage 0 $lookup.pipeline must be an array',
    );
  });

  it("cannot read another project's collection of the same name", async () => {
    const other = await createProjectFixture(s.app.services, 'Other');
    await createCollectionFixture(s.app.services, other.project.id, { name: 'loot' });
    await s.app.client
      .with({ 'x-api-key': other.secretKey })
      .post('/api/data/loot', { title: 'secret of the other project' });
    await refused(
      [{ $lookup: { from: 'loot', pipeline: [], as: 'x' } }],
      '$lookup may only read collections of this project: "loot" is not registered',
    );
    await s.collection({ name: 'loot' });
    const rows = await ok([
      { $limit: 1 },
      { $lookup: { from: 'loot', pipeline: [], as: 'x' } },
      { $project: { _id: 0, x: 1 } },
    ]);
    expect(rows).to.deep.equal([{ x: [] }]);
    await s.app.deps.db.project(other.project.id).dropDatabase();
  });

  it('answers 400 for malformed bodies and pipelines the database refuses', async () => {
    const notArray = await s.secret.post('/api/data/orders/aggregate', { pipeline: { $match: {} } });
    expect(notArray.status).to.equal(400);
    expect(notArray.body.message).to.equal('Validation failed: pipeline must be an array');
    const missing = await s.secret.post('/api/data/orders/aggregate', {});
    expect(missing.body.message).to.equal('Validation failed: pipeline is required');
    const extra = await s.secret.post('/api/data/orders/aggregate', { pipeline: [], out: 'x' });
    expect(extra.body.message).to.equal('Validation failed: out is not allowed');
    const stageNotObject = await s.secret.post('/api/data/orders/aggregate', { pipeline: ['$match'] });
    expect(stageNotObject.status).to.equal(400);
    const tooLong = await s.secret.post('/api/data/orders/aggregate', {
      pipeline: Array.from({ length: 101 }, () => ({ $match: {} })),
    });
    expect(tooLong.status).to.equal(400);
    await refused([{ $group: { total: { $sum: 1 } } }], /^Invalid pipeline: /, 'INVALID_PIPELINE');
    await refused([{ $limit: -1 }], /^Invalid pipeline: /);
  });

  it('answers 400 when the results exceed 1000 documents', async () => {
    const res = await run([{ $addFields: { n: { $range: [0, 1001] } } }, { $unwind: '$n' }]);
    expect(res.status).to.equal(400);
    expect(res.body.message).to.equal(
      'The aggregation returned more than 1000 documents; add a $limit stage',
    );
    expect(
      await ok([{ $addFields: { n: { $range: [0, 1001] } } }, { $unwind: '$n' }, { $limit: 1000 }]),
    ).to.have.length(1000);
  });

  it('answers 401 without a key, 403 for users, 404 for an unknown collection', async () => {
    expect((await s.app.client.post('/api/data/orders/aggregate', { pipeline: [] })).status).to.equal(401);
    const users = await s.secret.post('/api/data/users/aggregate', { pipeline: [] });
    expect(users.status).to.equal(403);
    expect(users.body.code).to.equal('USERS_COLLECTION');
    const unknown = await s.secret.post('/api/data/nothing/aggregate', { pipeline: [] });
    expect(unknown.status).to.equal(404);
  });
});
