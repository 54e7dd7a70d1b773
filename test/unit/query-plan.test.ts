import { expect } from 'chai';
import {
  servingIndex,
  shapeOf,
  suggestedIndex,
  type QueryShape,
} from '../../src/services/data/query-plan.js';
import type { IndexKey } from '../../src/services/types.js';

const k = (spec: string): IndexKey[] =>
  spec.split(',').map((part) => {
    const desc = part.startsWith('-');
    return { field: desc ? part.slice(1) : part, direction: desc ? -1 : 1 };
  });
const shape = (equality: string[], range: string[], sort: string): QueryShape => ({
  equality,
  range,
  other: [],
  sort: k(sort),
});

describe('query plan (which index serves a list)', () => {
  it('reads the shape of conditions: equality, range, other; never values', () => {
    const s = shapeOf(
      [
        { status: { $eq: 'open' } },
        { kind: { $in: ['a', 1] } },
        { price: { $gte: 1, $lt: 5 } },
        { title: { $regex: 'x', $options: 'i' } },
        { $or: [{ a: 1 }] },
      ],
      [
        { path: 'createdAt', dir: -1 },
        { path: '_id', dir: 1 },
      ],
    );
    expect(s).to.deep.equal({
      equality: ['kind', 'status'],
      range: ['price'],
      other: ['title'],
      sort: k('-createdAt,_id'),
    });
    expect(JSON.stringify(s)).not.to.include('open');
  });

  it('a list in _id order without filters is served by _id_ and needs no index', () => {
    const s = shape([], [], '_id');
    expect(servingIndex([], s)).to.deep.equal({ index: '_id_', filterServed: true, sortServed: true });
    expect(suggestedIndex(s)).to.equal(null);
    expect(suggestedIndex(shape([], [], '-_id'))).to.equal(null);
  });

  it('no index: nothing serves an equality filter; the suggestion is its field', () => {
    const s = shape(['status'], [], '_id');
    expect(servingIndex([], s)).to.deep.equal({ index: null, filterServed: false, sortServed: true });
    expect(suggestedIndex(s)).to.deep.equal(k('status'));
    expect(servingIndex([{ name: 'st', keys: k('status') }], s)).to.deep.equal({
      index: 'st',
      filterServed: true,
      sortServed: true,
    });
  });

  it('equality, sort, range (ESR): the suggestion serves both, the wrong order serves less', () => {
    const s = shape(['status'], ['price'], '-createdAt,_id');
    expect(suggestedIndex(s)).to.deep.equal(k('status,-createdAt,_id,price'));
    const esr = { name: 'esr', keys: k('status,-createdAt,_id,price') };
    expect(servingIndex([esr], s)).to.deep.equal({ index: 'esr', filterServed: true, sortServed: true });
    // All directions reversed is the same order read backwards.
    const reversed = { name: 'rev', keys: k('status,createdAt,-_id,price') };
    expect(servingIndex([reversed], s)).to.include({ index: 'rev', sortServed: true });
    // Mixed directions do not give the order.
    const mixed = { name: 'mixed', keys: k('status,createdAt,_id') };
    expect(servingIndex([mixed], s)).to.include({ sortServed: false });
    // Equality then range: the filter is served, the sort is not.
    const er = { name: 'er', keys: k('status,price') };
    expect(servingIndex([er], s)).to.deep.equal({ index: 'er', filterServed: true, sortServed: false });
    // The full one wins over the partial ones.
    expect(servingIndex([er, mixed, esr], s).index).to.equal('esr');
  });

  it('an index whose first key is not asked for does not serve', () => {
    const s = shape(['status'], [], '_id');
    expect(servingIndex([{ name: 'x', keys: k('owner,status') }], s).index).to.equal(null);
  });

  it('a sort alone is served by an index in its order (the tie-break included)', () => {
    const s = shape([], [], '-createdAt,_id');
    expect(servingIndex([{ name: 'c', keys: k('-createdAt') }], s).sortServed).to.equal(false);
    expect(servingIndex([{ name: 'c', keys: k('-createdAt,_id') }], s)).to.deep.equal({
      index: 'c',
      filterServed: true,
      sortServed: true,
    });
  });

  it('a range on a sort key is bounded in the ordered scan: no second key for it', () => {
    const s = shape(['status'], ['score'], '-score,_id');
    expect(suggestedIndex(s)).to.deep.equal(k('status,-score,_id'));
    expect(servingIndex([{ name: 'i', keys: k('status,-score,_id') }], s)).to.deep.equal({
      index: 'i',
      filterServed: true,
      sortServed: true,
    });
  });

  it('a range alone is served by an index starting with its field', () => {
    const s = shape([], ['price'], '_id');
    expect(servingIndex([{ name: 'p', keys: k('price') }], s)).to.deep.equal({
      index: 'p',
      filterServed: true,
      sortServed: true,
    });
    expect(suggestedIndex(s)).to.deep.equal(k('price'));
  });
});
