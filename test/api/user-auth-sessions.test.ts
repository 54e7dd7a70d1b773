import { expect } from 'chai';
import { startTestApp } from '../helpers/app.js';
import {
  authProject,
  bearer,
  cookieOf,
  keyed,
  newEmail,
  PASSWORD,
  signup,
  useAuthSuite,
  refreshCookieOf,
} from '../helpers/user-auth.js';

describe('/api/userAuth sessions', () => {
  const { app, p } = useAuthSuite('user_auth_sessions');

  const refresh = (token: string) => keyed(p).post('/api/userAuth/refresh-token', { refreshToken: token });

  describe('the refresh cookie', () => {
    it('is set HttpOnly on sign-up and login, scoped to /api/userAuth, 7 days', async () => {
      const res = await keyed(p).post('/api/userAuth/signup', { email: newEmail(), password: PASSWORD });
      const cookie = cookieOf(res, refreshCookieOf(p));
      expect(cookie?.value).to.equal(res.body.data.refreshToken);
      expect(cookie?.attributes).to.include('httponly');
      expect(cookie?.attributes).to.include('path=/api/userauth');
      expect(cookie?.attributes).to.include('samesite=lax');
      const expires = Date.parse(/expires=([^;]+)/.exec(cookie!.attributes)![1]!);
      expect(expires - Date.now()).to.be.within(7 * 86400_000 - 60_000, 7 * 86400_000 + 60_000);
    });
  });

  describe('POST /api/userAuth/refresh-token', () => {
    it('rotates: a new access and refresh token, the old refresh token spent', async () => {
      const { refreshToken, user } = await signup(p);
      const res = await refresh(refreshToken);
      expect(res.status).to.equal(200);
      expect(res.body.data).to.have.all.keys('accessToken', 'token', 'refreshToken', 'expiresIn');
      expect(res.body.data.refreshToken).not.to.equal(refreshToken);
      expect(cookieOf(res, refreshCookieOf(p))?.value).to.equal(res.body.data.refreshToken);
      const me = await bearer(p, res.body.data.accessToken).get('/api/userAuth/me');
      expect(me.body.data._id).to.equal(user._id);
    });

    it('names the cookie per project: another project on the same host neither overwrites nor reads it', async () => {
      const other = await authProject(app);
      const mine = await signup(p);
      const theirs = await keyed(other).post('/api/userAuth/signup', {
        email: newEmail(),
        password: PASSWORD,
      });
      // Two cookies side by side in one browser, each under its project's name.
      expect(refreshCookieOf(other)).to.not.equal(refreshCookieOf(p));
      expect(cookieOf(theirs, refreshCookieOf(other))?.value).to.equal(theirs.body.data.refreshToken);
      expect(cookieOf(theirs, refreshCookieOf(p)), 'mine left alone').to.equal(undefined);
      // A browser sends both; each project reads its own.
      const jar = `${refreshCookieOf(p)}=${mine.refreshToken}; ${refreshCookieOf(other)}=${theirs.body.data.refreshToken}`;
      const rotated = await keyed(p).post('/api/userAuth/refresh-token', undefined, {
        headers: { cookie: jar },
      });
      expect(rotated.status, rotated.text).to.equal(200);
      const me = await bearer(p, rotated.body.data.accessToken).get('/api/userAuth/me');
      expect(me.body.data._id).to.equal(mine.user._id);
      // Only another project's cookie: no token for this one (the old shared name is not read).
      for (const cookie of [
        `${refreshCookieOf(other)}=${theirs.body.data.refreshToken}`,
        `baas_refresh=${rotated.body.data.refreshToken}`,
      ]) {
        const res = await keyed(p).post('/api/userAuth/refresh-token', undefined, { headers: { cookie } });
        expect(res.status, cookie).to.equal(400);
        expect(res.body.code).to.equal('MISSING_REFRESH_TOKEN');
        expect(res.body.message).to.include('baas_refresh_<projectId>');
      }
    });

    it('accepts the token from the x-refresh-token header and from the cookie', async () => {
      const { refreshToken } = await signup(p);
      const byHeader = await keyed(p).post('/api/userAuth/refresh-token', undefined, {
        headers: { 'x-refresh-token': refreshToken },
      });
      expect(byHeader.status).to.equal(200);
      const byCookie = await keyed(p).post('/api/userAuth/refresh-token', undefined, {
        headers: { cookie: `${refreshCookieOf(p)}=${byHeader.body.data.refreshToken}` },
      });
      expect(byCookie.status).to.equal(200);
    });

    it('revokes the whole family when a spent token is used again', async () => {
      const { refreshToken: first } = await signup(p);
      const second = (await refresh(first)).body.data.refreshToken;
      const reuse = await refresh(first);
      expect(reuse.status).to.equal(401);
      expect(reuse.body.code).to.equal('REFRESH_TOKEN_REUSED');
      // The token issued after the spent one dies with its family.
      const after = await refresh(second);
      expect(after.status).to.equal(401);
      expect(after.body.code).to.equal('INVALID_REFRESH_TOKEN');
    });

    it('lets only one of two concurrent uses of a token win', async () => {
      const { refreshToken } = await signup(p);
      const results = await Promise.all([refresh(refreshToken), refresh(refreshToken)]);
      expect(results.map((r) => r.status).sort()).to.deep.equal([200, 401]);
    });

    it('leaves other sessions of the user alone when one family is revoked', async () => {
      const { email, refreshToken } = await signup(p);
      const other = (await keyed(p).post('/api/userAuth/login', { email, password: PASSWORD })).body.data
        .refreshToken;
      await refresh(refreshToken);
      await refresh(refreshToken);
      expect((await refresh(other)).status).to.equal(200);
    });

    it('answers 401 for an unknown token and a token of another project', async () => {
      expect((await refresh('rt_unknown')).status).to.equal(401);
      const other = await authProject(app);
      const { refreshToken } = await signup(other);
      const res = await refresh(refreshToken);
      expect(res.status).to.equal(401);
      expect(res.body.code).to.equal('INVALID_REFRESH_TOKEN');
    });

    it('answers 400 without any token and for an unknown body field', async () => {
      const none = await keyed(p).post('/api/userAuth/refresh-token', {});
      expect(none.status).to.equal(400);
      expect(none.body.code).to.equal('MISSING_REFRESH_TOKEN');
      const extra = await keyed(p).post('/api/userAuth/refresh-token', { refreshToken: 'x', userId: 'y' });
      expect(extra.status).to.equal(400);
    });
  });

  describe('POST /api/userAuth/logout', () => {
    it('revokes the refresh token and clears the cookie', async () => {
      const { refreshToken } = await signup(p);
      const res = await keyed(p).post('/api/userAuth/logout', { refreshToken });
      expect(res.status).to.equal(200);
      const cookie = cookieOf(res, refreshCookieOf(p));
      expect(cookie?.value).to.equal('');
      expect((await refresh(refreshToken)).status).to.equal(401);
    });

    it('takes the token from the cookie, and accepts an unknown token', async () => {
      const { refreshToken } = await signup(p);
      const res = await keyed(p).post('/api/userAuth/logout', undefined, {
        headers: { cookie: `${refreshCookieOf(p)}=${refreshToken}` },
      });
      expect(res.status).to.equal(200);
      expect((await refresh(refreshToken)).status).to.equal(401);
      expect((await keyed(p).post('/api/userAuth/logout', { refreshToken: 'rt_unknown' })).status).to.equal(
        200,
      );
    });

    it('answers 400 without a token', async () => {
      const res = await keyed(p).post('/api/userAuth/logout', {});
      expect(res.status).to.equal(400);
      expect(res.body.code).to.equal('MISSING_REFRESH_TOKEN');
    });
  });

  describe('PUT /api/userAuth/change-password', () => {
    it('changes the password and revokes the other sessions, keeping the current one', async () => {
      const { email, accessToken, refreshToken: current } = await signup(p);
      const other = (await keyed(p).post('/api/userAuth/login', { email, password: PASSWORD })).body.data
        .refreshToken;
      const res = await bearer(p, accessToken).put('/api/userAuth/change-password', {
        currentPassword: PASSWORD,
        newPassword: 'a brand new passphrase',
        refreshToken: current,
      });
      expect(res.status).to.equal(200);
      expect(res.body.data).to.deep.equal({ revokedSessions: 1, keptCurrentSession: true });
      expect((await refresh(other)).status).to.equal(401);
      expect((await refresh(current)).status).to.equal(200);
      expect((await keyed(p).post('/api/userAuth/login', { email, password: PASSWORD })).status).to.equal(
        401,
      );
      expect(
        (await keyed(p).post('/api/userAuth/login', { email, password: 'a brand new passphrase' })).status,
      ).to.equal(200);
    });

    it('revokes every session when no refresh token is sent', async () => {
      const { accessToken, refreshToken } = await signup(p);
      const res = await bearer(p, accessToken).put('/api/userAuth/change-password', {
        currentPassword: PASSWORD,
        newPassword: 'a brand new passphrase',
      });
      expect(res.body.data).to.deep.equal({ revokedSessions: 1, keptCurrentSession: false });
      expect((await refresh(refreshToken)).status).to.equal(401);
    });

    it('answers 401 for a wrong current password, then 429 after five', async () => {
      const { accessToken } = await signup(p);
      const client = bearer(p, accessToken);
      const body = { currentPassword: 'not the password', newPassword: 'a brand new passphrase' };
      for (let i = 0; i < 5; i++) {
        const res = await client.put('/api/userAuth/change-password', body);
        expect(res.status).to.equal(401);
        expect(res.body.code).to.equal('INVALID_CREDENTIALS');
      }
      const limited = await client.put('/api/userAuth/change-password', {
        ...body,
        currentPassword: PASSWORD,
      });
      expect(limited.status).to.equal(429);
      expect(limited.headers.get('retry-after')).to.match(/^\d+$/);
    });

    it('answers 400 for a new password that is too short', async () => {
      const { accessToken } = await signup(p);
      const res = await bearer(p, accessToken).put('/api/userAuth/change-password', {
        currentPassword: PASSWORD,
        newPassword: 'short',
      });
      expect(res.status).to.equal(400);
      expect(res.body.message).to.include('newPassword');
    });
  });

  describe('rate limits', () => {
    it('locks an email after five failed logins (429), even with the right password', async () => {
      const { email } = await signup(p);
      for (let i = 0; i < 5; i++) {
        expect(
          (await keyed(p).post('/api/userAuth/login', { email, password: 'wrong password' })).status,
        ).to.equal(401);
      }
      const res = await keyed(p).post('/api/userAuth/login', { email, password: PASSWORD });
      expect(res.status).to.equal(429);
      expect(Number(res.headers.get('retry-after'))).to.be.greaterThan(0);
    });

    it('locks an IP after fifty failed logins over many emails', async () => {
      const q = await authProject(app);
      for (let i = 0; i < 50; i++) {
        expect(
          (await keyed(q).post('/api/userAuth/login', { email: newEmail(), password: 'wrong' })).status,
        ).to.equal(401);
      }
      const res = await keyed(q).post('/api/userAuth/login', { email: newEmail(), password: 'wrong' });
      expect(res.status).to.equal(429);
    });

    it('limits sign-ups per IP (USER_AUTH_SIGNUPS_PER_HOUR)', async () => {
      const limited = await startTestApp('public', 'user_auth_signup_limit', {
        USER_AUTH_SIGNUPS_PER_HOUR: '2',
      });
      try {
        const q = await authProject(limited);
        expect(
          (await keyed(q).post('/api/userAuth/signup', { email: newEmail(), password: PASSWORD })).status,
        ).to.equal(201);
        expect(
          (await keyed(q).post('/api/userAuth/signup', { email: newEmail(), password: PASSWORD })).status,
        ).to.equal(201);
        const res = await keyed(q).post('/api/userAuth/signup', { email: newEmail(), password: PASSWORD });
        expect(res.status).to.equal(429);
        expect(res.headers.get('retry-after')).to.equal('3600');
      } finally {
        await limited.close();
      }
    });
  });
});
