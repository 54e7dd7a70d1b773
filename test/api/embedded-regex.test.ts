// `_regex` and pipeline patterns on the embedded database (mongo-java-server, EMBEDDED_DATABASE):
// its java.util.regex backtracks with no time limit, so a pattern that could blow up (a repeated
// group that repeats or alternates inside) is a 400 before any query runs; ordinary patterns work.
import { expect } from 'chai';
import { startDataSuite, type DataSuite } from './data-helpers.js';

describe('regular expressions on the embedded database', () => {
  let s: DataSuite;
  before(async () => {
    s = await startDataSuite('embedded_regex', { EMBEDDED_DATABASE: 'true' });
    await s.collection({ name: 'items', mode: 'schema', fields: [{ name: 'name', type: 'String' }] });
    // The text a catastrophic pattern would backtrack on for minutes.
    expect((await s.secret.post('/api/data/items', { name: `${'a'.repeat(40)}!` })).status).to.equal(201);
    expect((await s.secret.post('/api/data/items', { name: 'Crowbar' })).status).to.equal(201);
  });
  after(() => s?.close());

  const CATASTROPHIC = ['^(a+)+$', '(a|aa)*$', '^(?:a*b?)+$', '(x+x+){2,}y', '((a)+)*!?$'];

  it('refuses a repeated group that repeats or alternates inside, in filters (400 INVALID_REGEX)', async () => {
    for (const pattern of CATASTROPHIC) {
      const started = Date.now();
      const res = await s.publishable.get('/api/data/items', { query: { name_regex: pattern } });
      expect(res.status, `${pattern}: ${res.text}`).to.equal(400);
      expect(res.body.code).to.equal('INVALID_REGEX');
      expect(res.body.message).to.include('embedded database');
      expect(Date.now() - started, 'refused before the database runs it').to.be.below(2000);
    }
  });

  it('refuses more than two unbounded repetitions, whose time grows as a power of the value (400)', async () => {
    // Each ran for more than 3 s on a 1,000-character value in java.util.regex.
    for (const pattern of ['a*a*a*b', '.*a.*a.*b', '\\w*\\w*\\w*\\w*!', '[a-z]+[0-9]+[a-z]+!']) {
      const res = await s.publishable.get('/api/data/items', { query: { name_regex: pattern } });
      expect(res.status, `${pattern}: ${res.text}`).to.equal(400);
      expect(res.body.code).to.equal('INVALID_REGEX');
      expect(res.body.message).to.include('more than two unbounded repetitions');
    }
    const piped = await s.secret.post('/api/data/items/aggregate', {
      pipeline: [{ $match: { name: { $regex: '.*a.*a.*b' } } }],
    });
    expect(piped.status, piped.text).to.equal(400);
  });

  it('refuses them in aggregation pipelines ($match $regex and $regexMatch)', async () => {
    for (const pipeline of [
      [{ $match: { name: { $regex: '^(a+)+$' } } }],
      [{ $match: { $expr: { $regexMatch: { input: '$name', regex: '(a|aa)*$' } } } }],
    ]) {
      const res = await s.secret.post('/api/data/items/aggregate', { pipeline });
      expect(res.status, res.text).to.equal(400);
      expect(res.body.code).to.equal('INVALID_REGEX');
    }
  });

  it('runs ordinary patterns', async () => {
    for (const [pattern, expected] of [
      ['^c', ['Crowbar']],
      ['a{40}!$', [`${'a'.repeat(40)}!`]],
      ['^(crow)bar$', ['Crowbar']],
      ['(foo)+|bar', ['Crowbar']],
      ['^c.*o.*r$', ['Crowbar']],
    ] as const) {
      const res = await s.publishable.get('/api/data/items', { query: { name_regex: pattern } });
      expect(res.status, `${pattern}: ${res.text}`).to.equal(200);
      expect(res.body.data.map((d: { name: string }) => d.name)).to.deep.equal(expected);
    }
  });
});
