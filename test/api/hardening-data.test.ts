// Attacks on the data API, replayed over HTTP with the keys a browser holds: costly pipelines and
// deep pages with the publishable key, `_bsontype` field names, and database error text.
import { expect } from 'chai';
import { startDataSuite, type DataSuite } from './data-helpers.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { authProject, bearer, keyed, newEmail, PASSWORD, signup } from '../helpers/user-auth.js';

describe('hardening: data API', () => {
  let s: DataSuite;
  const aggregate = (pipeline: unknown[]) => s.publishable.post('/api/data/notes/aggregate', { pipeline });
  const refused = async (pipeline: unknown[], code: string, pattern?: RegExp) => {
    const res = await aggregate(pipeline);
    expect(res.status, res.text.slice(0, 300)).to.equal(400);
    expect(res.body.code, res.text.slice(0, 300)).to.equal(code);
    if (pattern) expect(res.body.message).to.match(pattern);
  };

  before(async () => {
    s = await startDataSuite('hardening_data');
    await s.collection({ name: 'notes', mode: 'flexible', fields: [{ name: 'title', type: 'String' }] });
    await s.app.deps.db
      .project(s.fx.project.id)
      .collection('notes')
      .insertMany(
        Array.from({ length: 20 }, (_, i) => ({
          title: `note ${i}`,
          n: 60_000,
          isDeleted: false,
          deletedAt: null,
        })),
      );
  });
  after(() => s.close());

  describe('pipelines with the publishable key', () => {
    const long = 'a'.repeat(129);

    it('caps the pattern of $regex, $regexMatch, $regexFind and $regexFindAll at 128 characters', async () => {
      await refused([{ $match: { title: { $regex: long } } }], 'INVALID_REGEX', /128/);
      for (const op of ['$regexMatch', '$regexFind', '$regexFindAll']) {
        await refused(
          [{ $addFields: { m: { [op]: { input: '$title', regex: long } } } }],
          'INVALID_REGEX',
          /128/,
        );
        await refused(
          [{ $addFields: { m: { [op]: { input: '$title', regex: '$title' } } } }],
          'INVALID_REGEX',
        );
      }
      const ok = await aggregate([{ $match: { title: { $regex: 'a'.repeat(10), $options: 'i' } } }]);
      expect(ok.status, ok.text).to.equal(200);
    });

    it('refuses patterns RE2 cannot run (backreferences, lookaround), as filters and streams do', async () => {
      const unsupported =
        /^Invalid pipeline: stage 0 \$\w+ has an invalid regular expression \(.*backreferences and lookaround are not supported$/;
      await refused([{ $match: { title: { $regex: '(a)\\1' } } }], 'INVALID_REGEX', unsupported);
      for (const op of ['$regexMatch', '$regexFind', '$regexFindAll']) {
        await refused(
          [{ $addFields: { m: { [op]: { input: '$title', regex: '^(?=n)' } } } }],
          'INVALID_REGEX',
          unsupported,
        );
      }
      const ok = await aggregate([{ $match: { title: { $regex: '^(n)(o)+te\\s' } } }]);
      expect(ok.status, ok.text).to.equal(200);
      expect(ok.body.data).to.have.length(20);
    });

    it('caps the number of $lookup stages and their nesting', async () => {
      const lookup = (pipeline: unknown[] = [{ $limit: 1 }]) => ({
        $lookup: { from: 'notes', as: 'j', pipeline },
      });
      await refused(
        [{ $limit: 1 }, ...Array.from({ length: 11 }, () => lookup())],
        'PIPELINE_TOO_COSTLY',
        /at most 10 \$lookup/,
      );
      await refused(
        [
          { $limit: 1 },
          {
            $facet: {
              a: Array.from({ length: 6 }, () => lookup()),
              b: Array.from({ length: 6 }, () => lookup()),
            },
          },
        ],
        'PIPELINE_TOO_COSTLY',
      );
      await refused([lookup([lookup([lookup()])])], 'PIPELINE_TOO_COSTLY', /2 levels/);
      const ok = await aggregate([{ $limit: 1 }, lookup([{ $limit: 1 }, lookup([{ $limit: 1 }])])]);
      expect(ok.status, ok.text).to.equal(200);
    });

    it('refuses a literal $range longer than 10000 elements', async () => {
      await refused([{ $project: { r: { $range: [0, 50_000_000] } } }], 'PIPELINE_TOO_COSTLY', /\$range/);
      const ok = await aggregate([{ $limit: 1 }, { $project: { r: { $range: [0, 100] } } }]);
      expect(ok.status, ok.text).to.equal(200);
      expect(ok.body.data[0].r).to.have.length(100);
    });

    it('caps a $range with a computed bound at 10000 elements, and wants a literal step', async () => {
      const capped = await aggregate([
        { $limit: 1 },
        {
          $project: {
            up: { $range: [0, '$n'] },
            down: { $range: ['$n', 0, -1] },
            few: { $range: [0, '$n', 20_000] },
          },
        },
      ]);
      expect(capped.status, capped.text.slice(0, 300)).to.equal(200);
      const [row] = capped.body.data;
      expect(row.up).to.have.length(10_000);
      expect(row.up[9_999]).to.equal(9_999);
      expect(row.down).to.have.length(10_000);
      expect([row.down[0], row.down[9_999]]).to.deep.equal([60_000, 50_001]);
      expect(row.few).to.deep.equal([0, 20_000, 40_000]);
      // Inside a $lookup's pipeline too.
      const joined = await aggregate([
        { $limit: 1 },
        {
          $lookup: {
            from: 'notes',
            as: 'j',
            pipeline: [{ $limit: 1 }, { $project: { r: { $range: [0, '$n'] } } }],
          },
        },
      ]);
      expect(joined.status, joined.text.slice(0, 300)).to.equal(200);
      expect(joined.body.data[0].j[0].r).to.have.length(10_000);
      await refused(
        [{ $project: { r: { $range: [0, 100, '$n'] } } }],
        'PIPELINE_TOO_COSTLY',
        /literal integer/,
      );
    });

    it('stops reading a result past 8 MiB with a 400', async function () {
      this.timeout(30_000);
      // Computed bounds are capped per array, not per result: the size cap catches the sum.
      const ranges = Object.fromEntries(
        Array.from({ length: 8 }, (_, i) => [`r${i}`, { $range: [0, '$n'] }]),
      );
      await refused([{ $project: ranges }], 'RESULT_TOO_LARGE', /8 MiB/);
    });

    it('refuses _bsontype anywhere in a pipeline with a 400 naming the stage', async () => {
      for (const [pipeline, stage] of [
        [[{ $match: { _bsontype: 'ObjectId' } }], 'stage 0'],
        [[{ $limit: 1 }, { $addFields: { x: { _bsontype: 'Long', low: 1, high: 0 } } }], 'stage 1'],
        [[{ $match: { title: { $in: [{ _bsontype: 'Code', code: 'x' }] } } }], 'stage 0'],
        [[{ $facet: { a: [{ $project: { y: { _bsontype: 'Binary' } } }] } }], 'stage 0'],
        [
          [{ $lookup: { from: 'notes', as: 'j', pipeline: [{ $match: { _bsontype: 'Decimal128' } }] } }],
          'stage 0',
        ],
      ] as [unknown[], string][]) {
        const res = await aggregate(pipeline);
        expect(res.status, res.text.slice(0, 300)).to.equal(400);
        expect(res.body.code).to.equal('INVALID_FIELD_NAME');
        expect(res.body.message).to.equal(
          `Invalid pipeline: ${stage} uses the key "_bsontype", which is reserved`,
        );
      }
    });

    it('answers a pipeline the database refuses in its own words', async () => {
      const res = await aggregate([{ $project: { x: { $noSuchOperator: 1 } } }]);
      expect(res.status, res.text).to.equal(400);
      expect(res.body).to.include({
        code: 'INVALID_PIPELINE',
        message:
          'Invalid pipeline: the database cannot run it; check the stage and operator names and their arguments',
      });
      expect(res.text).not.to.include('noSuchOperator');
    });
  });

  it('refuses pages that skip more than 10000 documents, pointing to cursor paging', async () => {
    const res = await s.publishable.get('/api/data/notes', { query: { page: 1_000_000, limit: 1000 } });
    expect(res.status, res.text).to.equal(400);
    expect(res.body.code).to.equal('PAGE_TOO_DEEP');
    expect(res.body.message).to.match(/cursor/);
    const deepest = await s.publishable.get('/api/data/notes', { query: { page: 11, limit: 1000 } });
    expect(deepest.status, deepest.text).to.equal(200);
  });

  describe('_bsontype as a field name', () => {
    const expectRefused = (res: { status: number; body: any; text: string }, path: string) => {
      expect(res.status, res.text).to.equal(400);
      expect(res.body.code).to.equal('INVALID_FIELD_NAME');
      expect(res.body.message).to.include(path);
    };

    it('is a 400 naming the field on create, update, bulk and nested', async () => {
      expectRefused(
        await s.secret.post('/api/data/notes', { title: 'x', _bsontype: 'ObjectId' }),
        '_bsontype',
      );
      expectRefused(
        await s.secret.post('/api/data/notes', { title: 'x', meta: { _bsontype: 'Long' } }),
        'meta._bsontype',
      );
      expectRefused(
        await s.secret.post('/api/data/notes', { title: 'x', list: [{ _bsontype: 'Code' }] }),
        'list.0._bsontype',
      );
      const doc = (await s.secret.post('/api/data/notes', { title: 'target' })).body.data;
      expectRefused(
        await s.secret.patch(`/api/data/notes/${doc._id}`, { _bsontype: 'ObjectId' }),
        '_bsontype',
      );
      expectRefused(
        await s.secret.put(`/api/data/notes/${doc._id}`, { 'meta._bsontype': 'x' }),
        'meta._bsontype',
      );
      expectRefused(
        await s.secret.post('/api/data/notes/bulk', { documents: [{ title: 'ok' }, { _bsontype: 'Long' }] }),
        '_bsontype',
      );
    });

    describe('in end-user bodies', () => {
      let app: TestApp;
      before(async () => {
        app = await startTestApp('public', 'bsontype_users', { USER_AUTH_SIGNUPS_PER_HOUR: '1000' });
      });
      after(() => app.close());

      it('is a 400 naming the field on sign-up and profile update', async () => {
        const p = await authProject(app, { mode: 'flexible' });
        expectRefused(
          await keyed(p).post('/api/userAuth/signup', {
            email: newEmail(),
            password: PASSWORD,
            _bsontype: 'x',
          }),
          '_bsontype',
        );
        const user = await signup(p);
        expectRefused(
          await bearer(p, user.accessToken).put('/api/userAuth/update-profile', {
            prefs: { _bsontype: 'x' },
          }),
          'prefs._bsontype',
        );
      });
    });
  });
});
