import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { startTestApp, type TestApp } from '../helpers/app.js';
import type { ApiClient } from '../helpers/client.js';
import { mailbox, subjectOf } from '../helpers/mail.js';

const sessionCookieOf = (res: { headers: Headers }) => {
  const cookie = res.headers.get('set-cookie') ?? '';
  expect(cookie).to.match(/baas_session=[^;]+;/);
  expect(cookie.toLowerCase()).to.include('httponly').and.include('samesite=lax');
  return cookie.split(';')[0]!;
};

describe('dashboard accounts', () => {
  let app: TestApp;
  let client: ApiClient;
  before(async () => {
    app = await startTestApp('dashboard', 'accounts');
    client = app.client;
  });
  after(() => app.close());

  it('signs up (first account is the operator), sets the session cookie, and answers /api/user/me', async () => {
    const res = await client.post('/api/auth/signup', {
      email: 'Ada@Example.com',
      password: 'correct horse 1',
      name: 'Ada',
    });
    expect(res.status).to.equal(201);
    expect(res.body.data.developer).to.include({
      email: 'ada@example.com',
      name: 'Ada',
      plan: 'free',
      isOperator: true,
    });
    expect(JSON.stringify(res.body)).to.not.include('passwordHash');
    const me = await client.get('/api/user/me', { headers: { cookie: sessionCookieOf(res) } });
    expect(me.status).to.equal(200);
    expect(me.body.data.developer.email).to.equal('ada@example.com');

    const second = await client.post('/api/auth/signup', {
      email: 'grace@example.com',
      password: 'correct horse 2',
    });
    expect(second.body.data.developer.isOperator).to.equal(false);
  });

  it('answers a sign-up with a taken email, whatever its case, like any other, and creates nothing', async () => {
    // A fresh address: the mail sink is shared by every run.
    const taken = `taken-${randomBytes(5).toString('hex')}@example.com`;
    const inbox = mailbox(taken);
    const first = await client.post('/api/auth/signup', { email: taken, password: 'correct horse 1' });
    expect(first.status).to.equal(201);
    const res = await client.post('/api/auth/signup', {
      email: taken.toUpperCase(),
      password: 'another pass',
    });
    const fresh = await client.post('/api/auth/signup', {
      email: `new-${taken}`,
      password: 'another pass',
    });
    expect(res.status).to.equal(201);
    expect(fresh.status).to.equal(201);
    expect(Object.keys(res.body.data.developer).sort()).to.deep.equal(
      Object.keys(fresh.body.data.developer).sort(),
    );
    expect(res.body.data.developer).to.include({ email: taken, plan: 'free', isOperator: false });
    expect(res.body.data.developer.id).not.to.equal(first.body.data.developer.id);
    expect(res.body.message).to.equal(fresh.body.message);
    // The cookie opens nothing, the owner's password is unchanged, and the owner is told by mail.
    const me = await client.get('/api/user/me', { headers: { cookie: sessionCookieOf(res) } });
    expect(me.status).to.equal(401);
    const attacker = await client.post('/api/auth/login', { email: taken, password: 'another pass' });
    expect(attacker.status).to.equal(401);
    const owner = await client.post('/api/auth/login', { email: taken, password: 'correct horse 1' });
    expect(owner.status).to.equal(200);
    const mail = await inbox.next();
    expect(subjectOf(mail)).to.equal('Sign-up attempt with your address');
    expect(mail.raw).to.include('You already have an account');
  });

  it('validates sign-up bodies (400 naming the field)', async () => {
    const cases: [unknown, string][] = [
      [{ password: 'long enough' }, 'Validation failed: email is required'],
      [{ email: 'not-an-email', password: 'long enough' }, 'Validation failed: email must be a valid email'],
      [{ email: 'x@example.com', password: 'short' }, 'Validation failed: password'],
      [
        { email: 'x@example.com', password: 'long enough', admin: true },
        'Validation failed: admin is not allowed',
      ],
    ];
    for (const [body, message] of cases) {
      const res = await client.post('/api/auth/signup', body);
      expect(res.status, JSON.stringify(body)).to.equal(400);
      expect(res.body.message).to.include(message);
      expect(res.body.details).to.be.an('array').with.length.greaterThan(0);
    }
  });

  it('logs in, and a wrong email or password gets the same 401', async () => {
    const ok = await client.post('/api/auth/login', {
      email: 'ada@example.com',
      password: 'correct horse 1',
    });
    expect(ok.status).to.equal(200);
    sessionCookieOf(ok);
    const wrongPassword = await client.post('/api/auth/login', {
      email: 'ada@example.com',
      password: 'wrong password',
    });
    const unknown = await client.post('/api/auth/login', {
      email: 'nobody@example.com',
      password: 'wrong password',
    });
    expect(wrongPassword.status).to.equal(401);
    expect(unknown.status).to.equal(401);
    expect(wrongPassword.body.message).to.equal(unknown.body.message);
    const malformed = await client.post('/api/auth/login', { email: 'ada@example.com' });
    expect(malformed.status).to.equal(400);
    expect(malformed.body.message).to.equal('Validation failed: password is required');
  });

  it('limits failed logins per email (429 with Retry-After)', async () => {
    await client.post('/api/auth/signup', { email: 'target@example.com', password: 'correct horse 3' });
    for (let i = 0; i < 5; i++) {
      const res = await client.post('/api/auth/login', {
        email: 'target@example.com',
        password: `guess ${i} guess`,
      });
      expect(res.status).to.equal(401);
    }
    const blocked = await client.post('/api/auth/login', {
      email: 'target@example.com',
      password: 'correct horse 3',
    });
    expect(blocked.status).to.equal(429);
    expect(Number(blocked.headers.get('retry-after'))).to.be.greaterThan(0);
  });

  it('needs a live session for /api/user/me (401), and logout ends it', async () => {
    expect((await client.get('/api/user/me')).status).to.equal(401);
    expect(
      (await client.get('/api/user/me', { headers: { cookie: 'baas_session=forged' } })).status,
    ).to.equal(401);
    const login = await client.post('/api/auth/login', {
      email: 'grace@example.com',
      password: 'correct horse 2',
    });
    const cookie = sessionCookieOf(login);
    const out = await client.post('/api/auth/logout', undefined, { headers: { cookie } });
    expect(out.status).to.equal(200);
    expect(out.headers.get('set-cookie')).to.match(/baas_session=;/);
    expect((await client.get('/api/user/me', { headers: { cookie } })).status).to.equal(401);
  });

  it('changes the password: needs the current one, ends the other sessions, keeps this one', async () => {
    const signup = await client.post('/api/auth/signup', {
      email: 'pw@example.com',
      password: 'first password',
    });
    const current = sessionCookieOf(signup);
    const other = sessionCookieOf(
      await client.post('/api/auth/login', { email: 'pw@example.com', password: 'first password' }),
    );

    const wrong = await client.put(
      '/api/user/me/password',
      { currentPassword: 'nope', newPassword: 'second password' },
      { headers: { cookie: current } },
    );
    expect(wrong.status).to.equal(401);
    const short = await client.put(
      '/api/user/me/password',
      { currentPassword: 'first password', newPassword: 'x' },
      { headers: { cookie: current } },
    );
    expect(short.status).to.equal(400);

    const ok = await client.put(
      '/api/user/me/password',
      { currentPassword: 'first password', newPassword: 'second password' },
      { headers: { cookie: current } },
    );
    expect(ok.status).to.equal(200);
    expect((await client.get('/api/user/me', { headers: { cookie: current } })).status).to.equal(200);
    expect((await client.get('/api/user/me', { headers: { cookie: other } })).status).to.equal(401);
    expect(
      (await client.post('/api/auth/login', { email: 'pw@example.com', password: 'first password' })).status,
    ).to.equal(401);
    expect(
      (await client.post('/api/auth/login', { email: 'pw@example.com', password: 'second password' })).status,
    ).to.equal(200);
  });

  it('refuses cookie-authenticated writes from another origin (403), accepts the dashboard origin', async () => {
    const cookie = sessionCookieOf(
      await client.post('/api/auth/login', { email: 'ada@example.com', password: 'correct horse 1' }),
    );
    const body = { currentPassword: 'correct horse 1', newPassword: 'correct horse 1' };
    const evil = await client.put('/api/user/me/password', body, {
      headers: { cookie, origin: 'https://evil.example' },
    });
    expect(evil.status).to.equal(403);
    expect(evil.body.code).to.equal('CSRF_ORIGIN_MISMATCH');
    const viaReferer = await client.put('/api/user/me/password', body, {
      headers: { cookie, referer: 'https://evil.example/page' },
    });
    expect(viaReferer.status).to.equal(403);
    const own = await client.put('/api/user/me/password', body, {
      headers: { cookie, origin: app.deps.config.dashboardOrigins[0]! },
    });
    expect(own.status).to.equal(200);
  });
});
