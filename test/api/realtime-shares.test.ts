// Realtime caps relative to the plan, driven past their edge: one client address holds at most
// REALTIME_IP_SHARE_PERCENT of the plan's cap, streams without a signed-in user leave
// REALTIME_RESERVED_PERCENT of it to signed-in users and the secret key, and a process drops
// streams that stopped reading once all of them together hold more than
// REALTIME_MAX_BUFFERED_BYTES_PER_PROCESS unsent, while a reading stream goes on.
import { expect } from 'chai';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createCollectionFixture, createProjectFixture, type ProjectFixture } from '../helpers/fixtures.js';
import { pause, SseStream, streamUrl } from '../helpers/sse.js';

describe('realtime: shares of the plan’s cap', () => {
  let app: TestApp;
  let fx: ProjectFixture;
  const streams: SseStream[] = [];
  const from = (ip: string) => ({ 'x-forwarded-for': ip });
  const open = async (ip: string, query: Record<string, string> = {}) => {
    const stream = await SseStream.open(
      streamUrl(app.url, 'posts', { key: fx.publishableKey, ...query }),
      from(ip),
    );
    streams.push(stream);
    await stream.waitFor(1, ['ready']);
    return stream;
  };
  const refusal = (ip: string) =>
    app.client.get('/api/realtime/posts', { query: { key: fx.publishableKey }, headers: from(ip) });

  before(async () => {
    // The defaults of the shares (5 % per address, 25 % reserved) are what is tested.
    app = await startTestApp('public', 'realtime_shares', { TRUST_PROXY: 'true' });
    fx = await createProjectFixture(app.services);
    await createCollectionFixture(app.services, fx.project.id, { name: 'posts' });
    await app.services.repos.projects.setLimits(fx.project.id, { realtimeConnectionsPerProject: 40 });
  });
  after(async () => {
    for (const stream of streams.splice(0)) stream.close();
    await app.close();
  });

  it('gives one address 5 % of the plan’s cap and anonymous streams 75 %, keeping the rest for signed-in users', async () => {
    // 5 % of 40: two streams per address (REALTIME_CONNECTIONS_PER_IP, 25, is higher).
    await open('198.51.100.1');
    await open('198.51.100.1');
    const third = await refusal('198.51.100.1');
    expect(third.status, third.text).to.equal(429);
    expect(third.body.code).to.equal('REALTIME_CLIENT_LIMIT');
    expect(third.body.message).to.include('limit of 2 concurrent realtime connections');

    // 75 % of 40 = 30 anonymous streams: 15 addresses, not 2, to fill them.
    for (let n = 2; n <= 15; n++) {
      await open(`198.51.100.${n}`);
      await open(`198.51.100.${n}`);
    }
    const anonymous = await refusal('198.51.100.16');
    expect(anonymous.status, anonymous.text).to.equal(429);
    expect(anonymous.body.code).to.equal('REALTIME_ANONYMOUS_LIMIT');
    expect(anonymous.body.message).to.equal(
      "Streams without a signed-in user have reached their share of 30 of the project's 40 realtime connections; the rest are kept for signed-in users",
    );
    expect(anonymous.headers.get('retry-after')).to.equal('30');

    // Signed-in end users (from a new address) and the project's servers still get in.
    const { accessToken } = await app.services.tokens.issue(fx.project.id, 'aaaaaaaaaaaaaaaaaaaaaaaa', 600);
    const user = await open('198.51.100.16', { access_token: accessToken });
    expect(user.ended).to.equal(false);
    const server = await SseStream.open(streamUrl(app.url, 'posts'), {
      ...from('198.51.100.1'),
      'x-api-key': fx.secretKey,
    });
    streams.push(server);
    await server.waitFor(1, ['ready']);

    // An anonymous stream that ends gives its slot back to anonymous clients.
    streams[2]!.close();
    let again: SseStream | undefined;
    for (let i = 0; i < 40 && !again; i++) {
      again = await open('198.51.100.16').catch(() => undefined);
      if (!again) await pause(50);
    }
    expect(again, 'an anonymous slot is free once a stream ends').to.not.equal(undefined);
  });
});

describe('realtime: unsent bytes of a whole process', () => {
  let app: TestApp;
  let fx: ProjectFixture;
  const streams: SseStream[] = [];

  before(async () => {
    app = await startTestApp('public', 'realtime_process_buffer', {
      // Each stream alone could hold 64 MiB; the process together only 1 MiB.
      REALTIME_MAX_BUFFERED_BYTES: String(64 * 1024 * 1024),
      REALTIME_MAX_BUFFERED_BYTES_PER_PROCESS: String(1024 * 1024),
    });
    fx = await createProjectFixture(app.services);
    await createCollectionFixture(app.services, fx.project.id, { name: 'posts' });
    await app.services.repos.projects.setLimits(fx.project.id, { requestsPerMinute: 10_000 });
  });
  after(async () => {
    for (const stream of streams.splice(0)) stream.close();
    await app.close();
  });

  it('drops the streams that stopped reading once together they pass the bound; a reader goes on', async function () {
    this.timeout(120_000);
    const secret = app.client.with({ 'x-api-key': fx.secretKey });
    const open = async () => {
      const stream = await SseStream.open(streamUrl(app.url, 'posts'), { 'x-api-key': fx.secretKey });
      streams.push(stream);
      await stream.waitFor(1, ['ready']);
      return stream;
    };
    const stalled = [await open(), await open(), await open()];
    for (const stream of stalled) stream.pause();
    const reader = await open();
    expect(app.services.realtime.held()).to.equal(4);

    // About 8 MB of events: each stalled stream would hold several MB, far under its own bound.
    const body = 'x'.repeat(8000);
    for (let i = 0; i < 10; i++) {
      const documents = Array.from({ length: 100 }, (_, j) => ({ title: `${i}-${j}`, body }));
      const res = await secret.post('/api/data/posts/bulk', { documents });
      expect(res.status, res.text).to.equal(201);
    }
    await reader.waitFor(1000, ['document.created'], 60_000);
    for (let i = 0; i < 100 && app.services.realtime.held() > 1; i++) await pause(50);
    expect(app.services.realtime.held(), 'streams still held: the reader alone').to.equal(1);
    expect(reader.ended).to.equal(false);
    for (const stream of stalled) {
      stream.res.resume();
      await stream.waitEnded(20_000);
      expect(stream.documents().length, 'a dropped stream got only part').to.be.below(1000);
    }
  });
});
