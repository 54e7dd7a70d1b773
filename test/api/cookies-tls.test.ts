// Cookies on a TLS deployment (https PUBLIC_URL / DASHBOARD_URL, reached here over plain HTTP as a
// TLS-terminating proxy without TRUST_PROXY would): Secure and prefixed (`__Host-` for the dashboard
// session on `/`, `__Secure-` for the path-scoped end-user cookies), and only the prefixed name is
// read. Plus the throttled dashboard password change and the disabled user's login answers.
import { expect } from 'chai';
import { startTestApp, type TestApp } from '../helpers/app.js';
import type { ApiResponse } from '../helpers/client.js';
import { createDeveloper } from '../helpers/fixtures.js';
import {
  authProject,
  cookieOf,
  keyed,
  newEmail,
  PASSWORD,
  type AuthProject,
  refreshCookieOf,
} from '../helpers/user-auth.js';

const attributesOf = (res: ApiResponse, name: string) => {
  const cookie = cookieOf(res, name);
  expect(cookie, `${name} in ${res.headers.getSetCookie().join(' | ')}`).to.not.equal(undefined);
  return { value: cookie!.value, attributes: cookie!.attributes.split(';').map((a) => a.trim()) };
};

describe('cookies over TLS, password change throttling, disabled logins', () => {
  describe('dashboard session on an https DASHBOARD_URL', () => {
    let dashboard: TestApp;
    before(async () => {
      dashboard = await startTestApp('dashboard', 'cookies_tls_dash', {
        DASHBOARD_URL: 'https://dash.example.test',
      });
    });
    after(() => dashboard?.close());

    it('sets __Host-baas_session (Secure, Path=/, no Domain) and reads only that name', async () => {
      const { developer, password } = await createDeveloper(dashboard.services);
      const login = await dashboard.client.post('/api/auth/login', { email: developer.email, password });
      expect(login.status).to.equal(200);
      expect(cookieOf(login, 'baas_session'), 'no unprefixed cookie').to.equal(undefined);
      const { value, attributes } = attributesOf(login, '__Host-baas_session');
      expect(attributes).to.include.members(['path=/', 'secure', 'httponly', 'samesite=lax']);
      expect(attributes.some((a) => a.startsWith('domain='))).to.equal(false);

      const me = await dashboard.client.with({ cookie: `__Host-baas_session=${value}` }).get('/api/user/me');
      expect(me.status).to.equal(200);
      // A cookie without the prefix (one a sibling subdomain or a plain-HTTP page could plant) is ignored.
      const planted = await dashboard.client.with({ cookie: `baas_session=${value}` }).get('/api/user/me');
      expect(planted.status).to.equal(401);

      const out = await dashboard.client
        .with({ cookie: `__Host-baas_session=${value}` })
        .post('/api/auth/logout');
      expect(attributesOf(out, '__Host-baas_session').attributes).to.include('secure');
    });

    it('HSTS on its answers', async () => {
      expect((await dashboard.client.get('/api/health')).headers.get('strict-transport-security')).to.match(
        /^max-age=/,
      );
    });
  });

  describe('end-user cookies on an https PUBLIC_URL', () => {
    let app: TestApp;
    let p: AuthProject;
    before(async () => {
      app = await startTestApp('public', 'cookies_tls_public', { PUBLIC_URL: 'https://api.example.test' });
      p = await authProject(app);
    });
    after(() => app?.close());

    it('sets __Secure-baas_refresh_<projectId> (Secure, Path=/api/userAuth) and refreshes only with that name', async () => {
      const signup = await keyed(p).post('/api/userAuth/signup', { email: newEmail(), password: PASSWORD });
      expect(signup.status).to.equal(201);
      expect(cookieOf(signup, refreshCookieOf(p))).to.equal(undefined);
      const { value, attributes } = attributesOf(signup, `__Secure-${refreshCookieOf(p)}`);
      expect(attributes).to.include.members(['path=/api/userauth', 'secure', 'httponly']);
      const plain = await keyed(p)
        .with({ cookie: `${refreshCookieOf(p)}=${value}` })
        .post('/api/userAuth/refresh-token', {});
      expect(plain.status).to.equal(400);
      expect(plain.body.code).to.equal('MISSING_REFRESH_TOKEN');
      const refreshed = await keyed(p)
        .with({ cookie: `__Secure-${refreshCookieOf(p)}=${value}` })
        .post('/api/userAuth/refresh-token', {});
      expect(refreshed.status, refreshed.text).to.equal(200);
      expect(attributesOf(refreshed, `__Secure-${refreshCookieOf(p)}`).attributes).to.include('secure');
    });
  });

  describe('a plain HTTP deployment', () => {
    let app: TestApp;
    let p: AuthProject;
    before(async () => {
      app = await startTestApp('public', 'cookies_plain', { TRUST_PROXY: 'true' });
      p = await authProject(app);
    });
    after(() => app?.close());

    it('keeps the bare names, Secure only on a request that came over TLS', async () => {
      const body = () => ({ email: newEmail(), password: PASSWORD });
      const plain = await keyed(p).post('/api/userAuth/signup', body());
      expect(attributesOf(plain, refreshCookieOf(p)).attributes).not.to.include('secure');
      const proxied = await keyed(p)
        .with({ 'x-forwarded-proto': 'https' })
        .post('/api/userAuth/signup', body());
      expect(attributesOf(proxied, refreshCookieOf(p)).attributes).to.include('secure');
    });
  });

  describe('dashboard password change', () => {
    let dashboard: TestApp;
    before(async () => {
      dashboard = await startTestApp('dashboard', 'password_throttle');
    });
    after(() => dashboard?.close());

    it('allows 5 wrong current passwords per account in 15 minutes, then 429 even with the right one', async () => {
      const { cookie, password } = await createDeveloper(dashboard.services);
      const other = await createDeveloper(dashboard.services);
      const change = (as: string, currentPassword: string) =>
        dashboard.client
          .with({ cookie: as })
          .put('/api/user/me/password', { currentPassword, newPassword: 'a brand new passphrase' });
      const guesses = await Promise.all(
        Array.from({ length: 8 }, (_, i) => change(cookie, `guess number ${i}`)),
      );
      expect(guesses.map((r) => r.status).sort()).to.deep.equal([401, 401, 401, 401, 401, 429, 429, 429]);
      const right = await change(cookie, password);
      expect(right.status).to.equal(429);
      expect(Number(right.headers.get('retry-after'))).to.be.greaterThan(0);
      // Per account: another developer is not held back.
      expect((await change(other.cookie, other.password)).status).to.equal(200);
    });
  });

  describe('a disabled end user', () => {
    let app: TestApp;
    let p: AuthProject;
    before(async () => {
      app = await startTestApp('public', 'disabled_login', { USER_AUTH_SIGNUPS_PER_HOUR: '1000' });
      p = await authProject(app);
    });
    after(() => app?.close());

    it('gets the answer of a wrong password, with the right password too', async () => {
      const login = (email: string, password: string) =>
        keyed(p).post('/api/userAuth/login', { email, password });
      const make = async () => {
        const email = newEmail();
        const res = await keyed(p).post('/api/userAuth/signup', { email, password: PASSWORD });
        return { email, id: res.body.data.user._id as string };
      };
      const [active, disabled] = [await make(), await make()];
      expect((await keyed(p, p.secretKey).post(`/api/users/${disabled.id}/disable`)).status).to.equal(200);
      const shape = (res: ApiResponse) => ({
        status: res.status,
        code: res.body.code,
        message: res.body.message,
      });
      const wrongActive = await login(active.email, 'not the password');
      const wrongDisabled = await login(disabled.email, 'not the password');
      const unknown = await login(newEmail(), 'not the password');
      expect(shape(wrongDisabled)).to.deep.equal(shape(wrongActive));
      expect(shape(wrongDisabled)).to.deep.equal(shape(unknown));
      expect(wrongDisabled.status).to.equal(401);
      const right = await login(disabled.email, PASSWORD);
      expect(shape(right)).to.deep.equal(shape(wrongDisabled), 'the right password is not confirmed');
    });
  });
});
