// Attacks on accounts and sessions, replayed over HTTP: spoofed X-Forwarded-For against the per-IP
// limits, parallel password guesses against the login throttles, racing first sign-ups for the
// operator role, and what the members endpoints tell about other accounts.
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createDeveloper } from '../helpers/fixtures.js';
import { confirmByMail } from '../helpers/signup.js';
import type { ApiResponse } from '../helpers/client.js';
import {
  authProject,
  cookieOf,
  keyed,
  newEmail,
  PASSWORD,
  refreshCookieOf,
  signup,
} from '../helpers/user-auth.js';

const tally = (responses: ApiResponse[]) => {
  const counts: Record<number, number> = {};
  for (const res of responses) counts[res.status] = (counts[res.status] ?? 0) + 1;
  return counts;
};

describe('hardening: accounts and sessions', () => {
  describe('behind a proxy (TRUST_PROXY=true)', () => {
    let app: TestApp;
    before(async () => {
      app = await startTestApp('public', 'proxy_hops', {
        TRUST_PROXY: 'true',
        USER_AUTH_SIGNUPS_PER_HOUR: '2',
      });
    });
    after(() => app.close());

    it('keys the sign-up limit by the address the proxy saw, not the client-written X-Forwarded-For', async () => {
      const p = await authProject(app);
      const from = (spoofed: string, client: string) => ({
        headers: { 'x-forwarded-for': `${spoofed}, ${client}` },
      });
      const statuses = [];
      for (let i = 0; i < 4; i++) {
        const res = await keyed(p).post(
          '/api/userAuth/signup',
          { email: newEmail(), password: PASSWORD },
          from(`10.9.8.${i}`, '203.0.113.7'),
        );
        statuses.push(res.status);
      }
      expect(statuses).to.deep.equal([201, 201, 429, 429]);
      // Another client behind the same proxy has its own budget.
      const other = await keyed(p).post(
        '/api/userAuth/signup',
        { email: newEmail(), password: PASSWORD },
        from('10.9.8.1', '203.0.113.8'),
      );
      expect(other.status).to.equal(201);
    });

    it('counts as many hops from the right as TRUSTED_PROXY_HOPS says', async () => {
      const two = await startTestApp('public', 'proxy_hops2', {
        TRUST_PROXY: 'true',
        TRUSTED_PROXY_HOPS: '2',
        USER_AUTH_SIGNUPS_PER_HOUR: '1',
      });
      try {
        const p = await authProject(two);
        const send = (xff: string) =>
          keyed(p).post(
            '/api/userAuth/signup',
            { email: newEmail(), password: PASSWORD },
            { headers: { 'x-forwarded-for': xff } },
          );
        expect((await send('1.1.1.1, 198.51.100.4, 192.0.2.10')).status).to.equal(201);
        expect((await send('2.2.2.2, 198.51.100.4, 192.0.2.10')).status).to.equal(429);
        expect((await send('1.1.1.1, 198.51.100.5, 192.0.2.10')).status).to.equal(201);
      } finally {
        await two.close();
      }
    });
  });

  describe('Secure cookies behind a TLS-terminating proxy', () => {
    for (const trust of [true, false]) {
      it(`${trust ? 'sets' : 'does not set'} Secure on X-Forwarded-Proto: https with TRUST_PROXY=${trust}`, async () => {
        const env = { TRUST_PROXY: String(trust) };
        const dash = await startTestApp('dashboard', 'secure_dash', env);
        const pub = await startTestApp('public', 'secure_pub', env);
        try {
          const https = { headers: { 'x-forwarded-proto': 'https' } };
          const dev = await createDeveloper(dash.services);
          const login = await dash.client.post(
            '/api/auth/login',
            { email: dev.developer.email, password: dev.password },
            https,
          );
          expect(login.status, login.text).to.equal(200);
          const session = cookieOf(login, 'baas_session');
          expect(session, 'session cookie').to.not.equal(undefined);
          expect(session!.attributes.includes('secure')).to.equal(trust);

          const p = await authProject(pub);
          const user = await signup(p);
          const userLogin = await keyed(p).post(
            '/api/userAuth/login',
            { email: user.email, password: PASSWORD },
            https,
          );
          expect(userLogin.status, userLogin.text).to.equal(200);
          const refresh = cookieOf(userLogin, refreshCookieOf(p));
          expect(refresh, 'refresh cookie').to.not.equal(undefined);
          expect(refresh!.attributes.includes('secure')).to.equal(trust);
        } finally {
          await pub.close();
          await dash.close();
        }
      });
    }
  });

  describe('parallel wrong logins', () => {
    const GUESSES = 30;

    it('dashboard: at most 5 are checked (401), the rest are 429', async function () {
      this.timeout(30_000);
      const app = await startTestApp('dashboard', 'parallel_login');
      try {
        const dev = await createDeveloper(app.services);
        const guesses = await Promise.all(
          Array.from({ length: GUESSES }, (_, i) =>
            app.client.post('/api/auth/login', { email: dev.developer.email, password: `wrong guess ${i}` }),
          ),
        );
        const counts = tally(guesses);
        expect(counts[401] ?? 0, JSON.stringify(counts)).to.be.at.most(5);
        expect((counts[401] ?? 0) + (counts[429] ?? 0), JSON.stringify(counts)).to.equal(GUESSES);
      } finally {
        await app.close();
      }
    });

    it('end users: at most 5 are checked (401), the rest are 429', async function () {
      this.timeout(30_000);
      const app = await startTestApp('public', 'parallel_user_login');
      try {
        const p = await authProject(app);
        const user = await signup(p);
        const guesses = await Promise.all(
          Array.from({ length: GUESSES }, (_, i) =>
            keyed(p).post('/api/userAuth/login', { email: user.email, password: `wrong guess ${i}` }),
          ),
        );
        const counts = tally(guesses);
        expect(counts[401] ?? 0, JSON.stringify(counts)).to.be.at.most(5);
        expect((counts[401] ?? 0) + (counts[429] ?? 0), JSON.stringify(counts)).to.equal(GUESSES);
      } finally {
        await app.close();
      }
    });

    it('successful logins do not use up the per-address budget', async function () {
      this.timeout(60_000);
      const app = await startTestApp('public', 'login_success_budget');
      try {
        const p = await authProject(app);
        const user = await signup(p);
        for (let i = 0; i < 55; i++) {
          const res = await keyed(p).post('/api/userAuth/login', { email: user.email, password: PASSWORD });
          expect(res.status, `login ${i + 1}: ${res.text}`).to.equal(200);
        }
      } finally {
        await app.close();
      }
    });
  });

  describe('the first sign-up of an installation', () => {
    const operators = (app: TestApp) =>
      app.deps.db.platform.collection('developers').countDocuments({ isOperator: true });

    it('makes exactly one operator when sign-ups race on a fresh platform database', async function () {
      this.timeout(60_000);
      // Twelve sign-ups from one address: more than DEVELOPER_SIGNUPS_PER_HOUR allows by default.
      const app = await startTestApp('dashboard', 'operator_race', { DEVELOPER_SIGNUPS_PER_HOUR: '100' });
      try {
        // The accounts appear when the mailed links are confirmed: those race.
        const run = randomBytes(4).toString('hex');
        const emails = Array.from({ length: 12 }, (_, i) => `racer${i}-${run}@example.test`);
        const tokens = await Promise.all(
          emails.map((email) =>
            confirmByMail(
              email,
              () => app.client.post('/api/auth/signup', { email, password: PASSWORD }),
              async (token) => token,
            ),
          ),
        );
        const results = await Promise.all(
          tokens.map((token) => app.client.post('/api/auth/signup/confirm', { token, password: PASSWORD })),
        );
        expect(results.map((r) => r.status)).to.deep.equal(Array(12).fill(201));
        expect(await operators(app)).to.equal(1);
      } finally {
        await app.close();
      }
    });

    it('makes exactly one operator when account creations meet at the database', async () => {
      // Password hashing spreads HTTP sign-ups out in time; without it every creation reads the
      // empty installation before any insert, the exact race.
      const app = await startTestApp('dashboard', 'operator_race_db');
      try {
        const created = await Promise.all(
          Array.from({ length: 8 }, (_, i) =>
            app.services.repos.developers.create({
              email: `meet${i}@example.test`,
              name: null,
              passwordHash: 'x',
            }),
          ),
        );
        expect(created.filter((d) => d?.isOperator)).to.have.length(1);
        expect(await operators(app)).to.equal(1);
      } finally {
        await app.close();
      }
    });
  });

  describe('members endpoints', () => {
    let app: TestApp;
    let admin: Awaited<ReturnType<typeof createDeveloper>>;
    let projectId: string;
    before(async () => {
      app = await startTestApp('dashboard', 'members_hardening');
      admin = await createDeveloper(app.services);
      const created = await app.client
        .with({ cookie: admin.cookie })
        .post('/api/projects', { name: 'Members hardening' });
      expect(created.status, created.text).to.equal(201);
      projectId = created.body.data.project.id;
    });
    after(() => app.close());

    it('answers an invitation the same whether or not an account uses the email, and adds no one', async () => {
      const known = await createDeveloper(app.services);
      const as = app.client.with({ cookie: admin.cookie });
      const invite = (email: string) => as.post(`/api/projects/${projectId}/invitations`, { email });
      const toKnown = await invite(known.developer.email);
      const toUnknown = await invite('nobody-here@example.test');
      expect(toKnown.status).to.equal(202);
      expect(toUnknown.status).to.equal(toKnown.status);
      const strip = (body: any) => {
        const {
          id: _id,
          email: _email,
          createdAt: _c,
          sentAt: _s,
          expiresAt: _e,
          ...rest
        } = body.data.invitation;
        return { ...rest, message: body.message.replace(body.data.invitation.email, '') };
      };
      expect(strip(toUnknown.body)).to.deep.equal(strip(toKnown.body));
      const members = (await as.get(`/api/projects/${projectId}/members`)).body.data.members;
      expect(members.map((m: { email: string }) => m.email)).to.deep.equal([admin.developer.email]);
      const developers = app.deps.db.platform.collection('developers');
      expect(await developers.countDocuments({ email: 'nobody-here@example.test' })).to.equal(0);
    });

    it('refuses a malformed developer id with a 400, not a 500', async () => {
      const as = app.client.with({ cookie: admin.cookie });
      for (const res of [
        await as.patch(`/api/projects/${projectId}/members/not-an-id`, { role: 'admin' }),
        await as.delete(`/api/projects/${projectId}/members/not-an-id`),
      ]) {
        expect(res.status, res.text).to.equal(400);
        expect(res.body).to.include({ code: 'INVALID_DEVELOPER_ID', message: 'Invalid developer ID' });
      }
    });
  });
});
