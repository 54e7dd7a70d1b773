import { expect } from 'chai';
import { testEnv } from '../helpers/env.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';
import { validatorFor, type ApiClient, type ApiResponse } from '../helpers/client.js';
import { createCollectionFixture, createProjectFixture, type ProjectFixture } from '../helpers/fixtures.js';

/** Points a MongoDB or Redis URL at the proxy instead of the real server. */
function throughProxy(uri: string, proxy: TcpProxy): string {
  const url = new URL(uri);
  const target = `${url.hostname}:${url.port || (url.protocol.startsWith('redis') ? 6379 : 27017)}`;
  return uri.replace(target, `127.0.0.1:${proxy.port}`);
}

function hostPort(uri: string, fallbackPort: number): [string, number] {
  const url = new URL(uri);
  return [url.hostname, Number(url.port || fallbackPort)];
}

const CONNECT_TIMEOUT_MS = 1000;
const QUERY_TIMEOUT_MS = 4000;
const settings = {
  CONNECT_TIMEOUT_MS: String(CONNECT_TIMEOUT_MS),
  QUERY_TIMEOUT_MS: String(QUERY_TIMEOUT_MS),
};

async function timed<T>(work: Promise<T>): Promise<{ value: T; ms: number }> {
  const started = Date.now();
  const value = await work;
  return { value, ms: Date.now() - started };
}

function expectUnavailable(res: ApiResponse, dependency: 'database' | 'cache') {
  expect(res.status, res.text).to.equal(503);
  expect(res.body).to.include({
    success: false,
    data: null,
    code: 'DEPENDENCY_UNAVAILABLE',
    message: `Unavailable: ${dependency}`,
  });
  // The answer never carries the driver's words (hosts, ports, URIs).
  for (const leak of ['127.0.0.1', 'mongodb://', 'redis://', 'ECONNREFUSED'])
    expect(res.text).not.to.include(leak);
}

/** Polls until the request answers `status` again (the clients reconnect by themselves). */
async function until(
  status: number,
  send: () => Promise<ApiResponse>,
  withinMs: number,
): Promise<ApiResponse> {
  const deadline = Date.now() + withinMs;
  let res = await send();
  while (res.status !== status && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    res = await send();
  }
  return res;
}

describe('when a dependency goes away', () => {
  describe('MongoDB', () => {
    let proxy: TcpProxy;
    let app: TestApp;
    let fixture: ProjectFixture;
    let client: ApiClient;
    before(async () => {
      proxy = await startTcpProxy(...hostPort(testEnv.MONGODB_URI!, 27017));
      app = await startTestApp('public', 'failures_db', {
        ...settings,
        MONGODB_URI: throughProxy(testEnv.MONGODB_URI!, proxy),
      });
      fixture = await createProjectFixture(app.services);
      await createCollectionFixture(app.services, fixture.project.id, { name: 'posts' });
      client = app.client.with({ 'x-api-key': fixture.secretKey });
      expect((await client.get('/api/data/posts')).status).to.equal(200);
    });
    after(async () => {
      await proxy?.restore().catch(() => undefined);
      await app?.close();
      await proxy?.close();
    });

    it('answers reads and writes 503 within the timeouts, health names it, then recovers', async function () {
      this.timeout(60_000);
      await proxy.cut();
      // Several requests at once, reads and writes: every one is answered, none hangs.
      const results = await Promise.all([
        timed(client.get('/api/data/posts')),
        timed(client.post('/api/data/posts', { title: 'while down' })),
        timed(client.get('/api/data/posts', { query: { total: true } })),
        // A key never seen by this process needs the database to be resolved.
        timed(app.client.with({ 'x-api-key': `sk_live_${'a'.repeat(43)}` }).get('/api/data/posts')),
      ]);
      for (const { value, ms } of results) {
        expectUnavailable(value, 'database');
        // Server selection waits CONNECT_TIMEOUT_MS (twice at most: a retryable read or write
        // whose connection broke retries once), far below QUERY_TIMEOUT_MS.
        expect(ms).to.be.below(QUERY_TIMEOUT_MS);
      }
      const health = await app.client.get('/api/health');
      expect(health.status).to.equal(503);
      expect(health.body.message).to.equal('Unavailable: database');

      await proxy.restore();
      const back = await until(200, () => client.get('/api/data/posts'), 20_000);
      expect(back.status).to.equal(200);
      expect((await client.post('/api/data/posts', { title: 'after' })).status).to.equal(201);
      expect((await app.client.get('/api/health')).status).to.equal(200);
    });
  });

  describe('Redis', () => {
    let proxy: TcpProxy;
    let app: TestApp;
    let fixture: ProjectFixture;
    let client: ApiClient;
    before(async function () {
      if (!testEnv.REDIS_URL) return this.skip(); // the in-process cache cannot go away
      proxy = await startTcpProxy(...hostPort(testEnv.REDIS_URL, 6379));
      app = await startTestApp('public', 'failures_cache', {
        ...settings,
        REDIS_URL: throughProxy(testEnv.REDIS_URL, proxy),
      });
      fixture = await createProjectFixture(app.services);
      await createCollectionFixture(app.services, fixture.project.id, { name: 'posts' });
      client = app.client.with({ 'x-api-key': fixture.secretKey });
      expect((await client.get('/api/data/posts')).status).to.equal(200);
    });
    after(async () => {
      await proxy?.restore().catch(() => undefined);
      await app?.close();
      await proxy?.close();
    });

    it('answers 503 at once, health names it, then recovers', async function () {
      this.timeout(60_000);
      await proxy.cut();
      const results = await Promise.all([
        timed(client.get('/api/data/posts')),
        timed(client.post('/api/data/posts', { title: 'while down' })),
        timed(app.client.with({ 'x-api-key': fixture.publishableKey }).get('/api/schemas/posts')),
      ]);
      for (const { value, ms } of results) {
        expectUnavailable(value, 'cache');
        // No offline queue: a command fails as soon as the client knows it is disconnected,
        // at worst after the command timeout.
        expect(ms).to.be.below(CONNECT_TIMEOUT_MS + 1000);
      }
      const health = await app.client.get('/api/health');
      expect(health.status).to.equal(503);
      expect(health.body.message).to.equal('Unavailable: cache');

      await proxy.restore();
      const back = await until(200, () => client.get('/api/data/posts'), 20_000);
      expect(back.status).to.equal(200);
      expect(back.headers.get('ratelimit-limit')).to.equal('300');
      expect((await app.client.get('/api/health')).status).to.equal(200);
    });

    it('answers 503 on every operation that takes an API key', async function () {
      this.timeout(60_000);
      await proxy.cut();
      try {
        const operations = validatorFor('public')
          .getOperations()
          .filter((op) => op.responses?.['503'] && JSON.stringify(op.security ?? []).includes('apiKey'));
        expect(operations.length).to.be.greaterThan(20);
        const keyed = app.client.with({ 'x-api-key': fixture.publishableKey });
        for (const op of operations) {
          const path = op.path.replace(/\{[^}]+\}/g, 'x');
          const res = await keyed.request(
            op.method.toUpperCase(),
            path,
            op.method === 'get' ? {} : { body: {} },
          );
          expect(res.status, op.operationId).to.equal(503);
        }
      } finally {
        await proxy.restore();
      }
    });
  });
});
