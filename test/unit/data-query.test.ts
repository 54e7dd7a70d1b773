// Pure logic of the data API's query parameters: filter keys and typed values, sort, projection,
// cursor encoding and the keyset condition.
import { expect } from 'chai';
import { ObjectId } from 'mongodb';
import { failure } from '../helpers/errors.js';
import { allOf, parseFilters } from '../../src/services/data/filters.js';
import { decodeCursor, encodeCursor, keysetCondition, type SortKey } from '../../src/services/data/cursor.js';
import { buildProjection } from '../../src/services/data/projection.js';
import { parseListOptions, parseSort } from '../../src/services/data/query.js';
import { resolvePath } from '../../src/services/data/field-paths.js';
import { collectionDef } from '../helpers/collection-def.js';

const def = collectionDef;

const schema = def('schema', [
  { name: 'n', type: 'Number' },
  { name: 'd', type: 'Date' },
  { name: 'b', type: 'Boolean' },
  { name: 's', type: 'String' },
  { name: 'r', type: 'Ref', ref: 'others' },
  { name: 'o', type: 'Object', fields: [{ name: 'x', type: 'Number' }] },
  { name: 'free', type: 'Object' },
  { name: 'list', type: 'Array', items: { type: 'Object', fields: [{ name: 'k', type: 'Number' }] } },
  { name: 'nums', type: 'Array', items: { type: 'Number' } },
]);
const flexible = def('flexible', [{ name: 'n', type: 'Number' }]);

describe('data API filters', () => {
  it('types values by the schema', () => {
    const [n, d, b, r, id] = parseFilters(schema, {
      n_gte: '1.5',
      d_lt: '2024-01-01',
      b: 'true',
      r: 'ABCDEF0123456789ABCDEF01',
      _id_in: '0123456789abcdef01234567',
    });
    expect(n).to.deep.equal({ n: { $gte: 1.5 } });
    expect(d).to.deep.equal({ d: { $lt: new Date('2024-01-01T00:00:00Z') } });
    expect(b).to.deep.equal({ b: { $eq: true } });
    expect(r).to.deep.equal({ r: { $eq: 'abcdef0123456789abcdef01' } });
    expect((id!._id as any).$in[0]).to.be.instanceOf(ObjectId);
  });

  it('reaches nested and array sub-fields, free-form objects untyped', () => {
    expect(parseFilters(schema, { 'o.x_gt': '2' })).to.deep.equal([{ 'o.x': { $gt: 2 } }]);
    expect(parseFilters(schema, { 'list.k': '3' })).to.deep.equal([{ 'list.k': { $eq: 3 } }]);
    expect(parseFilters(schema, { 'list.0.k': '3' })).to.deep.equal([{ 'list.0.k': { $eq: 3 } }]);
    expect(parseFilters(schema, { nums_lt: '3' })).to.deep.equal([{ nums: { $lt: 3 } }]);
    expect(parseFilters(schema, { 'free.anything': '3' })).to.deep.equal([
      { 'free.anything': { $in: ['3', 3] } },
    ]);
    expect(failure(() => parseFilters(schema, { 's.x': '1' })).message).to.equal(
      'Invalid filter "s.x": s.x is not a field of this collection',
    );
  });

  it('flexible mode: either form for equality, numbers for ranges', () => {
    expect(parseFilters(flexible, { n: '5', m_ne: 'true', k_gt: '-2e3', t_lt: 'b' })).to.deep.equal([
      { n: { $in: ['5', 5] } },
      { m: { $nin: ['true', true] } },
      { k: { $gt: -2000 } },
      { t: { $lt: 'b' } },
    ]);
    expect(parseFilters(flexible, { a_in: '1,x' })).to.deep.equal([{ a: { $in: ['1', 1, 'x'] } }]);
  });

  it('skips reserved parameters and combines conditions', () => {
    expect(parseFilters(flexible, { page: '1', limit: '2', sort: 'n', key: 'pk' })).to.deep.equal([]);
    expect(allOf([])).to.deep.equal({});
    expect(allOf([{ a: 1 }])).to.deep.equal({ a: 1 });
    expect(allOf([{ a: 1 }, { b: 2 }])).to.deep.equal({ a: 1, b: 2 });
  });

  it('merges operators on one field, and keeps an $and where keys would clash', () => {
    const active = { isDeleted: { $ne: true } };
    const range = [{ price: { $gte: 10 } }, { price: { $lt: 40 } }, active];
    expect(allOf(range)).to.deep.equal({ price: { $gte: 10, $lt: 40 }, isDeleted: { $ne: true } });
    // The shared constant is not changed by a merge.
    expect(allOf([active, { isDeleted: { $exists: true } }])).to.deep.equal({
      isDeleted: { $ne: true, $exists: true },
    });
    expect(active).to.deep.equal({ isDeleted: { $ne: true } });
    // The same operator twice, an equality with an object value, two $or: an $and as given.
    const twice = [{ n: { $gt: 1 } }, { n: { $gt: 5 } }];
    expect(allOf(twice)).to.deep.equal({ $and: twice });
    const objectValue = [{ o: { a: 1 } }, { o: { $ne: null } }];
    expect(allOf(objectValue)).to.deep.equal({ $and: objectValue });
    const ors = [{ $or: [{ a: 1 }, { b: 1 }] }, { $or: [{ c: 1 }, { d: 1 }] }];
    expect(allOf(ors)).to.deep.equal({ $and: ors });
    const id = new ObjectId();
    const ids = [{ _id: id }, { _id: { $ne: id } }];
    expect(allOf(ids)).to.deep.equal({ $and: ids });
  });

  it('never produces an operator from a key or a value', () => {
    for (const key of ['$where', 'a.$gt', 'a[$ne]', 'a]', '__proto__', 'constructor.x', ' a']) {
      expect(failure(() => parseFilters(flexible, { [key]: '1' })).status, key).to.equal(400);
    }
    expect(parseFilters(flexible, { a: '{"$ne":null}' })).to.deep.equal([{ a: { $eq: '{"$ne":null}' } }]);
  });
});

