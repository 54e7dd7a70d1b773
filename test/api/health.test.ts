import { expect } from 'chai';
import { testEnv } from '../helpers/env.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { startTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';

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

describe('GET /api/health', () => {
  describe('with every dependency up', () => {
    let app: TestApp;
    before(async () => {
      app = await startTestApp('public', 'health');
    });
    after(() => app.close());

    it('answers 200 with the database and cache checks', async () => {
      const res = await app.client.get('/api/health');
      expect(res.status).to.equal(200);
      expect(res.body.success).to.equal(true);
      expect(res.body.data.status).to.equal('ok');
      expect(res.body.data.checks.database.status).to.equal('up');
      expect(res.body.data.checks.cache.status).to.equal('up');
      expect(res.body.data.checks.cache.kind).to.equal(testEnv.REDIS_URL ? 'redis' : 'memory');
      expect(res.body.data.version).to.match(/^\d+\.\d+\.\d+/);
    });

    it('is served by the dashboard role too', async () => {
      const dashboard = await startTestApp('dashboard', 'health_dash');
      try {
        const res = await dashboard.client.get('/api/health');
        expect(res.status).to.equal(200);
      } finally {
        await dashboard.close();
      }
    });

    it('reports an in-process cache when REDIS_URL is unset', async () => {
      const memory = await startTestApp('public', 'health_mem', { REDIS_URL: '' });
      try {
        const res = await memory.client.get('/api/health');
        expect(res.status).to.equal(200);
        expect(res.body.data.checks.cache).to.include({ status: 'up', kind: 'memory' });
      } finally {
        await memory.close();
      }
    });
  });

  for (const role of ['public', 'dashboard'] as const)
    describe(`when the database goes away (${role})`, () => {
      let proxy: TcpProxy;
      let app: TestApp;
      before(async () => {
        proxy = await startTcpProxy(...hostPort(testEnv.MONGODB_URI!, 27017));
        app = await startTestApp(role, 'health_db', {
          MONGODB_URI: throughProxy(testEnv.MONGODB_URI!, proxy),
        });
      });
      after(async () => {
        await proxy.restore().catch(() => undefined);
        await app.close();
        await proxy.close();
      });

      it('answers 503 naming the database, then 200 again once it is back', async function () {
        this.timeout(30_000);
        await proxy.cut();
        const down = await app.client.get('/api/health');
        expect(down.status).to.equal(503);
        expect(down.body.success).to.equal(false);
        expect(down.body.message).to.equal('Unavailable: database');
        expect(down.body.data.status).to.equal('unavailable');
        expect(down.body.data.checks.database.status).to.equal('down');
        // The answer is public: fixed words, never the driver's message with hosts and ports.
        expect(down.body.data.checks.database.error).to.be.oneOf(['timeout', 'unreachable']);
        for (const leak of ['127.0.0.1', 'localhost', String(proxy.port), 'mongodb://'])
          expect(down.text).not.to.include(leak);
        expect(down.body.data.checks.cache.status).to.equal('up');

        await proxy.restore();
        let back = await app.client.get('/api/health');
        for (let i = 0; i < 20 && back.status !== 200; i++) {
          await new Promise((r) => setTimeout(r, 500));
          back = await app.client.get('/api/health');
        }
        expect(back.status).to.equal(200);
      });
    });

  describe('when Redis goes away', () => {
    let proxy: TcpProxy;
    let app: TestApp;
    before(async function () {
      if (!testEnv.REDIS_URL) return this.skip(); // the in-process cache cannot go away
      proxy = await startTcpProxy(...hostPort(testEnv.REDIS_URL, 6379));
      app = await startTestApp('public', 'health_cache', {
        REDIS_URL: throughProxy(testEnv.REDIS_URL, proxy),
      });
    });
    after(async () => {
      await app?.close();
      await proxy?.close();
    });

    it('answers 503 naming the cache', async () => {
      await proxy.cut();
      const res = await app.client.get('/api/health');
      expect(res.status).to.equal(503);
      expect(res.body.message).to.equal('Unavailable: cache');
      expect(res.body.data.checks.cache).to.include({ status: 'down', kind: 'redis' });
      expect(res.body.data.checks.cache.error).to.be.oneOf(['timeout', 'unreachable']);
      for (const leak of ['127.0.0.1', 'localhost', String(proxy.port), 'redis://'])
        expect(res.text).not.to.include(leak);
      expect(res.body.data.checks.database.status).to.equal('up');
    });
  });
});
