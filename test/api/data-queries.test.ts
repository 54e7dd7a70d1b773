// Reading lists over HTTP: every filter suffix with values typed by the schema (and the flexible
// mode's rules), combined filters, sort, page/limit bounds, cursor paging, fields, meta, trash,
// count, total and populate, and every error message of the query parameters.
import { expect } from 'chai';
import { startDataSuite, type DataSuite } from './data-helpers.js';
import { USER_BASE_FIELDS } from '../helpers/user-auth.js';

describe('Data API: list queries', () => {
  let s: DataSuite;
  const ids: Record<string, string> = {};
  const categories: Record<string, string> = {};

  const list = async (query: Record<string, string>, client = s.publishable, collection = 'items') => {
    const res = await client.get(`/api/data/${collection}`, { query });
    expect(res.status, res.text).to.equal(200);
    return res.body;
  };
  const names = async (query: Record<string, string>) =>
    ((await list({ sort: 'name', ...query })).data as any[]).map((d) => d.name);
  const failure = async (query: Record<string, string>, collection = 'items') => {
    const res = await s.publishable.get(`/api/data/${collection}`, { query });
    expect(res.status, res.text).to.equal(400);
    expect(res.body.success).to.equal(false);
    return res.body;
  };

  before(async () => {
    s = await startDataSuite('data_queries');
    await s.collection({ name: 'categories', mode: 'schema', fields: [{ name: 'label', type: 'String' }] });
    await s.collection({
      name: 'items',
      mode: 'schema',
      fields: [
        { name: 'name', type: 'String', required: true },
        { name: 'price', type: 'Number' },
        { name: 'active', type: 'Boolean' },
        { name: 'releasedAt', type: 'Date' },
        { name: 'category', type: 'Ref', ref: 'categories' },
        { name: 'related', type: 'Array', items: { type: 'Ref', ref: 'categories' } },
        { name: 'owner', type: 'Ref', ref: 'users' },
        { name: 'tags', type: 'Array', items: { type: 'String' } },
        { name: 'meta', type: 'Object', fields: [{ name: 'rating', type: 'Number' }] },
        { name: 'sold_in', type: 'String' },
      ],
    });
    await s.collection({ name: 'loose', mode: 'flexible', fields: [{ name: 'n', type: 'Number' }] });
    await s.collection({ name: 'users', mode: 'schema', fields: USER_BASE_FIELDS });

    for (const label of ['tools', 'toys', 'gone']) {
      categories[label] = (await s.secret.post('/api/data/categories', { label })).body.data._id;
    }
    await s.secret.delete(`/api/data/categories/${categories.gone}`);
    const { ObjectId } = await import('mongodb');
    const userId = new ObjectId();
    await s.app.deps.db
      .project(s.fx.project.id)
      .collection('users')
      .insertOne({
        _id: userId,
        email: 'ada@example.com',
        password: '$argon2id$v=19$secret-hash',
        name: 'Ada',
        refreshTokens: ['secret'],
        isDeleted: false,
        createdAt: new Date(),
        updatedAt: new Date(),
      });
    categories.user = userId.toHexString();

    const items = [
      {
        name: 'anvil',
        price: 100,
        active: true,
        releasedAt: '2024-01-10',
        category: categories.tools,
        tags: ['heavy', 'metal'],
        meta: { rating: 4 },
        owner: categories.user,
      },
      {
        name: 'ball',
        price: 5,
        active: true,
        releasedAt: '2024-06-01',
        category: categories.toys,
        tags: ['round'],
        meta: { rating: 5 },
        related: [categories.tools, categories.gone],
      },
      {
        name: 'Crowbar',
        price: 25.5,
        active: false,
        releasedAt: '2023-12-31T23:00:00Z',
        category: categories.tools,
        tags: ['metal'],
        sold_in: 'x',
      },
      { name: 'doll', price: 15, active: false, category: categories.gone },
      { name: 'easel' },
    ];
    for (const item of items) ids[item.name] = (await s.secret.post('/api/data/items', item)).body.data._id;
    const trashed = (await s.secret.post('/api/data/items', { name: 'zombie', price: 1 })).body.data._id;
    await s.secret.delete(`/api/data/items/${trashed}`);
    ids.zombie = trashed;

    for (const doc of [
      { n: 5, k: 'a' },
      { n: '5', k: 'b' },
      { n: 10, k: 'c' },
      { n: 'abc', k: 'd' },
      { flag: true, k: 'e' },
      { flag: 'true', k: 'f' },
    ]) {
      await s.secret.post('/api/data/loose', doc);
    }
  });
  after(() => s.close());

  describe('filters on a schema collection', () => {
    it('equality (no suffix), typed by the field', async () => {
      expect(await names({ name: 'ball' })).to.deep.equal(['ball']);
      expect(await names({ price: '5' })).to.deep.equal(['ball']);
      expect(await names({ active: 'false' })).to.deep.equal(['Crowbar', 'doll']);
      expect(await names({ releasedAt: '2024-01-10' })).to.deep.equal(['anvil']);
      expect(await names({ category: categories.tools!.toUpperCase() })).to.deep.equal(['Crowbar', 'anvil']);
      expect(await names({ _id: ids.ball! })).to.deep.equal(['ball']);
      expect(await names({ tags: 'metal' })).to.deep.equal(['Crowbar', 'anvil']);
      expect(await names({ 'meta.rating': '5' })).to.deep.equal(['ball']);
    });

    it('_ne', async () => {
      expect(await names({ active_ne: 'true' })).to.deep.equal(['Crowbar', 'doll', 'easel']);
      expect(await names({ price_ne: '5' })).to.deep.equal(['Crowbar', 'anvil', 'doll', 'easel']);
    });

    it('_gt, _gte, _lt, _lte compare numbers as numbers and dates as dates', async () => {
      expect(await names({ price_gt: '15' })).to.deep.equal(['Crowbar', 'anvil']);
      expect(await names({ price_gte: '15' })).to.deep.equal(['Crowbar', 'anvil', 'doll']);
      expect(await names({ price_lt: '15' })).to.deep.equal(['ball']);
      expect(await names({ price_lte: '25.5' })).to.deep.equal(['Crowbar', 'ball', 'doll']);
      expect(await names({ releasedAt_gte: '2024-01-01' })).to.deep.equal(['anvil', 'ball']);
      expect(await names({ releasedAt_lt: '2024-01-01T00:00:00Z' })).to.deep.equal(['Crowbar']);
      expect(await names({ releasedAt_gt: String(Date.UTC(2024, 0, 10)) })).to.deep.equal(['ball']);
      expect(await names({ 'meta.rating_gte': '4.5' })).to.deep.equal(['ball']);
      const since = (await list({ name: 'anvil' })).data[0].createdAt;
      expect(await names({ createdAt_gte: since, price_gt: '20' })).to.include('Crowbar');
    });

    it('combines several filters (AND), also on one field', async () => {
      expect(await names({ price_gte: '5', price_lt: '50', active: 'true' })).to.deep.equal(['ball']);
    });

    it('_in takes a comma-separated list, typed', async () => {
      expect(await names({ name_in: 'ball,doll,nothing' })).to.deep.equal(['ball', 'doll']);
      expect(await names({ price_in: '5,100' })).to.deep.equal(['anvil', 'ball']);
      expect(await names({ _id_in: `${ids.anvil},${ids.easel}` })).to.deep.equal(['anvil', 'easel']);
    });

    it('a field whose whole name ends like a suffix is matched as that field', async () => {
      expect(await names({ sold_in: 'x' })).to.deep.equal(['Crowbar']);
    });

    it('_exists true/false', async () => {
      expect(await names({ price_exists: 'false' })).to.deep.equal(['easel']);
      expect(await names({ tags_exists: 'true' })).to.deep.equal(['Crowbar', 'anvil', 'ball']);
    });

    it('_regex is case-insensitive', async () => {
      expect(await names({ name_regex: '^c' })).to.deep.equal(['Crowbar']);
      expect(await names({ name_regex: 'L{2}' })).to.deep.equal(['ball', 'doll']);
    });

    it('reports every invalid filter with a 400 naming it', async () => {
      const cases: [Record<string, string>, string][] = [
        [{ nope: '1' }, 'Invalid filter "nope": nope is not a field of this collection'],
        [{ nope_gt: '1' }, 'Invalid filter "nope_gt": nope is not a field of this collection'],
        [{ 'meta.nope': '1' }, 'Invalid filter "meta.nope": meta.nope is not a field of this collection'],
        [{ price_gt: 'cheap' }, 'Invalid filter "price_gt": "cheap" is not a number'],
        [{ price: '1e999' }, 'Invalid filter "price": "1e999" is not a number'],
        [{ active: 'yes' }, 'Invalid filter "active": "yes" is not true or false'],
        [
          { releasedAt_gte: 'last week' },
          'Invalid filter "releasedAt_gte": "last week" is not a date (ISO 8601 or epoch milliseconds)',
        ],
        [{ _id: 'abc' }, 'Invalid filter "_id": "abc" is not a valid id'],
        [{ category: 'abc' }, 'Invalid filter "category": "abc" is not a valid id'],
        [{ price_in: '1,two' }, 'Invalid filter "price_in": "two" is not a number'],
        [{ name_exists: 'maybe' }, 'Invalid filter "name_exists": use true or false, not "maybe"'],
        [
          { price_regex: '1' },
          'Invalid filter "price_regex": _regex applies to text fields, and price is a Number',
        ],
        [
          { name_regex: 'a'.repeat(129) },
          'Invalid filter "name_regex": the regular expression is longer than 128 characters',
        ],
        [
          { isDeleted: 'true' },
          'Invalid filter "isDeleted": isDeleted is managed by the service and cannot be used here',
        ],
        [
          { deletedAt_exists: 'true' },
          'Invalid filter "deletedAt_exists": deletedAt is managed by the service and cannot be used here',
        ],
        [
          { $where: '1' },
          'Invalid filter "$where": field names cannot contain "$" (operators are not accepted)',
        ],
        [
          { 'name[$ne]': 'x' },
          'Invalid filter "name[$ne]": bracket syntax is not supported (use suffixes such as _ne or _gt)',
        ],
        [{ 'createdAt.x': '1' }, 'Invalid filter "createdAt.x": createdAt has no sub-fields'],
      ];
      for (const [query, message] of cases) {
        const body = await failure(query);
        expect(body.message, JSON.stringify(query)).to.equal(message);
      }
      const invalidRegex = await failure({ name_regex: '(unclosed' });
      expect(invalidRegex.message).to.match(/^Invalid filter "name_regex": invalid regular expression \(/);
      expect(invalidRegex.code).to.equal('INVALID_REGEX');
      // Accepted by JavaScript, refused by the database's regex engine: still a 400.
      for (const pattern of ['\\p{Foo}', '\\k']) {
        expect((await failure({ name_regex: pattern })).message, pattern).to.match(/^Invalid (query|filter)/);
      }
      const exactly128 = await list({ name_regex: `^${'a?'.repeat(63)}a` });
      expect(exactly128.data).to.be.an('array');
    });

    it('refuses a filter given twice', async () => {
      const res = await s.publishable.get('/api/data/items?name=a&name=b');
      expect(res.status).to.equal(400);
      expect(res.body.message).to.equal('Validation failed: query.name must be a string');
    });
  });

  describe('filters on a flexible collection', () => {
    const keys = async (query: Record<string, string>) =>
      ((await list({ sort: 'k', ...query }, s.publishable, 'loose')).data as any[]).map((d) => d.k);

    it('a numeric-looking value matches the number or the string for equality', async () => {
      expect(await keys({ n: '5' })).to.deep.equal(['a', 'b']);
      expect(await keys({ n_ne: '5' })).to.deep.equal(['c', 'd', 'e', 'f']);
      expect(await keys({ n_in: '5,abc' })).to.deep.equal(['a', 'b', 'd']);
      expect(await keys({ flag: 'true' })).to.deep.equal(['e', 'f']);
    });

    it('and compares as a number for range operators', async () => {
      expect(await keys({ n_gt: '6' })).to.deep.equal(['c']);
      expect(await keys({ n_lte: '10' })).to.deep.equal(['a', 'c']);
      expect(await keys({ n_gte: 'a' })).to.deep.equal(['d']);
    });

    it('accepts unknown fields, still refuses operators and system fields', async () => {
      expect(await keys({ whatever: 'x' })).to.deep.equal([]);
      expect((await failure({ 'n[$gt]': '1' }, 'loose')).code).to.equal('INVALID_FILTER');
      expect((await failure({ isDeleted: 'false' }, 'loose')).code).to.equal('INVALID_FILTER');
      expect((await failure({ n_regex: '[' }, 'loose')).code).to.equal('INVALID_REGEX');
    });
  });

  describe('sort and paging', () => {
    it('sorts by a field, descending with "-", several keys, ties by _id', async () => {
      expect(await names({ sort: '-price', price_exists: 'true' })).to.deep.equal([
        'anvil',
        'Crowbar',
        'doll',
        'ball',
      ]);
      const byActive = (await list({ sort: 'active,-price', active_exists: 'true' })).data.map(
        (d: any) => d.name,
      );
      expect(byActive).to.deep.equal(['Crowbar', 'doll', 'anvil', 'ball']);
      const insertion = (await list({})).data.map((d: any) => d.name);
      expect(insertion).to.deep.equal(['anvil', 'ball', 'Crowbar', 'doll', 'easel']);
    });

    it('reads every form of sort clients send: -field, field:asc|desc|1|-1, comma lists', async () => {
      const byPriceDesc = ['anvil', 'Crowbar', 'doll', 'ball'];
      for (const sort of ['-price', 'price:desc', 'price:DESC', 'price:-1']) {
        expect(await names({ sort, price_exists: 'true' }), sort).to.deep.equal(byPriceDesc);
      }
      for (const sort of ['price', '+price', 'price:asc', 'price:1']) {
        expect(await names({ sort, price_exists: 'true' }), sort).to.deep.equal([...byPriceDesc].reverse());
      }
      const mixed = ['Crowbar', 'doll', 'anvil', 'ball'];
      for (const sort of ['active,-price', 'active:asc,price:desc', 'active:1, -price']) {
        const got = (await list({ sort, active_exists: 'true' })).data.map((d: any) => d.name);
        expect(got, sort).to.deep.equal(mixed);
      }
      const newest = (await list({ sort: 'createdAt:desc' })).data.map((d: any) => d.name);
      expect(newest).to.deep.equal((await list({ sort: '-createdAt' })).data.map((d: any) => d.name));
    });

    it('refuses a sort it cannot read with a 400 naming it, in both modes', async () => {
      expect((await failure({ sort: 'price:down' })).message).to.equal(
        'Invalid sort "price:down": "down" is not a direction (use asc, desc, 1 or -1 after ":")',
      );
      expect((await failure({ sort: 'k:sideways' }, 'loose')).message).to.equal(
        'Invalid sort "k:sideways": "sideways" is not a direction (use asc, desc, 1 or -1 after ":")',
      );
      expect((await failure({ sort: '-price:asc' })).message).to.equal(
        'Invalid sort "-price:asc": give the direction either with "-" or after ":", not both',
      );
      expect((await failure({ sort: ':desc' }, 'loose')).message).to.equal(
        'Invalid sort ":desc": no field named',
      );
      expect((await failure({ sort: 'price:desc,nope:asc' })).message).to.equal(
        'Invalid sort "nope:asc": nope is not a field of this collection',
      );
      expect((await failure({ sort: 'price:desc,-price' })).code).to.equal('INVALID_QUERY');
    });

    it('pages with page and limit, with pagination next to data', async () => {
      const first = await list({ limit: '2' });
      expect(first.data.map((d: any) => d.name)).to.deep.equal(['anvil', 'ball']);
      expect(first.pagination).to.deep.include({ page: 1, limit: 2, hasMore: true });
      expect(first.pagination.nextCursor).to.be.a('string');
      expect(first.pagination).to.not.have.property('total');
      const third = await list({ limit: '2', page: '3' });
      expect(third.data.map((d: any) => d.name)).to.deep.equal(['easel']);
      expect(third.pagination).to.deep.equal({ page: 3, limit: 2, hasMore: false, nextCursor: null });
      const total = await list({ limit: '2', total: 'true', active: 'true' });
      expect(total.pagination.total).to.equal(2);
    });

    it('walks every page with the cursor, for any sort', async () => {
      for (const sort of [
        undefined,
        '-price',
        'price:desc',
        'active:asc,name:-1',
        'active,-name',
        '-releasedAt',
      ]) {
        const seen: string[] = [];
        let cursor: string | null = null;
        let pages = 0;
        do {
          const query: Record<string, string> = { limit: '2', ...(sort ? { sort } : {}) };
          if (cursor) query.cursor = cursor;
          const page = await list(query);
          if (cursor) expect(page.pagination.page).to.equal(null);
          seen.push(...page.data.map((d: any) => d.name));
          cursor = page.pagination.nextCursor;
          pages += 1;
        } while (cursor && pages < 10);
        const all = (await list(sort ? { sort } : {})).data.map((d: any) => d.name);
        expect(seen, String(sort)).to.deep.equal(all);
        expect(seen).to.have.length(5);
      }
    });

    it('defaults to 100, clamps to 1000 (100 with populate), refuses non-integers and values below 1', async () => {
      expect((await list({})).pagination.limit).to.equal(100);
      expect((await list({ limit: '5000' })).pagination.limit).to.equal(1000);
      expect((await list({ limit: '5000', populate: 'category' })).pagination.limit).to.equal(100);
      expect((await failure({ limit: '0' })).message).to.equal('Validation failed: query.limit must be >= 1');
      expect((await failure({ limit: '2.5' })).message).to.equal(
        'Validation failed: query.limit must be an integer',
      );
      expect((await failure({ limit: 'ten' })).message).to.equal(
        'Validation failed: query.limit must be an integer',
      );
      expect((await failure({ page: '0' })).message).to.equal('Validation failed: query.page must be >= 1');
      expect((await failure({ page: '-1' })).message).to.equal('Validation failed: query.page must be >= 1');
    });

    it('reports invalid sort, cursor and paging combinations', async () => {
      expect((await failure({ sort: 'nope' })).message).to.equal(
        'Invalid sort "nope": nope is not a field of this collection',
      );
      expect((await failure({ sort: '-$natural' })).message).to.equal(
        'Invalid sort "-$natural": field names cannot contain "$" (operators are not accepted)',
      );
      expect((await failure({ sort: 'name,,price' })).message).to.equal(
        'Invalid sort: empty item in "name,,price"',
      );
      expect((await failure({ sort: 'name,-name' })).message).to.equal(
        'Invalid sort "name,-name": name appears twice',
      );
      expect((await failure({ sort: 'deletedAt' })).code).to.equal('INVALID_FILTER');
      const { pagination } = await list({ limit: '1', sort: '-price' });
      expect((await failure({ cursor: pagination.nextCursor, sort: 'price' })).message).to.equal(
        'Invalid cursor: it was issued for another sort order; start again from the first page',
      );
      expect((await failure({ cursor: 'garbage' })).code).to.equal('INVALID_CURSOR');
      const forged = Buffer.from(JSON.stringify({ s: '_id', v: [{ $gt: '' }] })).toString('base64url');
      expect((await failure({ cursor: forged })).message).to.equal(
        'Invalid cursor: it is malformed; start again from the first page',
      );
      expect((await failure({ cursor: pagination.nextCursor, sort: '-price', page: '2' })).message).to.equal(
        'Use either page or cursor, not both',
      );
    });
  });

  describe('fields, meta, include_deleted, count', () => {
    it('fields selects the fields, _id always; meta=false drops the metadata', async () => {
      const some = await list({ fields: 'name,meta.rating', name: 'anvil' });
      expect(some.data).to.deep.equal([{ _id: ids.anvil, name: 'anvil', meta: { rating: 4 } }]);
      const sorted = await list({ fields: 'name', sort: '-price', limit: '1' });
      expect(sorted.data).to.deep.equal([{ _id: ids.anvil, name: 'anvil' }]);
      const bare = await list({ meta: 'false', name: 'ball' });
      expect(bare.data[0]).to.not.have.any.keys('isDeleted', 'deletedAt', 'createdAt', 'updatedAt');
      expect(bare.data[0]).to.include({ name: 'ball', price: 5 });
      const both = await list({ meta: 'false', fields: 'name,createdAt', sort: '-createdAt', limit: '1' });
      expect(both.data[0]).to.have.all.keys('_id', 'name');
      expect(both.pagination.nextCursor).to.be.a('string');
      expect((await failure({ fields: 'name,nope' })).message).to.equal(
        'Invalid fields "nope": nope is not a field of this collection',
      );
      expect((await failure({ fields: '$where' })).code).to.equal('INVALID_FILTER');
    });

    it('include_deleted=true adds the trashed documents', async () => {
      expect(await names({ name_in: 'zombie,ball' })).to.deep.equal(['ball']);
      expect(await names({ name_in: 'zombie,ball', include_deleted: 'true' })).to.deep.equal([
        'ball',
        'zombie',
      ]);
    });

    it('count=true answers data.count alone', async () => {
      const res = await s.publishable.get('/api/data/items', { query: { count: 'true', price_gte: '10' } });
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal({ success: true, data: { count: 3 }, message: '' });
      const all = await list({ count: 'true', include_deleted: 'true' });
      expect(all.data).to.deep.equal({ count: 6 });
    });

    it('refuses non-boolean switches', async () => {
      expect((await failure({ meta: 'no' })).message).to.equal(
        'Validation failed: query.meta must be a boolean',
      );
      expect((await failure({ filters: 'x' })).message).to.equal(
        'Validation failed: query.filters must be an object',
      );
    });
  });

  describe('populate', () => {
    it('replaces Ref values by the documents, leaving out trashed and unknown targets', async () => {
      const res = await list({ populate: 'category,related', sort: 'name', name_in: 'anvil,ball,doll' });
      const byName = Object.fromEntries(res.data.map((d: any) => [d.name, d]));
      expect(byName.anvil.category).to.include({ _id: categories.tools, label: 'tools' });
      expect(byName.ball.category).to.include({ _id: categories.toys, label: 'toys' });
      expect(byName.doll.category).to.equal(null);
      expect(byName.ball.related.map((c: any) => c?.label ?? null)).to.deep.equal(['tools', null]);
      const one = await s.publishable.get(`/api/data/items/${ids.anvil}`, {
        query: { populate: 'category', fields: 'name' },
      });
      expect(one.body.data).to.deep.equal({
        _id: ids.anvil,
        name: 'anvil',
        category: one.body.data.category,
      });
      expect(one.body.data.category.label).to.equal('tools');
    });

    it('a populated user never carries the password, internal fields, or (publishable key) the email', async () => {
      const pub = await s.publishable.get(`/api/data/items/${ids.anvil}`, { query: { populate: 'owner' } });
      expect(pub.body.data.owner).to.have.all.keys('_id', 'name', 'createdAt'); // the public profile
      expect(pub.text).to.not.include('argon2');
      expect(pub.text).to.not.include('refreshTokens');
      const sec = await s.secret.get(`/api/data/items/${ids.anvil}`, {
        query: { populate: 'owner', meta: 'false' },
      });
      expect(sec.body.data.owner).to.deep.equal({
        _id: categories.user,
        name: 'Ada',
        email: 'ada@example.com',
      });
    });

    it('refuses populate of a field that is not a Ref', async () => {
      expect((await failure({ populate: 'name' })).message).to.equal(
        'Cannot populate "name": it is not a Ref field of this collection',
      );
      expect((await failure({ populate: 'nope' })).code).to.equal('INVALID_POPULATE');
      const one = await s.publishable.get(`/api/data/items/${ids.anvil}`, { query: { populate: 'price' } });
      expect(one.status).to.equal(400);
    });
  });
});
