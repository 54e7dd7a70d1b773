// Pure logic of realtime filters: the list's filter parameters evaluated in memory against
// documents in their wire form, with MongoDB's semantics for missing fields and arrays.
import { expect } from 'chai';
import { compileFilters } from '../../src/services/realtime/matcher.js';
import type { RegexRunner } from '../../src/services/realtime/regex-budget.js';
import type { CollectionDef } from '../../src/services/types.js';
import { collectionDef } from '../helpers/collection-def.js';

const def = collectionDef;
/** Without a budget: the budget has tests of its own (realtime-regex-budget.test.ts). */
const run: RegexRunner = (re, text) => re.test(text);

const schema = def('schema', [
  { name: 'n', type: 'Number' },
  { name: 'd', type: 'Date' },
  { name: 'b', type: 'Boolean' },
  { name: 's', type: 'String' },
  { name: 'r', type: 'Ref', ref: 'others' },
  { name: 'tags', type: 'Array', items: { type: 'String' } },
  { name: 'o', type: 'Object', fields: [{ name: 'x', type: 'Number' }] },
]);

const matches = (d: CollectionDef, query: Record<string, string>, doc: Record<string, unknown>) =>
  compileFilters(d, query, run)!(doc);

describe('realtime filters in memory', () => {
  it('has no predicate without filters', () => {
    expect(compileFilters(schema, {}, run)).to.equal(undefined);
  });

  it('compares typed values: numbers, booleans, dates as ISO strings, ids as hex', () => {
    expect(matches(schema, { n_gte: '10' }, { n: 10 })).to.equal(true);
    expect(matches(schema, { n_gt: '10' }, { n: 10 })).to.equal(false);
    expect(matches(schema, { n_lt: '10' }, { n: '5' })).to.equal(false); // another type never compares
    expect(matches(schema, { b: 'true' }, { b: true })).to.equal(true);
    expect(matches(schema, { d_lt: '2030-01-01' }, { d: '2029-12-31T23:00:00.000Z' })).to.equal(true);
    expect(matches(schema, { d_lt: '2030-01-01' }, { d: '2030-01-02T00:00:00.000Z' })).to.equal(false);
    expect(matches(schema, { d: '2030-01-01T00:00:00.000Z' }, { d: '2030-01-01T00:00:00.000Z' })).to.equal(
      true,
    );
    const id = '65f1c2a4b7e8d90012345678';
    expect(matches(schema, { _id: id.toUpperCase() }, { _id: id })).to.equal(true);
    expect(matches(schema, { r: id }, { r: id })).to.equal(true);
  });

  it('treats missing fields as MongoDB does', () => {
    expect(matches(schema, { s_ne: 'a' }, {})).to.equal(true);
    expect(matches(schema, { s: 'a' }, {})).to.equal(false);
    expect(matches(schema, { s_exists: 'false' }, {})).to.equal(true);
    expect(matches(schema, { s_exists: 'true' }, { s: null })).to.equal(true);
    expect(matches(schema, { n_in: '1,2' }, {})).to.equal(false);
  });

  it('matches arrays by any item, nested paths through objects and arrays', () => {
    expect(matches(schema, { tags: 'red' }, { tags: ['blue', 'red'] })).to.equal(true);
    expect(matches(schema, { tags_ne: 'red' }, { tags: ['blue', 'red'] })).to.equal(false);
    expect(matches(schema, { tags_in: 'green,blue' }, { tags: ['blue'] })).to.equal(true);
    expect(matches(schema, { 'o.x_gte': '3' }, { o: { x: 4 } })).to.equal(true);
    const flexible = def('flexible');
    expect(matches(flexible, { 'items.qty_gt': '5' }, { items: [{ qty: 1 }, { qty: 9 }] })).to.equal(true);
    expect(matches(flexible, { 'items.qty_gt': '5' }, { items: [{ qty: 1 }] })).to.equal(false);
  });

  it('evaluates flexible-mode values as the list does: either form for equality, numbers for ranges', () => {
    const flexible = def('flexible');
    expect(matches(flexible, { price: '5' }, { price: 5 })).to.equal(true);
    expect(matches(flexible, { price: '5' }, { price: '5' })).to.equal(true);
    expect(matches(flexible, { price_gt: '4' }, { price: 5 })).to.equal(true);
    expect(matches(flexible, { done: 'true' }, { done: true })).to.equal(true);
  });

  it('matches regular expressions case-insensitively, on text only', () => {
    expect(matches(schema, { s_regex: '^ab' }, { s: 'ABC' })).to.equal(true);
    expect(matches(schema, { s_regex: '^ab' }, { s: 'cab' })).to.equal(false);
  });

  it('runs regular expressions in linear time (RE2): no catastrophic backtracking', () => {
    const started = performance.now();
    const evil = compileFilters(schema, { s_regex: '^(a+)+$' }, run)!;
    expect(evil({ s: `${'a'.repeat(40)}!` })).to.equal(false);
    expect(evil({ s: `${'a'.repeat(100_000)}!` })).to.equal(false);
    expect(evil({ s: 'A'.repeat(40) })).to.equal(true);
    expect(matches(schema, { s_regex: '(x+x+)+y' }, { s: 'x'.repeat(10_000) })).to.equal(false);
    // A backtracking engine takes hours on the first document alone.
    expect(performance.now() - started).to.be.below(200);
  });

  it('refuses what RE2 cannot run (backreferences, lookaround) with a 400 naming the filter', () => {
    for (const pattern of ['(a)\\1', 'a(?=b)', '(?<=a)b', '(?!a)']) {
      const err = (() => {
        try {
          compileFilters(schema, { s_regex: pattern }, run);
        } catch (e) {
          return e as { status: number; code: string; message: string };
        }
      })();
      expect(err, pattern).to.include({ status: 400, code: 'INVALID_REGEX' });
      expect(err!.message).to.include('Invalid filter "s_regex"');
      expect(err!.message).to.include('backreferences and lookaround are not supported');
    }
  });

  it('requires every filter to hold', () => {
    const query = { n_gte: '1', s: 'x' };
    expect(matches(schema, query, { n: 2, s: 'x' })).to.equal(true);
    expect(matches(schema, query, { n: 2, s: 'y' })).to.equal(false);
  });
});
