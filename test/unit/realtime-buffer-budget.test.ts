// The process-wide bound on unsent realtime bytes (src/services/realtime/buffer-budget.ts): stale
// figures of other streams are measured again before the bound is declared passed, at most every
// 100 ms, and a stream that ends gives its bytes back.
import { expect } from 'chai';
import { BufferBudget } from '../../src/services/realtime/buffer-budget.js';

describe('realtime: the process’s unsent-bytes budget', () => {
  it('measures the others again before saying the process is over its bound', () => {
    let t = 0;
    const budget = new BufferBudget(1000, () => t);
    const a = {};
    const b = {};
    let aNow = 600;
    expect(budget.set(a, 600, () => aNow)).to.equal(true);
    // a's reader took everything since: b's 700 fits once a is measured again.
    aNow = 0;
    t = 200;
    expect(budget.set(b, 700, () => 700)).to.equal(true);
    expect(budget.bytes).to.equal(700);
    // Really over: a holds 600 again, and measuring confirms it.
    aNow = 600;
    t = 400;
    expect(budget.set(a, 600, () => aNow)).to.equal(false);
    // Within 100 ms of the last measure the figures are trusted.
    aNow = 0;
    t = 450;
    expect(budget.set(b, 700, () => 700)).to.equal(false);
    budget.remove(a);
    expect(budget.bytes).to.equal(700);
    expect(budget.set(b, 700, () => 700)).to.equal(true);
  });
});
