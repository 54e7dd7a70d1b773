// Realtime streams and their bounds: the plan's cap on concurrent connections (across processes,
// released when a stream ends), a client that stops reading is dropped instead of buffered
// without bound, and a stream ends when its token expires or is revoked, or its key is rotated;
// the caps per client IP (an IPv6 /64) and per process, driven past their edge.
import { expect } from 'chai';
import { startTestApp, type TestApp } from '../helpers/app.js';
import type { ApiClient } from '../helpers/client.js';
import { createCollectionFixture, createProjectFixture, type ProjectFixture } from '../helpers/fixtures.js';
import { authProject } from '../helpers/user-auth.js';
import { pause, SseStream, streamUrl } from '../helpers/sse.js';

const MAX_BUFFERED = 64 * 1024;

describe('realtime: limits', () => {
  let app: TestApp;
  let fx: ProjectFixture;
  let secret: ApiClient;
  const streams: SseStream[] = [];
  const open = async (query: Record<string, string> = {}, collection = 'posts', key = fx.publishableKey) => {
    const stream = await SseStream.open(streamUrl(app.url, collection, { key, ...query }));
    streams.push(stream);
    await stream.waitFor(1, ['ready']);
    return stream;
  };
  const openStatus = (query: Record<string, string> = {}) =>
    app.client.get('/api/realtime/posts', { query: { key: fx.publishableKey, ...query } });

  before(async () => {
    app = await startTestApp('public', 'realtime_limits', {
      REALTIME_HEARTBEAT_MS: '100',
      REALTIME_MAX_BUFFERED_BYTES: String(MAX_BUFFERED),
      // The plan's cap alone, from one address: the shares are realtime-shares.test.ts's.
      REALTIME_IP_SHARE_PERCENT: '100',
      REALTIME_RESERVED_PERCENT: '0',
    });
    fx = await createProjectFixture(app.services);
    await createCollectionFixture(app.services, fx.project.id, { name: 'posts' });
    secret = app.client.with({ 'x-api-key': fx.secretKey });
  });
  afterEach(async () => {
    for (const stream of streams.splice(0)) stream.close();
    await app.services.repos.projects.setLimits(fx.project.id, {});
  });
  after(() => app.close());

  it('caps concurrent connections per project, and frees a slot when a stream ends', async () => {
    await app.services.repos.projects.setLimits(fx.project.id, { realtimeConnectionsPerProject: 2 });
    const first = await open();
    await open();
    const third = await openStatus();
    expect(third.status, third.text).to.equal(429);
    expect(third.body).to.include({ success: false, code: 'REALTIME_CONNECTION_LIMIT' });
    expect(third.body.message).to.include('limit of 2 concurrent realtime connections');
    expect(third.headers.get('retry-after')).to.equal('30');
    // Another project is not affected.
    const other = await createProjectFixture(app.services, 'Other');
    await createCollectionFixture(app.services, other.project.id, { name: 'posts' });
    await open({}, 'posts', other.publishableKey);

    first.close();
    let again: SseStream | undefined;
    for (let i = 0; i < 40 && !again; i++) {
      again = await SseStream.open(streamUrl(app.url, 'posts', { key: fx.publishableKey })).catch(
        () => undefined,
      );
      if (!again) await pause(50);
    }
    expect(again, 'a slot is free once a stream ends').to.not.equal(undefined);
    streams.push(again!);
  });

  it('drops a client that stops reading once its unsent events pass the bound', async function () {
    this.timeout(60_000);
    await app.services.repos.projects.setLimits(fx.project.id, {
      realtimeConnectionsPerProject: 1,
      requestsPerMinute: 10_000,
    });
    const slow = await open();
    slow.pause();
    const body = 'x'.repeat(8000);
    // About 16 MB of events: more than the socket buffers of both ends hold, so the rest queues
    // in the server, past the bound.
    for (let i = 0; i < 20; i++) {
      const documents = Array.from({ length: 100 }, (_, j) => ({ title: `${i}-${j}`, body }));
      const res = await secret.post('/api/data/posts/bulk', { documents });
      expect(res.status, res.text).to.equal(201);
    }
    // The slow connection's slot is free again: the server let it go.
    let next: SseStream | undefined;
    for (let i = 0; i < 100 && !next; i++) {
      next = await SseStream.open(streamUrl(app.url, 'posts', { key: fx.publishableKey })).catch(
        () => undefined,
      );
      if (!next) await pause(100);
    }
    expect(next, 'the dropped client no longer holds a connection').to.not.equal(undefined);
    streams.push(next!);
    // Reading again, the slow client gets what had reached its socket, then the end: far from all.
    slow.res.resume();
    await slow.waitEnded(20_000);
    expect(slow.documents().length).to.be.below(2000);
    expect(slow.events.some((e) => e.event === 'close')).to.equal(false);
  });

  it('keeps idle connections alive with comment lines', async () => {
    const stream = await open();
    await stream.waitComments(3, 2000);
    expect(stream.ended).to.equal(false);
  });
});

