import { expect } from 'chai';
import { startTestApp, startTestApps, suiteDatabase, type TestApp } from '../helpers/app.js';
import { signUpByMail } from '../helpers/signup.js';
import type { ApiClient, ApiResponse } from '../helpers/client.js';
import { validatorFor } from '../helpers/client.js';
import {
  createCollectionFixture,
  createOperator,
  createProjectFixture,
  type ProjectFixture,
} from '../helpers/fixtures.js';
import { testEnv } from '../helpers/env.js';

const accepted = (responses: ApiResponse[]) => responses.filter((r) => r.status !== 429).length;

/** Sets a project's requestsPerMinute the way the operator endpoint does (same repository call). */
async function limitProject(app: TestApp, projectId: string, requestsPerMinute: number) {
  await app.services.repos.projects.setLimits(projectId, { requestsPerMinute });
}

async function projectWithPosts(app: TestApp): Promise<ProjectFixture> {
  // The installation's first account is its operator, with no plan limits: the projects here
  // follow Free's, so an operator signs up first.
  if ((await app.deps.db.platform.collection('developers').countDocuments()) === 0)
    await createOperator(app.services);
  const fixture = await createProjectFixture(app.services);
  await createCollectionFixture(app.services, fixture.project.id, { name: 'posts' });
  return fixture;
}

function expectHeaders(res: ApiResponse, limit: number, remaining: number) {
  expect(res.headers.get('ratelimit-limit'), 'RateLimit-Limit').to.equal(String(limit));
  expect(res.headers.get('ratelimit-remaining'), 'RateLimit-Remaining').to.equal(String(remaining));
  expect(Number(res.headers.get('ratelimit-reset')), 'RateLimit-Reset').to.be.within(1, 60);
  expect(res.headers.get('ratelimit-policy')).to.equal(`${limit};w=60`);
}

