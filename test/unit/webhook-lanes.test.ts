// The charge of lane time per project (src/services/webhooks/lanes.ts) on a fake clock: a project
// is slow once a delivery of it has been in flight, or its recent deliveries took, the threshold;
// slow projects are passed over only while they hold half of the lanes; a project that turns fast
// again, or is not seen for ten minutes, is slow no more.
import { expect } from 'chai';
import { laneAccounts } from '../../src/services/webhooks/lanes.js';

describe('webhook lanes: time charged per project', () => {
  let t = 0;
  const clock = () => t;
  const lanes = () => laneAccounts({ lanesPerWorker: 4, slowDeliveryMs: 1000 }, clock);
  beforeEach(() => (t = 1_000_000));

  it('passes a slow project over only while slow projects hold half of the lanes', () => {
    const accounts = lanes();
    const a1 = accounts.take('a');
    const b1 = accounts.take('b');
    expect(accounts.skipped(), 'nothing slow yet').to.deep.equal([]);
    t += 1000; // both now in flight for the threshold: slow, and holding 2 of 4 lanes
    expect(accounts.skipped().sort()).to.deep.equal(['a', 'b']);
    a1(); // a took 1000 ms: charged as slow; one slow lane in use, below the share
    expect(accounts.skipped()).to.deep.equal([]);
    const fast = accounts.take('c');
    expect(accounts.skipped()).to.deep.equal([]);
    fast();
    const a2 = accounts.take('a');
    expect(accounts.skipped().sort(), 'a charged slow, b in flight long: 2 lanes').to.deep.equal(['a', 'b']);
    a2();
    b1();
  });

  it('forgets the charge as deliveries turn fast, or after ten minutes unseen', () => {
    const accounts = lanes();
    const hold = (project: string, ms: number) => {
      const free = accounts.take(project);
      t += ms;
      free();
    };
    hold('a', 3000); // average 3000
    hold('b', 3000);
    const [x, y] = [accounts.take('x'), accounts.take('y')];
    t += 1000; // x and y are slow in flight: the share is full
    expect(accounts.skipped().sort()).to.deep.equal(['a', 'b', 'x', 'y']);
    hold('a', 10); // 1505
    hold('a', 10); // 757: fast again
    expect(accounts.skipped().sort()).to.deep.equal(['b', 'x', 'y']);
    t += 10 * 60_000;
    expect(accounts.skipped().sort(), 'b unseen for ten minutes').to.deep.equal(['x', 'y']);
    x();
    y();
  });
});
