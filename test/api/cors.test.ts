import { expect } from 'chai';
import type { ApiResponse } from '../helpers/client.js';
import {
  authProject,
  cookieOf,
  keyed,
  newEmail,
  PASSWORD,
  signup,
  useAuthSuite,
  refreshCookieOf,
} from '../helpers/user-auth.js';

const APP = 'https://app.example.com';
const SITE = 'https://site.example.com';
const OTHER = 'https://other.example.net';

const CORS_HEADERS = [
  'access-control-allow-origin',
  'access-control-allow-credentials',
  'access-control-expose-headers',
  'access-control-allow-methods',
  'access-control-allow-headers',
];

/** The origin echoed; credentials only when the key's project names the origin as its own. */
function expectGranted(res: ApiResponse, origin: string, credentials = false) {
  expect(res.headers.get('access-control-allow-origin'), res.text).to.equal(origin);
  expect(res.headers.get('access-control-allow-credentials'), 'credentials').to.equal(
    credentials ? 'true' : null,
  );
  expect(res.headers.get('access-control-expose-headers')).to.include('x-request-id');
  expect(res.headers.get('vary')).to.include('Origin');
}

function expectNoCors(res: ApiResponse) {
  for (const name of CORS_HEADERS) expect(res.headers.get(name), name).to.equal(null);
  expect(res.headers.get('vary'), 'caches still key on Origin').to.include('Origin');
}

