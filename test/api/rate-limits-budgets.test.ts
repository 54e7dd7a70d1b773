// The budgets of one project's keys (issue 29 #6, #17): a client with the publishable key cannot
// take the project's secret-key traffic down, one client IP gets a share of the publishable
// budget, and an IPv6 client counts by its /64. Client addresses come from X-Forwarded-For with
// TRUST_PROXY, as behind a load balancer.
import { expect } from 'chai';
import { startTestApp, type TestApp } from '../helpers/app.js';
import type { ApiResponse } from '../helpers/client.js';
import { createCollectionFixture, createProjectFixture, type ProjectFixture } from '../helpers/fixtures.js';

const from = (ip: string) => ({ headers: { 'x-forwarded-for': ip } });

function expectHeaders(res: ApiResponse, limit: number, remaining: number) {
  expect(res.headers.get('ratelimit-limit'), 'RateLimit-Limit').to.equal(String(limit));
  expect(res.headers.get('ratelimit-remaining'), 'RateLimit-Remaining').to.equal(String(remaining));
  expect(res.headers.get('ratelimit-policy')).to.equal(`${limit};w=60`);
}

describe('rate-limit budgets of a project', () => {
  let app: TestApp;
  let fixture: ProjectFixture;
  before(async () => {
    // A share of 25 %: of a project limit of 8, one client IP may make 2 publishable calls a minute.
    app = await startTestApp('public', 'rate_limits_budgets', {
      TRUST_PROXY: 'true',
      RATE_LIMIT_CLIENT_SHARE_PERCENT: '25',
    });
  });
  after(() => app.close());

  beforeEach(async () => {
    fixture = await createProjectFixture(app.services);
    await createCollectionFixture(app.services, fixture.project.id, { name: 'posts' });
    await app.services.repos.projects.setLimits(fixture.project.id, { requestsPerMinute: 8 });
  });

  const publishable = (ip: string) =>
    app.client.with({ 'x-api-key': fixture.publishableKey }).get('/api/data/posts', from(ip));
  const secret = (ip: string) =>
    app.client.with({ 'x-api-key': fixture.secretKey }).get('/api/data/posts', from(ip));

  it('keeps the secret key answering after the publishable key spent its whole budget', async () => {
    const statuses: number[] = [];
    // Five clients of two calls each: the first four spend the publishable budget of 8.
    for (let client = 1; client <= 5; client++) {
      for (let i = 0; i < 2; i++) statuses.push((await publishable(`198.51.100.${client}`)).status);
    }
    expect(statuses).to.deep.equal([200, 200, 200, 200, 200, 200, 200, 200, 429, 429]);
    const drained = await publishable('198.51.100.6');
    expect(drained.status).to.equal(429);
    expect(drained.body.message).to.include("the project's limit of 8 requests per minute");
    expectHeaders(drained, 8, 0);

    // The project's servers, from the same address as one of the clients, still get through.
    for (const remaining of [7, 6]) {
      const res = await secret('198.51.100.1');
      expect(res.status).to.equal(200);
      expectHeaders(res, 8, remaining);
    }
  });

  it('gives one client IP a share of the publishable budget, and the others theirs', async () => {
    const first = await publishable('203.0.113.7');
    expect(first.status).to.equal(200);
    expectHeaders(first, 2, 1);
    expectHeaders(await publishable('203.0.113.7'), 2, 0);
    const refused = await publishable('203.0.113.7');
    expect(refused.status).to.equal(429);
    expect(refused.body.message).to.include(
      'the limit of 2 requests per minute from one client IP address to this project',
    );
    expect(Number(refused.headers.get('retry-after'))).to.be.within(1, 30);
    expect((await publishable('203.0.113.8')).status).to.equal(200);
  });

  it('counts an IPv6 client by its /64 network', async () => {
    expect((await publishable('2001:db8:1:2::1')).status).to.equal(200);
    expect((await publishable('2001:db8:1:2:ffff:ffff:ffff:fffe')).status).to.equal(200);
    const sameNetwork = await publishable('2001:db8:1:2::abcd');
    expect(sameNetwork.status).to.equal(429);
    expect(sameNetwork.body.message).to.include('from one client IP address');
    expect((await publishable('2001:db8:1:3::1')).status).to.equal(200);
  });
});

describe('rate-limit budgets: the default client share', () => {
  let app: TestApp;
  let fixture: ProjectFixture;
  before(async () => {
    // No RATE_LIMIT_CLIENT_SHARE_PERCENT: the default (20 %) is what is tested.
    app = await startTestApp('public', 'rate_limits_default_share', { TRUST_PROXY: 'true' });
    fixture = await createProjectFixture(app.services);
    await createCollectionFixture(app.services, fixture.project.id, { name: 'posts' });
    await app.services.repos.projects.setLimits(fixture.project.id, { requestsPerMinute: 50 });
  });
  after(() => app.close());

  const publishable = (ip: string) =>
    app.client.with({ 'x-api-key': fixture.publishableKey }).get('/api/data/posts', from(ip));

  it('takes 5 clients to drain the publishable budget: 4 leave a fifth its full share', async () => {
    // Of a budget of 50 a minute, one client IP may use 10; each of four spends all of it.
    for (let client = 1; client <= 4; client++) {
      const ip = `198.51.100.${client}`;
      for (let i = 0; i < 10; i++)
        expect((await publishable(ip)).status, `${ip} call ${i + 1}`).to.equal(200);
      const over = await publishable(ip);
      expect(over.status).to.equal(429);
      expect(over.body.message).to.include('the limit of 10 requests per minute from one client IP address');
    }
    // The fifth still has its whole share (the project's 10 left, the tighter bucket shown); after
    // it the budget is spent for every client.
    const fifth = await publishable('198.51.100.5');
    expect(fifth.status).to.equal(200);
    expectHeaders(fifth, 50, 9);
    for (let i = 1; i < 10; i++) expect((await publishable('198.51.100.5')).status).to.equal(200);
    const sixth = await publishable('198.51.100.6');
    expect(sixth.status, sixth.text).to.equal(429);
    expect(sixth.body.message).to.include("the project's limit of 50 requests per minute");
  });
});