describe('realtime: token lifetime', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp('public', 'realtime_tokens', { REALTIME_HEARTBEAT_MS: '100' });
  });
  after(() => app.close());

  it('ends the stream when the access token expires, and refuses the expired token', async () => {
    const fx = await createProjectFixture(app.services);
    await createCollectionFixture(app.services, fx.project.id, { name: 'posts' });
    const { accessToken } = await app.services.tokens.issue(fx.project.id, 'aaaaaaaaaaaaaaaaaaaaaaaa', 2);
    const url = streamUrl(app.url, 'posts', { key: fx.publishableKey, access_token: accessToken });
    const stream = await SseStream.open(url);
    try {
      await stream.waitFor(1, ['ready']);
      const [closing] = await stream.waitFor(1, ['close'], 5000);
      expect(closing!.data).to.deep.equal({
        reason: 'TOKEN_EXPIRED',
        message: 'The access token expired; reconnect with a fresh token',
      });
      await stream.waitEnded(2000);
    } finally {
      stream.close();
    }
    const again = await app.client.get('/api/realtime/posts', {
      query: { key: fx.publishableKey, access_token: accessToken },
    });
    expect(again.status).to.equal(401);
    expect(again.body.code).to.equal('TOKEN_EXPIRED');
  });

  it('ends the stream when the user is signed out everywhere (token revoked)', async () => {
    const p = await authProject(app);
    await createCollectionFixture(app.services, p.project.id, { name: 'posts' });
    const signup = await app.client.with({ 'x-api-key': p.publishableKey }).post('/api/userAuth/signup', {
      email: 'revoked@example.com',
      password: 'correct horse battery',
      name: 'Soon revoked',
    });
    expect(signup.status, signup.text).to.equal(201);
    const { user, accessToken } = signup.body.data;
    const stream = await SseStream.open(streamUrl(app.url, 'posts', { key: p.publishableKey }), {
      authorization: `Bearer ${accessToken}`,
    });
    try {
      await stream.waitFor(1, ['ready']);
      await stream.waitComments(1);
      expect(stream.ended).to.equal(false);
      const revoke = await app.client
        .with({ 'x-api-key': p.secretKey })
        .post(`/api/users/${user._id}/revoke-sessions`);
      expect(revoke.status, revoke.text).to.equal(200);
      const [closing] = await stream.waitFor(1, ['close'], 3000);
      expect(closing!.data.reason).to.equal('TOKEN_REVOKED');
      await stream.waitEnded(2000);
    } finally {
      stream.close();
    }
  });

  it('ends the stream when the key it was opened with is rotated, and keeps the other key’s streams', async () => {
    const p = await createProjectFixture(app.services, 'Rotating');
    await createCollectionFixture(app.services, p.project.id, { name: 'posts' });
    const publishable = await SseStream.open(streamUrl(app.url, 'posts', { key: p.publishableKey }));
    const bySecret = await SseStream.open(streamUrl(app.url, 'posts', {}), { 'x-api-key': p.secretKey });
    try {
      await publishable.waitFor(1, ['ready']);
      await bySecret.waitFor(1, ['ready']);
      await publishable.waitComments(1);
      expect(publishable.ended).to.equal(false);

      await app.services.projects.rotateKey(p.project, 'publishable');
      const [closing] = await publishable.waitFor(1, ['close'], 3000);
      expect(closing!.data).to.deep.equal({
        reason: 'KEY_REVOKED',
        message: 'The API key was rotated or the project deleted; reconnect with a current key',
      });
      await publishable.waitEnded(2000);
      // The secret key was not rotated: its stream goes on.
      await bySecret.waitComments(bySecret.comments + 2);
      expect(bySecret.ended).to.equal(false);
    } finally {
      publishable.close();
      bySecret.close();
    }
  });
});