describe('rate limits of the public API', () => {
  describe('per project, shared by two processes on one Redis', () => {
    let first: TestApp;
    let second: TestApp;
    before(async function () {
      if (!testEnv.REDIS_URL) return this.skip();
      // Two public-role processes of one installation: same platform database, same Redis.
      const shared = { PLATFORM_DB: suiteDatabase('rate_limits') };
      first = await startTestApp('public', 'rate_limits', shared);
      second = await startTestApp('public', 'rate_limits', shared);
    });
    after(async () => {
      await second?.close();
      await first?.close();
    });

    it('accepts exactly the limit across both processes, in parallel', async () => {
      const fixture = await projectWithPosts(first);
      await limitProject(first, fixture.project.id, 7);
      const clients = [first, second].map((app) => app.client.with({ 'x-api-key': fixture.secretKey }));
      const responses = await Promise.all(
        Array.from({ length: 16 }, (_, i) => clients[i % 2]!.get('/api/data/posts')),
      );
      expect(accepted(responses)).to.equal(7);
      expect(responses.filter((r) => r.status === 200)).to.have.length(7);
      const refused = responses.filter((r) => r.status === 429);
      expect(refused).to.have.length(9);
      for (const res of refused) {
        expect(res.body.code).to.equal('RATE_LIMITED');
        expect(res.body.message).to.include("project's limit of 7 requests per minute");
      }
    });

    it('counts Remaining down to 0, then answers 429 with Retry-After', async () => {
      const fixture = await projectWithPosts(first);
      await limitProject(first, fixture.project.id, 3);
      const clients = [first, second].map((app) => app.client.with({ 'x-api-key': fixture.secretKey }));
      for (const [i, remaining] of [2, 1, 0].entries()) {
        const res = await clients[i % 2]!.get('/api/data/posts');
        expect(res.status).to.equal(200);
        expectHeaders(res, 3, remaining);
      }
      const refused = await clients[1]!.get('/api/data/posts');
      expect(refused.status).to.equal(429);
      expectHeaders(refused, 3, 0);
      // One request comes back every 60/3 = 20 seconds.
      expect(Number(refused.headers.get('retry-after'))).to.be.within(18, 20);
      expect(refused.body).to.include({ success: false, code: 'RATE_LIMITED', data: null });
    });

    it('sends the headers on errors of limited operations too, and charges the project for them', async () => {
      const fixture = await projectWithPosts(first);
      await limitProject(first, fixture.project.id, 2);
      const client = first.client.with({ 'x-api-key': fixture.secretKey });
      const missing = await client.get('/api/data/nothing-here');
      expect(missing.status).to.equal(404);
      expectHeaders(missing, 2, 1);
      const invalid = await client.get('/api/data/posts/not-an-id');
      expect(invalid.status).to.equal(400);
      expectHeaders(invalid, 2, 0);
      expect((await client.get('/api/data/posts')).status).to.equal(429);
    });

    it('applies the owner plan: 300 per minute on Free, 3000 on Pro', async () => {
      const free = await projectWithPosts(first);
      const res = await first.client.with({ 'x-api-key': free.secretKey }).get('/api/data/posts');
      expectHeaders(res, 300, 299);
      const pro = await projectWithPosts(first);
      await first.services.repos.developers.setPlan(pro.developer.id, 'pro');
      const proRes = await second.client.with({ 'x-api-key': pro.secretKey }).get('/api/data/posts');
      expectHeaders(proRes, 3000, 2999);
    });
  });

  describe('extreme overrides', () => {
    let app: TestApp;
    before(async () => {
      app = await startTestApp('public', 'rate_limits_extreme');
    });
    after(() => app.close());

    it('lets a practically unlimited project through and stops a project set to 0', async () => {
      const open = await projectWithPosts(app);
      await limitProject(app, open.project.id, 1e9);
      const client = app.client.with({ 'x-api-key': open.secretKey });
      const responses = await Promise.all(Array.from({ length: 5 }, () => client.get('/api/data/posts')));
      expect(responses.map((r) => r.status)).to.deep.equal([200, 200, 200, 200, 200]);
      const stopped = await projectWithPosts(app);
      await limitProject(app, stopped.project.id, 0);
      const refused = await app.client.with({ 'x-api-key': stopped.secretKey }).get('/api/data/posts');
      expect(refused.status).to.equal(429);
      expect(refused.headers.get('retry-after')).to.equal('60');
    });
  });

  describe('operator override', () => {
    let apps: Awaited<ReturnType<typeof startTestApps>>;
    let operatorCookie: string;
    before(async () => {
      apps = await startTestApps('rate_limits_op');
      operatorCookie = (
        await signUpByMail(apps.dashboard.client, 'operator@example.com', 'correct horse battery')
      ).cookie;
    });
    after(() => apps.close());

    it('raises the limit of one project only', async () => {
      const raised = await projectWithPosts(apps.public);
      const other = await projectWithPosts(apps.public);
      const admin = apps.dashboard.client.with({ cookie: operatorCookie });
      for (const fixture of [raised, other]) {
        const res = await admin.put(`/api/admin/projects/${fixture.project.id}/limits`, {
          limits: { requestsPerMinute: 2 },
        });
        expect(res.status).to.equal(200);
      }
      const call = (fixture: ProjectFixture, n: number) =>
        Promise.all(
          Array.from({ length: n }, () =>
            apps.public.client.with({ 'x-api-key': fixture.secretKey }).get('/api/data/posts'),
          ),
        );
      expect(accepted(await call(raised, 4))).to.equal(2);
      expect(accepted(await call(other, 4))).to.equal(2);

      const res = await admin.put(`/api/admin/projects/${raised.project.id}/limits`, {
        limits: { requestsPerMinute: 6 },
      });
      expect(res.status).to.equal(200);
      // The bucket keeps what was used: 2 of 6, so 4 more fit now.
      expect(accepted(await call(raised, 6))).to.equal(4);
      expect(accepted(await call(other, 3))).to.equal(0);
    });
  });

  describe('per client IP', () => {
    let app: TestApp;
    let fixture: ProjectFixture;
    before(async () => {
      app = await startTestApp('public', 'rate_limits_ip', { RATE_LIMIT_IP_PER_MINUTE: '3' });
      fixture = await projectWithPosts(app);
    });
    after(() => app.close());

    it('limits one client, counting bad keys, and leaves secret-key calls to the project limit', async () => {
      const publishable = app.client.with({ 'x-api-key': fixture.publishableKey });
      const ok = await publishable.get('/api/data/posts');
      expect(ok.status).to.equal(200);
      expectHeaders(ok, 3, 2);
      // Requests with a bad key or none are charged to the client IP: floods cannot bypass it.
      const bad = await app.client.with({ 'x-api-key': 'pk_live_not-a-key' }).get('/api/data/posts');
      expect(bad.status).to.equal(401);
      expectHeaders(bad, 3, 1);
      const none = await app.client.get('/api/data/posts');
      expect(none.status).to.equal(401);
      expectHeaders(none, 3, 0);
      for (const client of [publishable, app.client.with({ 'x-api-key': 'pk_live_still-not-a-key' })]) {
        const refused = await client.get('/api/data/posts');
        expect(refused.status).to.equal(429);
        expect(refused.body.message).to.include('3 requests per minute from one client IP address');
        expect(Number(refused.headers.get('retry-after'))).to.be.within(1, 20);
      }
      // Server-side code with the secret key often calls from one address: only the secret key's
      // budget of the project counts (the publishable-key request above did not touch it).
      const secret = await app.client.with({ 'x-api-key': fixture.secretKey }).get('/api/data/posts');
      expect(secret.status).to.equal(200);
      expectHeaders(secret, 300, 299);
    });

    it('refuses a flood of keys shaped like secret keys before any key lookup, yet lets a secret key it knows through', async () => {
      // The client IP is over its limit (the test above). An attacker's keys start with sk_live_:
      // refused early, without a key lookup (counted by wrapping the service), but for one lookup
      // per blocked window that an unknown secret key gets (a server's first call after a restart).
      const burst = async () => {
        for (let i = 0; i < 5 && (await app.client.get('/api/data/posts')).status !== 429; i++);
      };
      await burst();
      let lookups = 0;
      const projects = app.services.projects;
      const resolve = projects.resolveApiKey;
      projects.resolveApiKey = (key) => (lookups++, resolve(key));
      try {
        for (let i = 0; i < 5; i++) {
          const res = await app.client.with({ 'x-api-key': `sk_live_forged-${i}` }).get('/api/data/posts');
          expect(res.status).to.equal(429);
          expect(res.body.message).to.include('from one client IP address');
        }
        expect(lookups, 'key lookups for 5 forged secret keys').to.be.at.most(1);
        // The project's real secret key resolved in this process before: still through.
        const before = lookups;
        const secret = await app.client.with({ 'x-api-key': fixture.secretKey }).get('/api/data/posts');
        expect(secret.status).to.equal(200);
        expect(lookups).to.equal(before + 1);
      } finally {
        projects.resolveApiKey = resolve;
      }
    });

    it('leaves health and the API reference unlimited', async () => {
      const health = await app.client.get('/api/health');
      expect(health.status).to.equal(200);
      expect(health.headers.get('ratelimit-limit')).to.equal(null);
      const spec = await fetch(`${app.url}/openapi.json`);
      expect(spec.status).to.equal(200);
      expect(spec.headers.get('ratelimit-limit')).to.equal(null);
    });

    it('answers 429 on every operation that takes an API key', async () => {
      const api = validatorFor('public');
      const limited = api
        .getOperations()
        .filter((op) => op.responses?.['429'] && JSON.stringify(op.security ?? []).includes('apiKey'));
      expect(limited.length).to.be.greaterThan(20);
      const client: ApiClient = app.client.with({ 'x-api-key': fixture.publishableKey });
      let refused = false;
      for (let i = 0; i < 5 && !refused; i++) refused = (await client.get('/api/data/posts')).status === 429;
      expect(refused).to.equal(true);
      for (const op of limited) {
        const path = op.path.replace(/\{[^}]+\}/g, 'x');
        const res = await client.request(
          op.method.toUpperCase(),
          path,
          op.method === 'get' ? {} : { body: {} },
        );
        expect(res.status, `${op.operationId}`).to.equal(429);
      }
    });
  });

  it('holds in one process without Redis (in-process cache)', async () => {
    const app = await startTestApp('public', 'rate_limits_mem', { REDIS_URL: '' });
    try {
      expect(app.deps.cache.kind).to.equal('memory');
      const fixture = await projectWithPosts(app);
      await limitProject(app, fixture.project.id, 4);
      const client = app.client.with({ 'x-api-key': fixture.secretKey });
      const responses = await Promise.all(Array.from({ length: 9 }, () => client.get('/api/data/posts')));
      expect(accepted(responses)).to.equal(4);
      const refused = responses.find((r) => r.status === 429)!;
      expect(Number(refused.headers.get('retry-after'))).to.be.within(1, 15);
      expectHeaders(refused, 4, 0);
    } finally {
      await app.close();
    }
  });
});
