import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { startTestApp, type TestApp } from '../helpers/app.js';
import type { ApiClient } from '../helpers/client.js';
import { mailbox, subjectOf } from '../helpers/mail.js';
import { signUpByMail, signupTokenOf } from '../helpers/signup.js';
import { SIGNUP_MAILS_PER_HOUR } from '../../src/services/signup.js';

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
    app = await startTestApp('dashboard', 'accounts', { DEVELOPER_SIGNUPS_PER_HOUR: '100' });
    client = app.client;
  });
  after(() => app.close());

  it('signs up by mail: no session before the link, then the account (first is the operator) and /me', async () => {
    const started = await client.post('/api/auth/signup', {
      email: 'Ada@Example.com',
      password: 'correct horse 1',
      name: 'Ada',
    });
    expect(started.status).to.equal(201);
    expect(started.headers.get('set-cookie')).to.equal(null);
    expect(started.body).to.deep.equal({
      success: true,
      data: { email: 'ada@example.com', delivery: 'smtp' },
      message: 'Check your mail to finish signing up',
    });
    // Nothing exists yet: the password does not log in.
    expect(
      (await client.post('/api/auth/login', { email: 'ada@example.com', password: 'correct horse 1' }))
        .status,
    ).to.equal(401);
    expect(await app.deps.db.platform.collection('developers').countDocuments({})).to.equal(0);
    const ada = await signUpByMail(client, 'ada@example.com', 'correct horse 1', 'Ada');
    expect(ada.developer).to.include({
      email: 'ada@example.com',
      name: 'Ada',
      plan: 'operator',
      isOperator: true,
      disabled: false,
    });
    const me = await client.get('/api/user/me', { headers: { cookie: ada.cookie } });
    expect(me.status).to.equal(200);
    expect(me.body.data.developer.email).to.equal('ada@example.com');
    const grace = await signUpByMail(client, 'grace@example.com', 'correct horse 2');
    expect(grace.developer.isOperator).to.equal(false);
  });

  it('answers a sign-up with a taken email, whatever its case, exactly like a new one; the owner is told', async () => {
    // Fresh addresses: the mail sink is shared by every run.
    const taken = `taken-${randomBytes(5).toString('hex')}@example.com`;
    const fresh = `new-${taken}`;
    await signUpByMail(client, taken, 'correct horse 1');
    const owner = mailbox(taken);
    const newcomer = mailbox(fresh);
    await owner.skipExisting();
    await newcomer.skipExisting();
    const again = await client.post('/api/auth/signup', {
      email: taken.toUpperCase(),
      password: 'another pass',
    });
    const first = await client.post('/api/auth/signup', { email: fresh, password: 'another pass' });
    expect(again.status).to.equal(201);
    expect(again.headers.get('set-cookie')).to.equal(first.headers.get('set-cookie'));
    expect(again.body).to.deep.equal({ ...first.body, data: { email: taken, delivery: 'smtp' } });
    // The session that follows cannot tell either: there is none in both cases.
    expect(await client.get('/api/user/me').then((r) => r.status)).to.equal(401);
    // The owner's password is unchanged and the attacker's opens nothing.
    expect(
      (await client.post('/api/auth/login', { email: taken, password: 'another pass' })).status,
    ).to.equal(401);
    expect(
      (await client.post('/api/auth/login', { email: taken, password: 'correct horse 1' })).status,
    ).to.equal(200);
    const told = await owner.next();
    expect(subjectOf(told)).to.equal('Sign-up attempt with your address');
    expect(told.raw).to.include('You already have an account');
    expect(signupTokenOf(told)).to.equal(undefined);
    const link = await newcomer.next();
    expect(subjectOf(link)).to.equal('Confirm your email address');
    expect(signupTokenOf(link)).to.match(/^[\w-]{43}$/);
  });

  it('confirms only with the chosen password, once; refuses a used or unknown link in words', async () => {
    const email = `confirm-${randomBytes(5).toString('hex')}@example.com`;
    const inbox = mailbox(email);
    await inbox.skipExisting();
    await client.post('/api/auth/signup', { email, password: 'chosen password' });
    const token = signupTokenOf(await inbox.next())!;
    // Stored hashed only.
    const stored = await app.deps.db.platform.collection('developer_signups').find({ email }).toArray();
    expect(stored).to.have.lengthOf(1);
    expect(JSON.stringify(stored)).not.to.include(token).and.not.to.include('chosen password');
    const wrong = await client.post('/api/auth/signup/confirm', { token, password: 'not the one' });
    expect(wrong.status).to.equal(401);
    expect(wrong.body.message).to.equal('Wrong password: type the password you chose when you signed up');
    expect(wrong.headers.get('set-cookie')).to.equal(null);
    const ok = await client.post('/api/auth/signup/confirm', { token, password: 'chosen password' });
    expect(ok.status).to.equal(201);
    expect(ok.body.data.developer.email).to.equal(email);
    const me = await client.get('/api/user/me', { headers: { cookie: sessionCookieOf(ok) } });
    expect(me.status).to.equal(200);
    const reused = await client.post('/api/auth/signup/confirm', { token, password: 'chosen password' });
    expect(reused.status).to.equal(404);
    expect(reused.body.code).to.equal('SIGNUP_LINK_INVALID');
    expect(reused.body.message).to.include('This confirmation link is not valid');
    expect(
      (await client.post('/api/auth/signup/confirm', { token: 'x'.repeat(201), password: 'p' })).status,
    ).to.equal(400);
  });

  it('burns a link after 5 wrong passwords, and a second link of an address that got its account is a 409', async () => {
    const email = `twice-${randomBytes(5).toString('hex')}@example.com`;
    const inbox = mailbox(email);
    await inbox.skipExisting();
    await client.post('/api/auth/signup', { email, password: 'first choice' });
    const guessed = signupTokenOf(await inbox.next())!;
    await client.post('/api/auth/signup', { email, password: 'second choice' });
    const second = signupTokenOf(await inbox.next())!;
    for (let i = 0; i < 5; i++) {
      expect(
        (await client.post('/api/auth/signup/confirm', { token: guessed, password: `guess ${i}` })).status,
      ).to.equal(401);
    }
    const burnt = await client.post('/api/auth/signup/confirm', { token: guessed, password: 'first choice' });
    expect(burnt.status).to.equal(404);
    // The account is made from the second link, which ends the address's other pending sign-ups.
    expect(
      (await client.post('/api/auth/signup/confirm', { token: second, password: 'second choice' })).status,
    ).to.equal(201);
    const signups = app.deps.db.platform.collection('developer_signups');
    expect(await signups.countDocuments({ email })).to.equal(0);
    // A link of the address still pending when its account appears (stored as the service does).
    const { sha256 } = await import('../../src/lib/secrets.js');
    const lateToken = `late-${randomBytes(8).toString('hex')}`;
    await signups.insertOne({
      _id: sha256(lateToken) as never,
      email,
      name: null,
      passwordHash: (await app.deps.db.platform.collection('developers').findOne({ email }))!.passwordHash,
      attempts: 0,
      createdAt: new Date(),
      expiresAt: new Date(Date.now() + 60_000),
    });
    const late = await client.post('/api/auth/signup/confirm', {
      token: lateToken,
      password: 'second choice',
    });
    expect(late.status).to.equal(409);
    expect(late.body).to.include({
      code: 'EMAIL_TAKEN',
      message: 'An account already uses this email address: log in with its password',
    });
  });

  it(`sends at most ${SIGNUP_MAILS_PER_HOUR} sign-up mails an hour to one address; the answers stay the same`, async () => {
    const email = `flood-${randomBytes(5).toString('hex')}@example.com`;
    const inbox = mailbox(email);
    for (let i = 0; i <= SIGNUP_MAILS_PER_HOUR; i++) {
      const res = await client.post('/api/auth/signup', { email, password: 'correct horse 9' });
      expect(res.status).to.equal(201);
      expect(res.body.message).to.equal('Check your mail to finish signing up');
    }
    for (let i = 0; i < SIGNUP_MAILS_PER_HOUR; i++) await inbox.next();
    await new Promise((r) => setTimeout(r, 500));
    expect(await inbox.all()).to.have.lengthOf(SIGNUP_MAILS_PER_HOUR);
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
    await signUpByMail(client, 'target@example.com', 'correct horse 3');
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
    const current = (await signUpByMail(client, 'pw@example.com', 'first password')).cookie;
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
