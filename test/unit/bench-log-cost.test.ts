// The estimate of `npm run bench`'s request log section (scripts/bench/log-cost.ts): the
// geometric mean of the pairs' ratios and its 95 % interval, Student's t over the logarithms.
import { expect } from 'chai';
import { estimate } from '../../scripts/bench/log-cost.js';

describe('request log cost estimate (npm run bench)', () => {
  it('is the geometric mean of the ratios, minus one', () => {
    const e = estimate([1.1, 1.1, 1.1, 1.1]);
    expect(e.change).to.be.closeTo(0.1, 1e-12);
    // No spread, no width.
    expect(e.low).to.be.closeTo(0.1, 1e-12);
    expect(e.high).to.be.closeTo(0.1, 1e-12);
    // A ratio and its inverse cancel: no change, an interval on both sides of it.
    const even = estimate([0.9, 1 / 0.9, 0.9, 1 / 0.9]);
    expect(even.change).to.be.closeTo(0, 1e-12);
    expect(even.low).to.be.below(0);
    expect(even.high).to.be.above(0);
    expect((1 + even.low) * (1 + even.high)).to.be.closeTo(1, 1e-12);
  });

  it('takes Student\u2019s t for the number of pairs: wide with few, near the normal with many', () => {
    const logs = [Math.log(1.05), Math.log(0.95)];
    const sd = Math.abs(logs[0]! - logs[1]!) / Math.SQRT2;
    const mean = (logs[0]! + logs[1]!) / 2;
    const two = estimate([1.05, 0.95]);
    expect(two.high).to.be.closeTo(Math.exp(mean + (12.706 * sd) / Math.SQRT2) - 1, 1e-9);
    // 61 pairs (60 degrees of freedom): t = 2.000.
    const many = Array.from({ length: 61 }, (_, i) => (i % 2 ? 1.05 : 0.95));
    const m = many.map(Math.log);
    const mMean = m.reduce((a, b) => a + b, 0) / m.length;
    const mSd = Math.sqrt(m.reduce((a, b) => a + (b - mMean) ** 2, 0) / (m.length - 1));
    expect(estimate(many).high).to.be.closeTo(Math.exp(mMean + (2 * mSd) / Math.sqrt(61)) - 1, 1e-9);
    // Between two rows of the table, interpolated: 15 degrees of freedom, halfway from 10 to 20.
    const sixteen = Array.from({ length: 16 }, (_, i) => (i % 2 ? 1.05 : 0.95));
    const s = sixteen.map(Math.log);
    const sMean = s.reduce((a, b) => a + b, 0) / s.length;
    const sSd = Math.sqrt(s.reduce((a, b) => a + (b - sMean) ** 2, 0) / (s.length - 1));
    const t = (2.228 + 2.086) / 2;
    expect(estimate(sixteen).high).to.be.closeTo(Math.exp(sMean + (t * sSd) / 4) - 1, 1e-9);
  });

  it('leaves out ratios that are not numbers (a measure without CPU time)', () => {
    expect(estimate([1.2, Number.NaN, 1.2]).change).to.be.closeTo(0.2, 1e-12);
  });
});
