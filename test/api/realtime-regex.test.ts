// A stream's `_regex` runs in the public process on every event: a pattern that makes a
// backtracking engine run for hours (`^(a+)+$` against `a...a!`) must neither stall the process
// nor change what the stream receives; patterns RE2 cannot run are refused like a list refuses them.
// RE2's cost per character still grows with the pattern: long values are not examined and a
// project's patterns have a time budget, so ten streams with a costly one do not stall the process.
import { expect } from 'chai';
import { startTestApp, type TestApp } from '../helpers/app.js';
import type { ApiClient } from '../helpers/client.js';
import { createCollectionFixture, createProjectFixture, type ProjectFixture } from '../helpers/fixtures.js';
import { testEnv } from '../helpers/env.js';
import { SseStream, streamUrl } from '../helpers/sse.js';
import { REGEX_MAX_CHARS } from '../../src/services/realtime/regex-budget.js';

const EVIL = `${'a'.repeat(40)}!`;

describe('realtime: regular expressions in linear time', () => {
  let app: TestApp;
  let fx: ProjectFixture;
  let secret: ApiClient;
  const streams: SseStream[] = [];

  before(async function () {
    if (!testEnv.REDIS_URL) return this.skip();
    // Ten streams of one project from this one address: the per-address share (5 % of the plan's
    // cap) is realtime-shares.test.ts's, not this suite's.
    app = await startTestApp('public', 'realtime_regex', { REALTIME_IP_SHARE_PERCENT: '100' });
    fx = await createProjectFixture(app.services);
    await createCollectionFixture(app.services, fx.project.id, { name: 'posts' });
    secret = app.client.with({ 'x-api-key': fx.secretKey });
  });
  after(async () => {
    for (const stream of streams.splice(0)) stream.close();
    await app?.close();
  });

  it('matches ^(a+)+$ against 40 a and a "!" while /api/health answers within 500 ms', async () => {
    const stream = await SseStream.open(
      streamUrl(app.url, 'posts', { key: fx.publishableKey, name_regex: '^(a+)+$' }),
    );
    streams.push(stream);
    await stream.waitFor(1, ['ready']);
    for (let i = 0; i < 3; i++) await app.client.get('/api/health'); // warm: the first is slower

    expect((await secret.post('/api/data/posts', { name: EVIL })).status).to.equal(201);
    // The health checks run while the event above is matched; the next event reaching the stream
    // proves the first one was matched (a stream's events are evaluated in order).
    const latencies: number[] = [];
    let done = false;
    const probing = (async () => {
      while (!done) {
        const started = performance.now();
        const health = await app.client.get('/api/health');
        latencies.push(performance.now() - started);
        expect(health.status).to.equal(200);
      }
    })();
    expect((await secret.post('/api/data/posts', { name: 'AAAA' })).status).to.equal(201);
    await stream.waitFor(1, ['document.created']).finally(() => (done = true));
    await probing;

    expect(stream.documents().map((e) => e.data.document.name)).to.deep.equal(['AAAA']);
    expect(latencies.length).to.be.above(0);
    // A backtracking engine holds the process for hours here (2.8 s already with 24 `a`s); the
    // margin is for a loaded 2-core CI machine, where a health check alone took up to 115 ms.
    expect(Math.max(...latencies), JSON.stringify(latencies)).to.be.below(500);
  });

  /** Health checks while `work` runs: their latencies in ms. */
  async function healthDuring(work: () => Promise<unknown>): Promise<number[]> {
    for (let i = 0; i < 3; i++) await app.client.get('/api/health'); // warm: the first is slower
    const latencies: number[] = [];
    let done = false;
    const probing = (async () => {
      while (!done) {
        const started = performance.now();
        expect((await app.client.get('/api/health')).status).to.equal(200);
        latencies.push(performance.now() - started);
      }
    })();
    await work().finally(() => (done = true));
    await probing;
    return latencies;
  }

  it('keeps ten streams with a costly pattern within their budget: /api/health within 500 ms', async () => {
    // About 30 µs a character in RE2: 60 ms per value of 1,000 `a`s, 600 ms per event over ten
    // streams without a budget, and seconds for one stream on a long value if it were examined.
    const costly = [];
    for (let i = 0; i < 10; i++) {
      const stream = await SseStream.open(
        streamUrl(app.url, 'posts', { key: fx.publishableKey, name_regex: '(a|aa){1000}b' }),
      );
      streams.push(stream);
      costly.push(stream);
      await stream.waitFor(1, ['ready']);
    }
    const marker = await SseStream.open(
      streamUrl(app.url, 'posts', { key: fx.publishableKey, name: 'done' }),
    );
    streams.push(marker);
    await marker.waitFor(1, ['ready']);

    const latencies = await healthDuring(async () => {
      for (let i = 0; i < 6; i++)
        expect((await secret.post('/api/data/posts', { name: 'a'.repeat(1000) })).status).to.equal(201);
      const long = 'a'.repeat(200_000); // not examined: longer than REGEX_MAX_CHARS
      expect(long.length).to.be.above(REGEX_MAX_CHARS);
      expect((await secret.post('/api/data/posts', { name: long })).status).to.equal(201);
      expect((await secret.post('/api/data/posts', { name: 'done' })).status).to.equal(201);
      // Events reach a project's streams in order: the marker's event comes after all the others.
      await marker.waitFor(1, ['document.created']);
    });
    expect(marker.documents().map((e) => e.data.document.name)).to.deep.equal(['done']);
    for (const stream of costly) expect(stream.documents()).to.deep.equal([]);
    expect(Math.max(...latencies), JSON.stringify(latencies.map(Math.round))).to.be.below(500);
  });

  it('refuses backreferences and lookaround with a 400 naming the parameter, as a list does', async () => {
    const pk = app.client.with({ 'x-api-key': fx.publishableKey });
    for (const pattern of ['(a)\\1', '^(?=a)', '(?<!a)b', '(?<n>a)\\k<n>']) {
      for (const path of ['/api/realtime/posts', '/api/data/posts']) {
        const res = await pk.get(path, { query: { name_regex: pattern } });
        expect(res.status, `${path} ${pattern}`).to.equal(400);
        expect(res.body.code).to.equal('INVALID_REGEX');
        expect(res.body.message).to.match(/^Invalid filter "name_regex": invalid regular expression \(/);
        expect(res.body.message).to.include('backreferences and lookaround are not supported');
        expect(res.body.details).to.deep.equal([
          {
            path: 'query.name_regex',
            message: res.body.message.replace('Invalid filter "name_regex": ', ''),
          },
        ]);
      }
    }
  });
});