describe('CORS on the public API', () => {
  // `p` lists no origin (any origin may use its publishable key); `listed` lists APP only; `site`
  // lists none but has a site URL.
  const { app, p } = useAuthSuite('cors');
  let listed: Awaited<ReturnType<typeof authProject>>;
  let site: Awaited<ReturnType<typeof authProject>>;
  before(async () => {
    listed = await authProject(app, { settings: { allowedOrigins: [APP] } });
    site = await authProject(app, { settings: { siteUrl: `${SITE}/home` } });
  });

  const preflight = (path: string, origin: string, headers: Record<string, string> = {}) =>
    app.client.request('OPTIONS', path, {
      headers: { origin, 'access-control-request-headers': 'x-api-key', ...headers },
    });

  describe('preflights (answered before the project is known)', () => {
    it('answers 204 with the methods of the route and the headers the API reads', async () => {
      const res = await preflight('/api/data/products', OTHER, { 'access-control-request-method': 'POST' });
      expect(res.status).to.equal(204);
      expect(res.headers.get('access-control-allow-origin')).to.equal(OTHER);
      expect(res.headers.get('access-control-allow-credentials')).to.equal('true');
      expect(res.headers.get('access-control-allow-methods')).to.equal('HEAD, GET, POST, OPTIONS');
      const allowed = res.headers.get('access-control-allow-headers')!.split(', ');
      expect(allowed).to.include.members([
        'x-api-key',
        'authorization',
        'content-type',
        'x-refresh-token',
        'x-refresh-token-mode',
      ]);
      expect(Number(res.headers.get('access-control-max-age'))).to.be.greaterThan(0);
      expect(res.headers.get('vary')).to.include('Origin');
      expect(res.text).to.equal('');
    });

    it('gives each route its own methods', async () => {
      const methods = async (path: string) =>
        (await preflight(path, APP)).headers.get('access-control-allow-methods');
      expect(await methods('/api/data/products/65f1c2a4b7e8d90012345678')).to.equal(
        'HEAD, GET, PUT, DELETE, PATCH, OPTIONS',
      );
      expect(await methods('/api/userAuth/refresh-token')).to.equal('POST, OPTIONS');
      expect(await methods('/api/userAuth/update-profile')).to.equal('PUT, OPTIONS');
      expect(await methods('/api/storage/file')).to.equal('DELETE, OPTIONS');
      expect(await methods('/api/health')).to.equal('HEAD, GET, OPTIONS');
      // A literal segment wins over a parameter: `bulk` is not a document id of {id}'s route.
      expect(await methods('/api/data/products/bulk')).to.equal('POST, OPTIONS');
      expect(await methods('/api/data/products/aggregate')).to.equal('POST, OPTIONS');
      const plain = await app.client.request('OPTIONS', '/api/data/products/bulk');
      expect(plain.headers.get('allow')).to.equal('POST, OPTIONS');
    });

    it('answers an OPTIONS without Origin with Allow only, and an unknown path with a 404', async () => {
      const plain = await app.client.request('OPTIONS', '/api/userAuth/login');
      expect(plain.status).to.equal(204);
      expect(plain.headers.get('allow')).to.equal('POST, OPTIONS');
      expectNoCors(plain);
      const unknown = await preflight('/api/nothing-here', APP);
      expect(unknown.status).to.equal(404);
    });

    it('never grants the opaque origin "null"', async () => {
      const res = await preflight('/api/data/products', 'null');
      expect(res.status).to.equal(204);
      expectNoCors(res);
    });
  });

  describe('actual requests', () => {
    it('echoes the origin without credentials on 200, 401, 403 and 404 answers of a project listing no origins', async () => {
      const ok = await keyed(p).get('/api/health', { headers: { origin: OTHER } });
      expect(ok.status).to.equal(200);
      expectGranted(ok, OTHER);

      const noKey = await app.client.get('/api/data/products', { headers: { origin: OTHER } });
      expect(noKey.status).to.equal(401);
      expectGranted(noKey, OTHER);

      const users = await keyed(p).get('/api/data/users', { headers: { origin: OTHER } });
      expect(users.status).to.equal(403);
      expectGranted(users, OTHER);

      const missing = await keyed(p).get('/api/data/nothing_here', { headers: { origin: OTHER } });
      expect(missing.status).to.equal(404);
      expectGranted(missing, OTHER);

      const noRoute = await app.client.get('/api/no-such-route', { headers: { origin: OTHER } });
      expect(noRoute.status).to.equal(404);
      expectGranted(noRoute, OTHER);
    });

    it('grants a listed origin, and refuses another one with 403 and no CORS headers', async () => {
      const allowed = await keyed(listed).get('/api/schemas/users', { headers: { origin: APP } });
      expect(allowed.status).to.equal(200);
      expectGranted(allowed, APP, true);
      const missing = await keyed(listed).get('/api/data/nothing_here', { headers: { origin: APP } });
      expect(missing.status).to.equal(404);
      expectGranted(missing, APP, true);

      const refused = await keyed(listed).get('/api/schemas/users', { headers: { origin: OTHER } });
      expect(refused.status).to.equal(403);
      expect(refused.body.code).to.equal('ORIGIN_NOT_ALLOWED');
      expectNoCors(refused);

      const byQuery = await app.client.get('/api/schemas/users', {
        query: { key: listed.publishableKey },
        headers: { origin: OTHER },
      });
      expect(byQuery.status).to.equal(403);
      expectNoCors(byQuery);
    });

    it('grants credentials to a listed origin and the site URL origin only, never to any origin of a project listing none', async () => {
      const bySite = await keyed(site).get('/api/schemas/users', { headers: { origin: SITE } });
      expectGranted(bySite, SITE, true);
      const otherOfSite = await keyed(site).get('/api/schemas/users', { headers: { origin: OTHER } });
      expect(otherOfSite.status).to.equal(200);
      expectGranted(otherOfSite, OTHER, false);
      // A project listing no origin: any page reads its answers, none with the user's cookies.
      for (const origin of [APP, SITE, OTHER]) {
        const res = await keyed(p).get('/api/schemas/users', { headers: { origin } });
        expect(res.status).to.equal(200);
        expectGranted(res, origin, false);
      }
      // No key, no project: no credentials either.
      const noKey = await app.client.get('/api/data/products', { headers: { origin: APP } });
      expectGranted(noKey, APP, false);
    });

    it('sends no CORS headers to a request without Origin (servers, curl)', async () => {
      const res = await keyed(p).get('/api/schemas/users');
      expect(res.status).to.equal(200);
      expectNoCors(res);
    });
  });

  describe('the refresh cookie across origins', () => {
    const refreshWithCookie = (project: typeof p, token: string, origin?: string) =>
      keyed(project).post('/api/userAuth/refresh-token', undefined, {
        headers: { cookie: `${refreshCookieOf(project)}=${token}`, ...(origin ? { origin } : {}) },
      });

    it('is neither read nor set for an origin the project does not list (any-origin project)', async () => {
      const created = await keyed(p).post(
        '/api/userAuth/signup',
        { email: newEmail(), password: PASSWORD },
        { headers: { origin: OTHER } },
      );
      expect(created.status).to.equal(201);
      expect(cookieOf(created, refreshCookieOf(p)), 'no cookie for a foreign page').to.equal(undefined);
      const token = created.body.data.refreshToken as string;

      // A hostile page cannot rotate the victim's cookie and read the new tokens...
      const driven = await refreshWithCookie(p, token, OTHER);
      expect(driven.status).to.equal(400);
      expect(driven.body.code).to.equal('MISSING_REFRESH_TOKEN');
      expectGranted(driven, OTHER);
      // ...nor log the victim out.
      const logout = await keyed(p).post('/api/userAuth/logout', undefined, {
        headers: { cookie: `${refreshCookieOf(p)}=${token}`, origin: OTHER },
      });
      expect(logout.status).to.equal(400);
      expect(cookieOf(logout, refreshCookieOf(p))).to.equal(undefined);

      // The same cookie still works without an Origin (not driven by a page), and the token
      // itself works from any origin in the body or the x-refresh-token header.
      const direct = await refreshWithCookie(p, token);
      expect(direct.status).to.equal(200);
      const byHeader = await keyed(p).post('/api/userAuth/refresh-token', undefined, {
        headers: { 'x-refresh-token': direct.body.data.refreshToken, origin: OTHER },
      });
      expect(byHeader.status).to.equal(200);
      expectGranted(byHeader, OTHER);
    });

    it('is read and set for a listed origin and for the site URL origin', async () => {
      for (const [project, origin] of [
        [listed, APP],
        [site, SITE],
      ] as const) {
        const created = await keyed(project).post(
          '/api/userAuth/signup',
          { email: newEmail(), password: PASSWORD },
          { headers: { origin } },
        );
        const cookie = cookieOf(created, refreshCookieOf(project));
        expect(cookie?.value, origin).to.equal(created.body.data.refreshToken);
        const rotated = await refreshWithCookie(project, cookie!.value, origin);
        expect(rotated.status, origin).to.equal(200);
        expectGranted(rotated, origin, true);
        expect(cookieOf(rotated, refreshCookieOf(project))?.value).to.equal(rotated.body.data.refreshToken);
      }
    });

    it('is not read for another origin of a project with a site URL, nor with the secret key', async () => {
      const { refreshToken } = await signup(site);
      const res = await refreshWithCookie(site, refreshToken, OTHER);
      expect(res.status).to.equal(400);
      expect(res.body.code).to.equal('MISSING_REFRESH_TOKEN');
      const secret = await keyed(listed, listed.secretKey).post('/api/userAuth/refresh-token', undefined, {
        headers: {
          cookie: `${refreshCookieOf(listed)}=${(await signup(listed)).refreshToken}`,
          origin: OTHER,
        },
      });
      expect(secret.status).to.equal(400);
      expect(secret.body.code).to.equal('MISSING_REFRESH_TOKEN');
    });
  });
});
