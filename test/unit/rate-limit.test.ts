import { expect } from 'chai';
import { decide, grant, type StoredTat } from '../../src/cache/rate-limit.js';
import { leasedStates, leaseSize, MAX_LEASE } from '../../src/cache/rate-lease.js';
import type { Cache } from '../../src/cache/index.js';
import { apiRateLimits } from '../../src/services/rate-limits.js';
import type { Project } from '../../src/services/types.js';
import { BUILTIN_PLAN_TABLE } from '../../src/lib/plan-table.js';

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

describe('rate-limit grants of several requests at once (leases)', () => {
  const bucket = { limit: 10, periodMs: MINUTE };
  const interval = MINUTE / 10;

  it('grants the most that fits, up to what is asked, and charges exactly that', () => {
    const fresh = grant([undefined], 0, [bucket], 4);
    expect(fresh.granted).to.equal(4);
    expect(fresh.tats[0]).to.equal(4 * interval);
    expect(fresh.states[0]).to.include({ remaining: 6, retryAfterMs: 0 });
    // 7 held: 3 fit of the 5 asked.
    const partial = grant([{ tat: 7 * interval, interval }], 0, [bucket], 5);
    expect(partial.granted).to.equal(3);
    expect(partial.states[0]!.remaining).to.equal(0);
  });

  it('refuses with the retry-after of a single request when nothing fits', () => {
    const full = grant([{ tat: MINUTE, interval }], 0, [bucket], 8);
    expect(full.granted).to.equal(0);
    expect(full.tats[0]).to.equal(MINUTE);
    expect(full.states[0]).to.deep.equal({ remaining: 0, resetMs: MINUTE, retryAfterMs: interval });
  });

  it('grants what fits in every bucket, and charges every bucket alike', () => {
    const buckets = [bucket, { limit: 100, periodMs: MINUTE }];
    const result = grant([{ tat: 8 * interval, interval }, undefined], 0, buckets, 16);
    expect(result.granted).to.equal(2);
    expect(result.states.map((s) => s.remaining)).to.deep.equal([0, 98]);
  });

  it('gives unused requests back before granting, never below now', () => {
    // 6 held, 4 of them leased and never used: after the refund 2 are held, so 8 fit.
    const refunded = grant([{ tat: 6 * interval, interval }], 0, [bucket], 10, 4);
    expect(refunded.granted).to.equal(8);
    expect(refunded.tats[0]).to.equal(10 * interval);
    // A refund larger than what is held leaves an empty bucket, not a credit.
    const emptied = grant([{ tat: 2 * interval, interval }], 0, [bucket], 20, 50);
    expect(emptied.granted).to.equal(10);
    // Nothing asked: the refund alone.
    const only = grant([{ tat: 6 * interval, interval }], 0, [bucket], 0, 4);
    expect(only.granted).to.equal(0);
    expect(only.states[0]!.remaining).to.equal(8);
  });

  it('sizes a lease by recent traffic, capped by a share of what remains', () => {
    expect(leaseSize(40, undefined), 'nothing known yet').to.equal(1);
    expect(leaseSize(1, 3000), 'one request at a time').to.equal(1);
    expect(leaseSize(40, 3000)).to.equal(40);
    expect(leaseSize(400, 3000), '1/16 of what remains').to.equal(187);
    expect(leaseSize(5000, 1e9)).to.equal(MAX_LEASE);
    expect(leaseSize(40, 31), 'close to the limit: exact').to.equal(1);
    expect(leaseSize(40, 0)).to.equal(1);
  });

  it('reports what Redis said remains plus what the process still holds', () => {
    const states = [{ remaining: 90, resetMs: 20_000, retryAfterMs: 0 }];
    expect(leasedStates(states, 5, 300)).to.deep.equal([{ remaining: 95, resetMs: 19_700, retryAfterMs: 0 }]);
  });
});

describe('rate-limit checks of the public API', () => {
  const answering = (remaining: number, allowed = true) =>
    apiRateLimits(
      {
        consume: async () => ({
          allowed,
          states: [{ remaining, resetMs: 1, retryAfterMs: allowed ? 0 : 1 }],
        }),
      } as unknown as Cache,
      0,
      async () => 'free',
      BUILTIN_PLAN_TABLE,
    );
  const project = {
    id: 'p1',
    ownerId: 'd1',
    limits: { requestsPerMinute: 1_000_000_000 },
  } as unknown as Project;

  it('never reports more remaining than the limit less the request just charged', async () => {
    // A bucket of a billion a minute cannot resolve one request in its float arrival time.
    const check = await answering(1_000_000_001).charge({ ip: '127.0.0.1', project, keyKind: 'secret' });
    expect(check?.remaining).to.equal(999_999_999);
    const exact = await answering(12).charge({ ip: '127.0.0.1', project, keyKind: 'secret' });
    expect(exact?.remaining).to.equal(12);
    const refused = await answering(0, false).charge({ ip: '127.0.0.1', project, keyKind: 'secret' });
    expect(refused).to.include({ allowed: false, remaining: 0 });
  });
});
