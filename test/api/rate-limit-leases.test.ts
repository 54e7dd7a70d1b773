// Token leases of the Redis rate limit (src/cache/rate-lease.ts), seen from outside: how many
// script calls Redis runs, what the RateLimit-* headers say, how exact the limit stays across
// processes, and the refund of leased requests a process did not use.
import { expect } from 'chai';
import { createClient } from 'redis';
import { startTestApp, suiteDatabase, type TestApp } from '../helpers/app.js';
import type { ApiClient, ApiResponse } from '../helpers/client.js';
import { createCollectionFixture, createProjectFixture, type ProjectFixture } from '../helpers/fixtures.js';
import { testEnv } from '../helpers/env.js';

type Redis = ReturnType<typeof createClient>;

/** EVALSHA calls the test Redis has run so far (every process and suite counts). */
async function evalshaCalls(redis: Redis): Promise<number> {
  const info = await redis.info('commandstats');
  return Number(/cmdstat_evalsha:calls=(\d+)/.exec(info)?.[1] ?? 0);
}

/** Sends `total` requests, `concurrency` at a time, spread over the clients in turn. */
async function burst(clients: ApiClient[], total: number, concurrency: number): Promise<ApiResponse[]> {
  const responses: ApiResponse[] = [];
  let next = 0;
  const worker = async (w: number) => {
    while (next < total) {
      next++;
      responses.push(await clients[w % clients.length]!.get('/api/data/posts'));
    }
  };
  await Promise.all(Array.from({ length: concurrency }, (_, w) => worker(w)));
  return responses;
}

async function limitedProject(app: TestApp, requestsPerMinute: number): Promise<ProjectFixture> {
  const fixture = await createProjectFixture(app.services);
  await createCollectionFixture(app.services, fixture.project.id, { name: 'posts' });
  await app.services.repos.projects.setLimits(fixture.project.id, { requestsPerMinute });
  return fixture;
}

const remainingOf = (res: ApiResponse) => Number(res.headers.get('ratelimit-remaining'));

describe('rate-limit leases on Redis', () => {
  let redis: Redis;
  let first: TestApp;
  let second: TestApp;
  before(async function () {
    if (!testEnv.REDIS_URL) return this.skip();
    redis = createClient({ url: testEnv.REDIS_URL });
    await redis.connect();
    const shared = { PLATFORM_DB: suiteDatabase('rate_leases') };
    first = await startTestApp('public', 'rate_leases', shared);
    second = await startTestApp('public', 'rate_leases', shared);
  });
  after(async () => {
    await second?.close();
    await first?.close();
    await redis?.close();
  });

  it('answers a busy key from leases: far fewer script calls than requests, sane headers', async function () {
    this.timeout(60_000);
    const limit = 6000;
    const fixture = await limitedProject(first, limit);
    const client = first.client.with({ 'x-api-key': fixture.secretKey });
    const before = await evalshaCalls(redis);
    const started = Date.now();
    const responses = await burst([client], 400, 16);
    const calls = (await evalshaCalls(redis)) - before;
    expect(responses.map((r) => r.status).filter((s) => s !== 200)).to.deep.equal([]);
    expect(calls, `${calls} script calls for 400 requests`).to.be.below(100);
    // What the process reports is what Redis holds plus what it still has leased: about the
    // requests really answered, going down (a bucket refills by 100 a second at 6000 a minute).
    const refill = ((Date.now() - started) / 60_000) * limit;
    let least = limit;
    for (const res of responses) {
      const remaining = remainingOf(res);
      expect(remaining).to.be.within(limit - 400 - 1, limit);
      expect(remaining, 'RateLimit-Remaining going back up').to.be.at.most(least + 16 + refill);
      least = Math.min(least, remaining);
    }
    expect(least).to.be.at.most(limit - 400 + refill + 16);
  });

  it('stays within the limit across two processes taking leases', async function () {
    this.timeout(60_000);
    const fixture = await limitedProject(first, 200);
    const clients = [first, second].map((app) => app.client.with({ 'x-api-key': fixture.secretKey }));
    const started = Date.now();
    const responses = await burst(clients, 300, 32);
    // One request more fits every 300 ms (200 a minute) while the burst lasts.
    const refilled = Math.floor((Date.now() - started) / 300);
    const accepted = responses.filter((r) => r.status === 200).length;
    // At most 1/16 of what remains is held by a process at a time, and near the limit every
    // request asks Redis: the few held when the burst ends are all that can be missed.
    expect(accepted).to.be.within(180, 200 + refilled);
    expect(responses.filter((r) => r.status === 429)).to.have.length(300 - accepted);
    for (const res of responses) expect(remainingOf(res)).to.be.within(0, 200);
  });

  it('gives leased requests that were not used back to Redis with the next fetch', async function () {
    this.timeout(60_000);
    const limit = 1200;
    const interval = 60_000 / limit;
    const fixture = await limitedProject(first, limit);
    const client = first.client.with({ 'x-api-key': fixture.secretKey });
    /** Requests the secret key's bucket of the project holds now (the arrival time's distance in intervals). */
    const held = async () => {
      const stored = await first.deps.cache.get(`rl:s:${fixture.project.id}`);
      return (Number(stored!.split(':')[0]) - Date.now()) / interval;
    };
    const started = Date.now();
    let used = (await burst([client], 300, 16)).length;
    // One at a time while traffic is still counted as busy, until the process holds leased
    // requests nobody uses: its headers count them, Redis has them charged already.
    let leased = 0;
    for (let i = 0; i < 300 && leased < 3; i++) {
      const res = await client.get('/api/data/posts');
      expect(res.status).to.equal(200);
      used++;
      leased = Math.ceil(remainingOf(res) - (limit - (await held())) - 0.01);
    }
    expect(leased).to.be.at.least(3);
    const burstEnd = Date.now();
    await new Promise((resolve) => setTimeout(resolve, 1200));
    // The lease has expired; its unused requests are still charged in Redis until the next fetch.
    const before = await held();
    const res = await client.get('/api/data/posts');
    expect(res.status).to.equal(200);
    used++;
    const after = await held();
    // (Reading the bucket is not instant: up to a few requests refill meanwhile.)
    expect(before + 1 - after, 'requests given back').to.be.within(leased - 1, leased + 3);
    // Redis now holds what was really used, less what refilled since (20 a second).
    const now = Date.now();
    expect(after).to.be.within(
      used - ((now - started) / 60_000) * limit - 1,
      used - ((now - burstEnd) / 60_000) * limit + 1,
    );
    expect(remainingOf(res)).to.be.within(Math.floor(limit - after) - 1, Math.floor(limit - after));
  });
});
