// Filter values are parsed in linear time: a long adversarial value (a digit run that almost
// looks like a number) must not block the event loop. The bound is a guard against quadratic
// blow-up with a wide margin, not a benchmark.
import { expect } from 'chai';
import { parseFilters } from '../../src/services/data/filters.js';
import type { CollectionDef } from '../../src/services/types.js';

const flexible: CollectionDef = {
  id: 'c',
  projectId: 'p',
  name: 'things',
  mode: 'flexible',
  fields: [{ name: 'n', type: 'Number' }],
  rls: { enabled: false, mode: 'public-read', ownerField: 'userId' },
  createdAt: new Date(0),
  updatedAt: new Date(0),
};

describe('filter value parsing speed', () => {
  it('handles long almost-numeric values in linear time', () => {
    const worst = [
      '1'.repeat(8_000) + 'x',
      '1'.repeat(8_000) + 'e',
      '1'.repeat(4_000) + '.' + '1'.repeat(4_000) + 'x',
    ];
    const started = process.hrtime.bigint();
    for (const value of worst) {
      // Untyped paths test every value against the number pattern (equality and ranges).
      const [eq, gt] = parseFilters(flexible, { free: value, free_gt: value });
      expect(eq).to.deep.equal({ free: { $eq: value } });
      expect(gt).to.deep.equal({ free: { $gt: value } });
    }
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    // Quadratic matching took seconds for these values; linear takes well under a millisecond.
    expect(ms).to.be.below(100);
  });
});
