// Values pushed to every process (src/services/pushed-values.ts) over a bus that is late or loses
// messages, as a loaded Redis can be: a change returns only once its own message came back, so a
// second process knows it when the caller moves on; a lost message does not hold a change forever.
import { expect } from 'chai';
import { createCache, type Cache } from '../../src/cache/index.js';
import { ECHO_WAIT_MS, pushedValues } from '../../src/services/pushed-values.js';

describe('pushed values', () => {
  let cache: Cache;
  beforeEach(async () => {
    cache = await createCache(undefined, `unit_${Date.now()}`);
  });
  afterEach(() => cache.close());

  /** The cache with a bus that hands every message over `delayMs` late, or never (null). */
  const withBus = (delayMs: number | null): Cache => ({
    ...cache,
    publish: async (channel, message) => {
      if (delayMs !== null) setTimeout(() => void cache.publish(channel, message), delayMs);
    },
  });

  const versions = (bus: Cache) =>
    pushedValues<string>(bus, {
      channel: 'v',
      cacheKey: (name) => `v:${name}`,
      decode: (text) => text ?? '0',
      encode: (value) => value,
      maxNames: 100,
      now: Date.now,
    });

  /** Two processes on the bus, both subscribed and knowing the first value of `p`. */
  async function twoProcesses(bus: Cache) {
    const a = versions(bus);
    const b = versions(bus);
    await a.get('p');
    await b.get('p');
    await new Promise((r) => setTimeout(r, 10));
    expect(b.peek('p'), 'b trusts what it knows').to.equal('0');
    return { a, b };
  }

  it('returns from a change once its message is back, when every process knows it', async () => {
    const { a, b } = await twoProcesses(withBus(150));
    const started = Date.now();
    await a.set('p', 'v2', 60);
    expect(Date.now() - started).to.be.within(140, ECHO_WAIT_MS);
    expect(b.peek('p')).to.equal('v2');
  });

  it('returns after a bounded wait when the message is lost, and the other process heals by reading', async () => {
    const { a, b } = await twoProcesses(withBus(null));
    const started = Date.now();
    await a.set('p', 'v3', 60);
    expect(Date.now() - started).to.be.within(ECHO_WAIT_MS - 20, ECHO_WAIT_MS + 200);
    await new Promise((r) => setTimeout(r, 1000));
    expect(await b.get('p')).to.equal('v3');
  });
});
