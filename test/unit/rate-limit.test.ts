import { expect } from 'chai';
import { decide, type StoredTat } from '../../src/cache/rate-limit.js';

const MINUTE = 60_000;

/** Runs requests at the given times against one bucket; returns how many were accepted. */
function run(times: number[], limit: number, start?: StoredTat) {
  let stored = start;
  let accepted = 0;
  for (const now of times) {
    const result = decide([stored], now, [{ limit, periodMs: MINUTE }]);
    if (result.allowed) {
      accepted++;
      stored = { tat: result.tats[0]!, interval: MINUTE / limit };
    }
  }
  return { accepted, stored };
}

describe('rate-limit buckets (GCRA)', () => {
  it('accepts the limit at once, then one request per period/limit', () => {
    expect(run(Array(15).fill(0), 10).accepted).to.equal(10);
    // 10 at once, then one more every 6 s: 10 more over the next minute, not a fresh 10 at its start.
    const times = [...Array(10).fill(0), ...Array.from({ length: 60 }, (_, i) => 1000 + i * 1000)];
    expect(run(times, 10).accepted).to.equal(20);
  });

  it('has no window edge where twice the limit passes', () => {
    // A fixed window would take 10 just before its end and 10 more just after it.
    const times = [...Array(10).fill(59_900), ...Array(10).fill(60_100)];
    expect(run(times, 10).accepted).to.equal(10);
  });

  it('reports remaining, reset and retry-after', () => {
    const [first] = decide([undefined], 0, [{ limit: 3, periodMs: MINUTE }]).states;
    expect(first).to.deep.equal({ remaining: 2, resetMs: 20_000, retryAfterMs: 0 });
    const full = { tat: 60_000, interval: 20_000 };
    const refused = decide([full], 0, [{ limit: 3, periodMs: MINUTE }]);
    expect(refused.allowed).to.equal(false);
    expect(refused.states[0]).to.deep.equal({ remaining: 0, resetMs: 60_000, retryAfterMs: 20_000 });
  });

  it('charges every bucket or none', () => {
    const buckets = [
      { limit: 2, periodMs: MINUTE },
      { limit: 100, periodMs: MINUTE },
    ];
    const result = decide([{ tat: 60_000, interval: 30_000 }, undefined], 0, buckets);
    expect(result.allowed).to.equal(false);
    // The second bucket was not charged: its arrival time stays at now.
    expect(result.tats[1]).to.equal(0);
    expect(result.states[1]!.remaining).to.equal(100);
  });

  it('keeps the count of requests in the bucket when the limit changes', () => {
    const { stored } = run([0, 0], 2);
    expect(run([0, 0, 0, 0, 0], 6, stored).accepted).to.equal(4);
    // Lowered below what is held: the bucket is full, not overdrawn.
    const held = run(Array(6).fill(0), 6).stored;
    const lowered = decide([held], 0, [{ limit: 2, periodMs: MINUTE }]);
    expect(lowered.allowed).to.equal(false);
    expect(lowered.states[0]!.retryAfterMs).to.equal(30_000);
  });
});
