// Access tokens and the account's password (issue 48, item 3), over HTTP: a session alone cannot
// mint a token (the current password is asked, wrong ones limited with the password change's
// count), the account is mailed about each new token, and a password change revokes every token,
// so one minted by whoever held the old password stops at once.
import { expect } from 'chai';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createProjectFixture, type ProjectFixture } from '../helpers/fixtures.js';
import { mailbox } from '../helpers/mail.js';

const inDays = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString();

describe('personal access tokens and the password', () => {
  let app: TestApp;

  before(async () => {
    app = await startTestApp('dashboard', 'access-tokens-password');
  });
  after(() => app?.close());

  const session = (fx: ProjectFixture) => app.client.with({ cookie: fx.cookie });
  const bearer = (token: string) => app.client.with({ authorization: `Bearer ${token}` });

  it('a session alone cannot create a token: the current password is asked, and the account is mailed', async () => {
    const fx = await createProjectFixture(app.services);
    const inbox = mailbox(fx.developer.email);
    const body = { name: 'deploy', scope: 'write', expiresAt: inDays(365) };

    const without = await session(fx).post('/api/user/me/tokens', body);
    expect(without.status, without.text).to.equal(400);
    const wrong = await session(fx).post('/api/user/me/tokens', { ...body, password: 'not my password' });
    expect(wrong.status).to.equal(401);
    expect(wrong.body).to.include({ code: 'INVALID_CREDENTIALS' });
    expect(await app.deps.db.platform.collection('accessTokens').countDocuments({ name: 'deploy' })).to.equal(
      0,
    );

    const made = await session(fx).post('/api/user/me/tokens', { ...body, password: fx.password });
    expect(made.status, made.text).to.equal(201);
    // The text as written, without the quoted-printable soft line breaks.
    const mail = (await inbox.next(10_000)).raw.replace(/=\r?\n/g, '');
    expect(mail).to.include('A new access token for your account');
    expect(mail).to.include('deploy');
    expect(mail).to.include(made.body.data.accessToken.prefix);
    expect(mail).to.include('revoke it on the Account page');
  });

  it('wrong passwords are limited per account, shared with the password change: 429 with Retry-After', async () => {
    const fx = await createProjectFixture(app.services);
    const body = { name: 'guess', scope: 'read', expiresAt: inDays(1) };
    for (let i = 0; i < 3; i++)
      expect(
        (await session(fx).post('/api/user/me/tokens', { ...body, password: `guess ${i}` })).status,
      ).to.equal(401);
    for (let i = 0; i < 2; i++) {
      const change = await session(fx).put('/api/user/me/password', {
        currentPassword: `guess again ${i}`,
        newPassword: 'a brand new passphrase',
      });
      expect(change.status).to.equal(401);
    }
    const locked = await session(fx).post('/api/user/me/tokens', { ...body, password: fx.password });
    expect(locked.status, locked.text).to.equal(429);
    expect(Number(locked.headers.get('retry-after'))).to.be.greaterThan(0);
  });

  it('a token minted before a password change is revoked by it: it no longer creates a collection', async () => {
    const fx = await createProjectFixture(app.services);
    const made = await session(fx).post('/api/user/me/tokens', {
      password: fx.password,
      name: 'stolen',
      scope: 'write',
      expiresAt: inDays(365),
    });
    expect(made.status, made.text).to.equal(201);
    const token = made.body.data.token as string;
    const before = await bearer(token).post(`/api/projects/${fx.project.id}/collections`, { name: 'before' });
    expect(before.status, before.text).to.equal(201);

    const changed = await session(fx).put('/api/user/me/password', {
      currentPassword: fx.password,
      newPassword: 'a brand new passphrase',
    });
    expect(changed.status, changed.text).to.equal(200);
    expect(changed.body.message).to.equal('Password changed; 1 access token was revoked');

    const after = await bearer(token).post(`/api/projects/${fx.project.id}/collections`, { name: 'after' });
    expect(after.status).to.equal(401);
    expect(after.body.code).to.equal('ACCESS_TOKEN_REVOKED');
    expect(after.body.message).to.include("when the account's password changed");
    const names = (
      await session(fx).get(`/api/projects/${fx.project.id}/collections`)
    ).body.data.collections.map((c: { name: string }) => c.name);
    expect(names).to.include('before').and.not.include('after');
    const listed = (await session(fx).get('/api/user/me/tokens')).body.data.tokens;
    expect(listed[0]).to.include({ name: 'stolen' });
    expect(listed[0].revokedAt).to.be.a('string');

    // A new token asks for the new password.
    const again = await session(fx).post('/api/user/me/tokens', {
      password: 'a brand new passphrase',
      name: 'fresh',
      scope: 'read',
      expiresAt: inDays(1),
    });
    expect(again.status, again.text).to.equal(201);
    expect((await bearer(again.body.data.token).get('/api/projects')).status).to.equal(200);
  });
});
