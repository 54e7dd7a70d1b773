// Log-in lockout keyed by (account, client address): wrong guesses from one address lock that
// address out of the account only, so an attacker elsewhere cannot lock the owner out; a much
// higher per-account ceiling still stops a guesser spread over many addresses. Clients are told
// apart through X-Forwarded-For with TRUST_PROXY, as behind the real proxy.
import { expect } from 'chai';
import { randomInt } from 'node:crypto';
import { startTestApp, type TestApp } from '../helpers/app.js';
import type { ApiResponse } from '../helpers/client.js';
import { createDeveloper } from '../helpers/fixtures.js';
import { authProject, keyed, signup, PASSWORD } from '../helpers/user-auth.js';

// Fresh addresses per run: the counters live in the shared cache for 15 minutes.
const address = () => `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;
const from = (ip: string) => ({ headers: { 'x-forwarded-for': ip } });

type Login = (password: string, ip: string) => Promise<ApiResponse>;

/** Six wrong guesses from A (the sixth refused), then the right password from B and from A. */
async function lockOutOneClient(login: Login, right: string) {
  const [a, b] = [address(), address()];
  const guesses: number[] = [];
  for (let i = 0; i < 6; i++) guesses.push((await login(`wrong guess ${i}`, a)).status);
  expect(guesses).to.deep.equal([401, 401, 401, 401, 401, 429]);
  const owner = await login(right, b);
  expect(owner.status, owner.text).to.equal(200);
  const attacker = await login(right, a);
  expect(attacker.status).to.equal(429, 'the guessing address stays locked, even with the right password');
  expect(Number(attacker.headers.get('retry-after'))).to.be.greaterThan(0);
}

/** 100 wrong guesses from 100 addresses use up the account's ceiling: the 101st address is refused. */
async function spreadGuessesHitTheCeiling(login: Login, right: string) {
  const statuses: Record<number, number> = {};
  for (let i = 0; i < 100; i++) {
    const { status } = await login(`wrong guess ${i}`, address());
    statuses[status] = (statuses[status] ?? 0) + 1;
  }
  expect(statuses).to.deep.equal({ 401: 100 });
  const next = await login(right, address());
  expect(next.status).to.equal(429);
}

describe('log-in lockout per account and client address', () => {
  describe('developers (dashboard)', () => {
    let app: TestApp;
    before(async () => {
      app = await startTestApp('dashboard', 'lockout_dash', { TRUST_PROXY: 'true' });
    });
    after(() => app.close());

    const loginAs =
      (email: string): Login =>
      (password, ip) =>
        app.client.post('/api/auth/login', { email, password }, from(ip));

    it('wrong guesses from one address do not lock the owner out from another', async () => {
      const dev = await createDeveloper(app.services);
      await lockOutOneClient(loginAs(dev.developer.email), dev.password);
    });

    it('guesses spread over many addresses stop at the per-account ceiling of 100', async function () {
      this.timeout(120_000);
      const dev = await createDeveloper(app.services);
      await spreadGuessesHitTheCeiling(loginAs(dev.developer.email), dev.password);
    });
  });

  describe('end users', () => {
    let app: TestApp;
    before(async () => {
      app = await startTestApp('public', 'lockout_users', { TRUST_PROXY: 'true' });
    });
    after(() => app.close());

    it('wrong guesses from one address do not lock the user out from another', async () => {
      const p = await authProject(app);
      const user = await signup(p);
      await lockOutOneClient(
        (password, ip) => keyed(p).post('/api/userAuth/login', { email: user.email, password }, from(ip)),
        PASSWORD,
      );
    });

    it('guesses spread over many addresses stop at the per-account ceiling of 100', async function () {
      this.timeout(120_000);
      const p = await authProject(app);
      const user = await signup(p);
      await spreadGuessesHitTheCeiling(
        (password, ip) => keyed(p).post('/api/userAuth/login', { email: user.email, password }, from(ip)),
        PASSWORD,
      );
    });
  });
});