describe('data API sort, projection and paths', () => {
  it('parses sort keys and always ends with _id', () => {
    expect(parseSort(schema, '-n,s')).to.deep.equal([
      { path: 'n', dir: -1 },
      { path: 's', dir: 1 },
      { path: '_id', dir: 1 },
    ]);
    expect(parseSort(schema, '-_id')).to.deep.equal([{ path: '_id', dir: -1 }]);
    expect(parseSort(schema, undefined)).to.deep.equal([{ path: '_id', dir: 1 }]);
  });

  it('list options: defaults, clamps, populate maximum', () => {
    const options = parseListOptions(schema, {});
    expect(options).to.include({
      page: 1,
      limit: 100,
      meta: true,
      includeDeleted: false,
      total: false,
      count: false,
    });
    expect(parseListOptions(schema, { limit: 5000 }).limit).to.equal(1000);
    expect(parseListOptions(schema, { limit: 5000, populate: 'r' }).limit).to.equal(100);
    expect(failure(() => parseListOptions(schema, { limit: 0 })).status).to.equal(400);
  });

  it('projection: fields with _id, meta=false, extra paths trimmed after use', () => {
    const picked = buildProjection(schema, { fields: 'n,o.x,o', meta: true, needed: ['d', '_id'] });
    expect(picked.db).to.deep.equal({ _id: 1, n: 1, o: 1, d: 1 });
    const doc: Record<string, unknown> = { _id: '1', n: 1, o: { x: 1 }, d: new Date() };
    picked.trim(doc);
    expect(doc).to.deep.equal({ _id: '1', n: 1, o: { x: 1 } });
    const bare = buildProjection(schema, { meta: false, needed: ['createdAt', '_id'] });
    expect(bare.db).to.deep.equal({ isDeleted: 0, deletedAt: 0, updatedAt: 0 });
    const row: Record<string, unknown> = { _id: '1', createdAt: new Date(), n: 1 };
    bare.trim(row);
    expect(row).to.deep.equal({ _id: '1', n: 1 });
    expect(buildProjection(schema, { meta: true }).db).to.equal(undefined);
  });

  it('system fields are typed; trash fields cannot be filtered or sorted', () => {
    expect(resolvePath(schema, 'createdAt', 'filter', 'x').type).to.equal('Date');
    expect(resolvePath(schema, '_id', 'sort', 'x').type).to.equal('ObjectId');
    expect(resolvePath(schema, 'deletedAt', 'fields', 'x').type).to.equal('Date');
    expect(failure(() => resolvePath(schema, 'isDeleted', 'sort', 'x')).status).to.equal(400);
  });
});