describe('realtime: caps per client IP and per process', () => {
  let app: TestApp;
  let fx: ProjectFixture;
  const streams: SseStream[] = [];
  // Client addresses as a load balancer reports them.
  const from = (ip: string) => ({ 'x-forwarded-for': ip });
  const open = async (ip: string, key = fx.publishableKey) => {
    const stream = await SseStream.open(
      streamUrl(app.url, 'posts', key.startsWith('pk_') ? { key } : {}),
      key.startsWith('pk_') ? from(ip) : { ...from(ip), 'x-api-key': key },
    );
    streams.push(stream);
    await stream.waitFor(1, ['ready']);
    return stream;
  };
  const refusal = (ip: string) =>
    app.client.get('/api/realtime/posts', { query: { key: fx.publishableKey }, headers: from(ip) });

  before(async () => {
    app = await startTestApp('public', 'realtime_slots', {
      TRUST_PROXY: 'true',
      REALTIME_CONNECTIONS_PER_IP: '2',
      REALTIME_CONNECTIONS_PER_PROCESS: '6',
    });
    fx = await createProjectFixture(app.services);
    await createCollectionFixture(app.services, fx.project.id, { name: 'posts' });
  });
  after(async () => {
    for (const stream of streams.splice(0)) stream.close();
    await app.close();
  });

  it('lets one client IP hold 2 of the publishable streams, an IPv6 /64 counting as one client', async () => {
    await open('198.51.100.1');
    const first = await open('198.51.100.1');
    const third = await refusal('198.51.100.1');
    expect(third.status, third.text).to.equal(429);
    expect(third.body.code).to.equal('REALTIME_CLIENT_LIMIT');
    expect(third.body.message).to.include('limit of 2 concurrent realtime connections');
    expect(third.headers.get('retry-after')).to.equal('30');
    // Another client of the same project is not affected; two addresses of one /64 are one client.
    await open('2001:db8:1:2::1');
    await open('2001:db8:1:2:ffff::7');
    expect((await refusal('2001:db8:1:2::99')).body.code).to.equal('REALTIME_CLIENT_LIMIT');
    // The project's servers, on the secret key, are not counted per address.
    await open('198.51.100.1', fx.secretKey);

    // A slot of the client comes back when one of its streams ends.
    first.close();
    let again: SseStream | undefined;
    for (let i = 0; i < 40 && !again; i++) {
      again = await open('198.51.100.1').catch(() => undefined);
      if (!again) await pause(50);
    }
    expect(again, 'a slot is free once a stream ends').to.not.equal(undefined);
  });

  it('holds at most REALTIME_CONNECTIONS_PER_PROCESS streams in one process (503 after)', async () => {
    // Five are open from the test above: one more fits, then the process is full for everyone.
    await open('203.0.113.9');
    const full = await refusal('203.0.113.10');
    expect(full.status, full.text).to.equal(503);
    expect(full.body.code).to.equal('REALTIME_SERVER_FULL');
    expect(full.body.message).to.include('maximum of 6 realtime connections');
    expect(full.headers.get('retry-after')).to.equal('5');
    const other = await createProjectFixture(app.services, 'Other');
    await createCollectionFixture(app.services, other.project.id, { name: 'posts' });
    const otherProject = await app.client.get('/api/realtime/posts', {
      query: { key: other.publishableKey },
      headers: from('203.0.113.11'),
    });
    expect(otherProject.status).to.equal(503);
    expect(app.services.realtime.held()).to.equal(6);
    streams.pop()!.close();
    for (let i = 0; i < 40 && app.services.realtime.held() === 6; i++) await pause(25);
    expect(app.services.realtime.held()).to.equal(5);
    await open('203.0.113.10');
  });
});
