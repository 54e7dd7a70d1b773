// The monthly invocations counted in batches: exact (one charge per call) while calls are few or
// the month is nearly used up, far fewer round trips under load, never past the limit across
// processes sharing one counter, and what a batch leaves unused given back.
import { expect } from 'chai';
import { pino } from 'pino';
import { chargeSize, MAX_LEASE, monthAllowance } from '../../src/services/functions/month-allowance.js';

/** The shared counter (Redis) of several processes, with a round trip that takes a turn of the loop. */
function sharedCounter() {
  const counts = new Map<string, number>();
  let trips = 0;
  return {
    counts,
    trips: () => trips,
    async incr(key: string, _ttl: number, by = 1) {
      trips++;
      await new Promise((r) => setImmediate(r));
      const value = (counts.get(key) ?? 0) + by;
      counts.set(key, value);
      return value;
    },
  };
}

const silent = pino({ level: 'silent' });
const month = () => new Date().toISOString().slice(0, 7);

describe('monthly invocations in batches', () => {
  it('sizes a batch by the recent calls, at most 1/16 of what remains and MAX_LEASE', () => {
    expect(chargeSize(50, undefined)).to.equal(1);
    expect(chargeSize(50, 10_000)).to.equal(50);
    expect(chargeSize(500, 10_000)).to.equal(MAX_LEASE);
    expect(chargeSize(50, 160)).to.equal(10);
    expect(chargeSize(50, 15)).to.equal(1);
    expect(chargeSize(0, 10_000)).to.equal(1);
  });

  it('charges each call on its own while calls come one at a time, and refuses past the limit', async () => {
    const cache = sharedCounter();
    const allowance = monthAllowance(cache, silent);
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await allowance.admit('p1', 3));
    expect(answers).to.deep.equal([true, true, true, false]);
    await allowance.close();
    expect(cache.counts.get(`fninv:p1:${month()}`)).to.be.at.least(3);
  });

  it('under load takes batches: far fewer round trips, exactly the calls admitted once given back', async () => {
    const cache = sharedCounter();
    const allowance = monthAllowance(cache, silent);
    let admitted = 0;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        for (let i = 0; i < 100; i++) if (await allowance.admit('p1', 1_000_000)) admitted++;
      }),
    );
    expect(admitted).to.equal(1600);
    expect(cache.trips()).to.be.below(400);
    await allowance.close();
    expect(cache.counts.get(`fninv:p1:${month()}`)).to.equal(1600);
  });

  it('never admits more than the limit across processes sharing the counter', async () => {
    const cache = sharedCounter();
    const processes = [
      monthAllowance(cache, silent),
      monthAllowance(cache, silent),
      monthAllowance(cache, silent),
    ];
    let admitted = 0;
    await Promise.all(
      processes.flatMap((allowance) =>
        Array.from({ length: 16 }, async () => {
          for (let i = 0; i < 200; i++) if (await allowance.admit('p1', 5000)) admitted++;
        }),
      ),
    );
    // 9,600 calls for a limit of 5,000: all of it is used, none past it.
    expect(admitted).to.equal(5000);
    await Promise.all(processes.map((p) => p.close()));
    expect(cache.counts.get(`fninv:p1:${month()}`)).to.be.at.least(5000);
  });

  it('gives back what an expired batch left unused before it charges again', async () => {
    const cache = sharedCounter();
    let clock = Date.now();
    const allowance = monthAllowance(cache, silent, () => clock);
    await Promise.all(Array.from({ length: 64 }, () => allowance.admit('p1', 1_000_000)));
    // A burst: the next call finds a batch, unused once its second is over.
    const key = `fninv:p1:${month()}`;
    await allowance.admit('p1', 1_000_000);
    expect(cache.counts.get(key)).to.be.above(65);
    clock += 1500;
    await allowance.admit('p1', 1_000_000);
    await new Promise((r) => setTimeout(r, 10));
    await allowance.close();
    expect(cache.counts.get(key)).to.equal(66);
  });

  it('counts each UTC month apart: a new month starts from zero at its first millisecond', async () => {
    const cache = sharedCounter();
    let clock = Date.parse('2026-11-30T23:59:59.999Z');
    const allowance = monthAllowance(cache, silent, () => clock);
    expect(await allowance.admit('p1', 1)).to.equal(true);
    expect(await allowance.admit('p1', 1)).to.equal(false);
    clock += 1;
    expect(await allowance.admit('p1', 1)).to.equal(true);
    clock = Date.parse('2026-11-15T00:00:00Z'); // a clock set back: November again
    expect(await allowance.admit('p1', 1)).to.equal(false);
    await new Promise((r) => setTimeout(r, 10)); // a refused charge is given back in the background
    await allowance.close();
    expect(cache.counts.get('fninv:p1:2026-11')).to.equal(1);
    expect(cache.counts.get('fninv:p1:2026-12')).to.equal(1);
  });

  it('keeps projects apart', async () => {
    const cache = sharedCounter();
    const allowance = monthAllowance(cache, silent);
    expect(await allowance.admit('p1', 1)).to.equal(true);
    expect(await allowance.admit('p1', 1)).to.equal(false);
    expect(await allowance.admit('p2', 1)).to.equal(true);
    await allowance.close();
  });
});
