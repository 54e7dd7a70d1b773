// The message bus between processes: two caches on the test stack's Redis stand for two
// processes; a message published by one reaches the other's subscribers, channels are apart and
// namespaced by prefix, and an unsubscribed handler hears nothing more.
import { expect } from 'chai';
import { createCache, type Cache } from '../../src/cache/index.js';
import { testEnv } from '../helpers/env.js';

function collector() {
  const messages: string[] = [];
  let wake: (() => void) | undefined;
  return {
    messages,
    handler: (message: string) => {
      messages.push(message);
      wake?.();
    },
    async waitFor(count: number, ms = 2000) {
      const deadline = Date.now() + ms;
      while (messages.length < count && Date.now() < deadline) {
        await new Promise<void>((resolve) => {
          wake = resolve;
          setTimeout(resolve, 25);
        });
      }
      return messages;
    },
  };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 150));

for (const kind of ['redis', 'memory'] as const) {
  describe(`message bus (${kind})`, () => {
    let one: Cache;
    let two: Cache;
    let other: Cache;
    before(async () => {
      const url = kind === 'redis' ? testEnv.REDIS_URL : undefined;
      if (kind === 'redis') expect(url, 'REDIS_URL of the test stack').to.be.a('string');
      one = await createCache(url, 'bus-test');
      // In memory there is one process: a second cache is a second process only with Redis.
      two = kind === 'redis' ? await createCache(url, 'bus-test') : one;
      other = await createCache(url, 'bus-other');
    });
    after(async () => {
      await one.close();
      if (two !== one) await two.close();
      await other.close();
    });

    it('delivers a message to every subscriber of the channel, from another process', async () => {
      const a = collector();
      const b = collector();
      const offA = await two.subscribe('ch1', a.handler);
      const offB = await two.subscribe('ch1', b.handler);
      await one.publish('ch1', 'hello');
      expect(await a.waitFor(1)).to.deep.equal(['hello']);
      expect(await b.waitFor(1)).to.deep.equal(['hello']);
      await offA();
      await offB();
    });

    it('keeps channels and installations (prefixes) apart', async () => {
      const mine = collector();
      const foreign = collector();
      const off = await two.subscribe('ch2', mine.handler);
      const offForeign = await other.subscribe('ch2', foreign.handler);
      await one.publish('ch3', 'elsewhere');
      await one.publish('ch2', 'here');
      expect(await mine.waitFor(1)).to.deep.equal(['here']);
      await settle();
      expect(mine.messages).to.deep.equal(['here']);
      expect(foreign.messages).to.deep.equal([]);
      await off();
      await offForeign();
    });

    it('stops delivering to a handler once it unsubscribed, and keeps the others', async () => {
      const gone = collector();
      const stays = collector();
      const off = await two.subscribe('ch4', gone.handler);
      const offStays = await two.subscribe('ch4', stays.handler);
      await off();
      await one.publish('ch4', 'after');
      expect(await stays.waitFor(1)).to.deep.equal(['after']);
      await settle();
      expect(gone.messages).to.deep.equal([]);
      await offStays();
    });
  });
}
