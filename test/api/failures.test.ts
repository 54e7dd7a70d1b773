import { expect } from 'chai';
import { testEnv } from '../helpers/env.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';
import { validatorFor, type ApiClient, type ApiResponse } from '../helpers/client.js';
import {
  createCollectionFixture,
  createOperator,
  createProjectFixture,
  type ProjectFixture,
} from '../helpers/fixtures.js';

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

/**
 * A public app whose MongoDB or Redis connection goes through a TCP proxy the test can cut, with a
 * project and a `posts` collection; registers its own before/after hooks in the calling describe.
 */
function behindProxy(env: 'MONGODB_URI' | 'REDIS_URL', suite: string) {
  const state = {} as { proxy: TcpProxy; app: TestApp; fixture: ProjectFixture; client: ApiClient };
  before(async function () {
    const uri = testEnv[env];
    if (!uri) return this.skip(); // the in-process cache cannot go away
    state.proxy = await startTcpProxy(...hostPort(uri, env === 'REDIS_URL' ? 6379 : 27017));
    state.app = await startTestApp('public', suite, { ...settings, [env]: throughProxy(uri, state.proxy) });
    // The first account is the operator, who has no plan limits: the fixture's owner is a customer.
    await createOperator(state.app.services);
    state.fixture = await createProjectFixture(state.app.services);
    await createCollectionFixture(state.app.services, state.fixture.project.id, { name: 'posts' });
    state.client = state.app.client.with({ 'x-api-key': state.fixture.secretKey });
    expect((await state.client.get('/api/data/posts')).status).to.equal(200);
  });
  after(async () => {
    await state.proxy?.restore().catch(() => undefined);
    await state.app?.close();
    await state.proxy?.close();
  });
  return state;
}

describe('when a dependency goes away', () => {
  describe('MongoDB', () => {
    const env = behindProxy('MONGODB_URI', 'failures_db');

    it('answers reads and writes 503 within the timeouts, health names it, then recovers', async function () {
      this.timeout(60_000);
      await env.proxy.cut();
      // Several requests at once, reads and writes: every one is answered, none hangs.
      const results = await Promise.all([
        timed(env.client.get('/api/data/posts')),
        timed(env.client.post('/api/data/posts', { title: 'while down' })),
        timed(env.client.get('/api/data/posts', { query: { total: true } })),
        // A key never seen by this process needs the database to be resolved.
        timed(env.app.client.with({ 'x-api-key': `sk_live_${'a'.repeat(43)}` }).get('/api/data/posts')),
      ]);
      for (const { value, ms } of results) {
        expectUnavailable(value, 'database');
        // Server selection waits CONNECT_TIMEOUT_MS (twice at most: a retryable read or write
        // whose connection broke retries once), far below QUERY_TIMEOUT_MS.
        expect(ms).to.be.below(QUERY_TIMEOUT_MS);
      }
      const health = await env.app.client.get('/api/health');
      expect(health.status).to.equal(503);
      expect(health.body.message).to.equal('Unavailable: database');

      await env.proxy.restore();
      const back = await until(200, () => env.client.get('/api/data/posts'), 20_000);
      expect(back.status).to.equal(200);
      expect((await env.client.post('/api/data/posts', { title: 'after' })).status).to.equal(201);
      expect((await env.app.client.get('/api/health')).status).to.equal(200);
    });
  });

  describe('Redis', () => {
    const env = behindProxy('REDIS_URL', 'failures_cache');

    it('answers 503 at once, health names it, then recovers', async function () {
      this.timeout(60_000);
      await env.proxy.cut();
      const results = await Promise.all([
        timed(env.client.get('/api/data/posts')),
        timed(env.client.post('/api/data/posts', { title: 'while down' })),
        timed(env.app.client.with({ 'x-api-key': env.fixture.publishableKey }).get('/api/schemas/posts')),
      ]);
      for (const { value, ms } of results) {
        expectUnavailable(value, 'cache');
        // No offline queue: a command fails as soon as the client knows it is disconnected,
        // at worst after the command timeout.
        expect(ms).to.be.below(CONNECT_TIMEOUT_MS + 1000);
      }
      const health = await env.app.client.get('/api/health');
      expect(health.status).to.equal(503);
      expect(health.body.message).to.equal('Unavailable: cache');

      await env.proxy.restore();
      const back = await until(200, () => env.client.get('/api/data/posts'), 20_000);
      expect(back.status).to.equal(200);
      expect(back.headers.get('ratelimit-limit')).to.equal('300');
      expect((await env.app.client.get('/api/health')).status).to.equal(200);
    });

    it('answers 503 on every operation that takes an API key', async function () {
      this.timeout(60_000);
      await env.proxy.cut();
      try {
        const operations = validatorFor('public')
          .getOperations()
          .filter((op) => op.responses?.['503'] && JSON.stringify(op.security ?? []).includes('apiKey'));
        expect(operations.length).to.be.greaterThan(20);
        const keyed = env.app.client.with({ 'x-api-key': env.fixture.publishableKey });
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
        await env.proxy.restore();
      }
    });

    it('fails a rate-limit lease fetch for every request waiting on it, and fetches again after', async function () {
      this.timeout(60_000);
      await until(200, () => env.client.get('/api/data/posts'), 20_000);
      await env.app.services.repos.projects.setLimits(env.fixture.project.id, { requestsPerMinute: 6000 });
      const wave = (n: number) =>
        Promise.all(Array.from({ length: n }, () => timed(env.client.get('/api/data/posts'))));
      // Busy enough that requests share leases of the rate limit (src/cache/rate-lease.ts).
      for (let i = 0; i < 10; i++) await wave(16);
      await env.proxy.cut();
      const during = [];
      try {
        // The lease held serves on until it is spent; the fetch after it fails for the request
        // that sent it and for every request waiting on it.
        for (let i = 0; i < 12; i++) during.push(...(await wave(16)));
      } finally {
        await env.proxy.restore();
      }
      const failed = during.filter(({ value }) => value.status !== 200);
      expect(failed).to.have.length.above(16);
      for (const { value, ms } of failed) {
        expectUnavailable(value, 'cache');
        expect(ms).to.be.below(CONNECT_TIMEOUT_MS + 1000);
      }
      // No failed fetch is left in place: once Redis is back, busy traffic is answered again.
      await until(200, () => env.client.get('/api/data/posts'), 20_000);
      const after = await wave(32);
      expect(after.map(({ value }) => value.status)).to.deep.equal(Array(32).fill(200));
    });
  });
});