describe('data API cursor', () => {
  const keys: SortKey[] = [
    { path: 'n', dir: -1 },
    { path: 'd', dir: 1 },
    { path: '_id', dir: 1 },
  ];

  it('round-trips dates, object ids and plain values', () => {
    const date = new Date('2024-05-01T00:00:00Z');
    const cursor = encodeCursor(keys, { _id: '0123456789abcdef01234567', n: 3, d: date });
    const values = decodeCursor(cursor, keys);
    expect(values[0]).to.equal(3);
    expect(values[1]).to.deep.equal(date);
    expect((values[2] as ObjectId).toHexString()).to.equal('0123456789abcdef01234567');
  });

  it('refuses a cursor of another sort, malformed ones and operator payloads', () => {
    const cursor = encodeCursor(keys, { _id: '0123456789abcdef01234567', n: 3 });
    expect(failure(() => decodeCursor(cursor, [{ path: '_id', dir: 1 }])).code).to.equal('INVALID_CURSOR');
    for (const payload of [
      { s: '-n,d,_id', v: [{ $gt: 1 }, null, { o: 'x' }] },
      { s: '-n,d,_id', v: [1, 2] },
      'x',
      null,
    ]) {
      const forged = Buffer.from(JSON.stringify(payload)).toString('base64url');
      expect(failure(() => decodeCursor(forged, keys)).code).to.equal('INVALID_CURSOR');
    }
    expect(failure(() => decodeCursor('%%%', keys)).code).to.equal('INVALID_CURSOR');
  });

  it('builds "strictly after" across keys, with nulls sorted first', () => {
    const id = new ObjectId('0123456789abcdef01234567');
    expect(
      keysetCondition(
        [
          { path: 'a', dir: 1 },
          { path: '_id', dir: 1 },
        ],
        [5, id],
      ),
    ).to.deep.equal({
      $or: [{ a: { $gt: 5 } }, { $and: [{ a: { $eq: 5 } }, { _id: { $gt: id } }] }],
    });
    expect(
      keysetCondition(
        [
          { path: 'a', dir: -1 },
          { path: '_id', dir: 1 },
        ],
        [null, id],
      ),
    ).to.deep.equal({
      $and: [{ a: { $eq: null } }, { _id: { $gt: id } }],
    });
    expect(
      keysetCondition(
        [
          { path: 'a', dir: 1 },
          { path: '_id', dir: 1 },
        ],
        [null, id],
      ),
    ).to.deep.equal({
      $or: [{ a: { $ne: null } }, { $and: [{ a: { $eq: null } }, { _id: { $gt: id } }] }],
    });
    expect(
      keysetCondition(
        [
          { path: 'a', dir: -1 },
          { path: '_id', dir: -1 },
        ],
        [2, id],
      ),
    ).to.deep.equal({
      $or: [{ $or: [{ a: { $lt: 2 } }, { a: null }] }, { $and: [{ a: { $eq: 2 } }, { _id: { $lt: id } }] }],
    });
  });
});
