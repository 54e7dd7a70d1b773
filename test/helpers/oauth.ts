// Real OAuth2/OIDC servers for the social login tests (oauth2-mock-server), one per provider:
// - Google: the mock's own OIDC endpoints; its userinfo answers `sub`, `email`, `email_verified`,
//   `name`, `picture` of the profile the test sets.
// - GitHub: a second mock with GitHub's paths (/login/oauth/authorize, /login/oauth/access_token,
//   /user, /user/emails); /user answers GitHub's shape (numeric `id`, `login`, `email: null`) and
//   /user/emails the list of addresses with `primary` and `verified`.
// Both check PKCE for real; the token requests they receive are recorded.
import { OAuth2Server } from 'oauth2-mock-server';
import { expect } from 'chai';
import type { ApiClient, ApiResponse } from './client.js';

export interface MockProfile {
  id: string;
  email: string | null;
  emailVerified: boolean;
  name?: string;
  avatar?: string;
}

export interface MockProvider {
  readonly url: string;
  /** The profile the next logins see. */
  profile: MockProfile;
  /** Bodies of the token requests received. */
  readonly tokenRequests: Array<Record<string, string>>;
}

async function startMock(endpoints?: Record<string, string>) {
  const server = new OAuth2Server(undefined, undefined, endpoints ? { endpoints } : undefined);
  await server.issuer.keys.generate('RS256');
  await server.start(0, '127.0.0.1');
  return server;
}

export async function startOAuthProviders() {
  const google = await startMock();
  const github = await startMock({
    authorize: '/login/oauth/authorize',
    token: '/login/oauth/access_token',
    userinfo: '/user{/emails}',
  });
  const googleUrl = google.issuer.url!.replace('localhost', '127.0.0.1');
  const githubUrl = github.issuer.url!.replace('localhost', '127.0.0.1');
  const providers = {
    google: {
      url: googleUrl,
      profile: { id: 'g-1', email: null, emailVerified: false },
      tokenRequests: [],
    } as MockProvider,
    github: {
      url: githubUrl,
      profile: { id: '1', email: null, emailVerified: false },
      tokenRequests: [],
    } as MockProvider,
  };
  google.service.on('beforeResponse', (_res, req) => providers.google.tokenRequests.push({ ...req.body }));
  github.service.on('beforeResponse', (_res, req) => providers.github.tokenRequests.push({ ...req.body }));
  google.service.on('beforeUserinfo', (res) => {
    const p = providers.google.profile;
    res.body = {
      sub: p.id,
      email: p.email,
      email_verified: p.emailVerified,
      name: p.name,
      picture: p.avatar,
    };
  });
  github.service.on('beforeUserinfo', (res, req) => {
    const p = providers.github.profile;
    res.body = req.url?.startsWith('/user/emails')
      ? p.email
        ? [
            { email: `other-${p.id}@example.test`, primary: false, verified: true, visibility: null },
            { email: p.email, primary: true, verified: p.emailVerified, visibility: 'private' },
          ]
        : []
      : {
          id: Number(p.id),
          login: `octo${p.id}`,
          name: p.name ?? null,
          email: null,
          avatar_url: p.avatar ?? null,
        };
  });
  return {
    ...providers,
    /** Settings that point the app at the two mocks. */
    env: {
      OAUTH_GOOGLE_CLIENT_ID: 'google-client',
      OAUTH_GOOGLE_CLIENT_SECRET: 'google-secret',
      OAUTH_GOOGLE_AUTHORIZE_URL: `${googleUrl}/authorize`,
      OAUTH_GOOGLE_TOKEN_URL: `${googleUrl}/token`,
      OAUTH_GOOGLE_USERINFO_URL: `${googleUrl}/userinfo`,
      OAUTH_GITHUB_CLIENT_ID: 'github-client',
      OAUTH_GITHUB_CLIENT_SECRET: 'github-secret',
      OAUTH_GITHUB_AUTHORIZE_URL: `${githubUrl}/login/oauth/authorize`,
      OAUTH_GITHUB_TOKEN_URL: `${githubUrl}/login/oauth/access_token`,
      OAUTH_GITHUB_USERINFO_URL: `${githubUrl}/user`,
      OAUTH_GITHUB_EMAILS_URL: `${githubUrl}/user/emails`,
    },
    async close() {
      await Promise.all([google.stop(), github.stop()]);
    },
  };
}

/**
 * A request that does not follow redirects (the ApiClient's fetch would), checked against the
 * spec and recorded for the coverage check exactly like ApiClient's own requests.
 */
export async function requestManual(
  client: ApiClient,
  path: string,
  query: Record<string, string> = {},
  headers: Record<string, string> = {},
): Promise<ApiResponse> {
  const url = new URL(path, client.baseUrl);
  for (const [key, value] of Object.entries(query)) url.searchParams.set(key, value);
  const res = await fetch(url, { headers: { ...client.defaultHeaders, ...headers }, redirect: 'manual' });
  const text = await res.text();
  const body = res.headers.get('content-type')?.includes('json') && text ? JSON.parse(text) : text;
  const response: ApiResponse = { status: res.status, body, headers: res.headers, text };
  (client as unknown as { check(method: string, path: string, res: ApiResponse): void }).check(
    'GET',
    url.pathname,
    response,
  );
  return response;
}

/** Follows the provider's authorize redirect (the mock grants at once) and returns where it sends the browser. */
export async function authorizeAtProvider(location: string): Promise<URL> {
  const res = await fetch(location, { redirect: 'manual' });
  expect(res.status, await res.clone().text()).to.equal(302);
  return new URL(res.headers.get('location')!);
}

/**
 * One social login as a browser makes it: start with the project's publishable key, the
 * provider's consent, and the callback with the state cookie the start set. Returns the URL the
 * app's page is sent to (`code` or `error`).
 */
export async function socialLogin(
  client: ApiClient,
  provider: 'github' | 'google',
  publishableKey: string,
  redirectUrl: string,
): Promise<URL> {
  const started = await requestManual(client, `/api/userAuth/social/${provider}/start`, {
    key: publishableKey,
    redirectUrl,
  });
  expect(started.status, started.text).to.equal(302);
  const state = /baas_oauth_state=([^;]+)/.exec(started.headers.getSetCookie().join('\n'))?.[1];
  const back = await authorizeAtProvider(started.headers.get('location')!);
  const done = await requestManual(client, back.pathname, Object.fromEntries(back.searchParams), {
    cookie: `baas_oauth_state=${state}`,
  });
  expect(done.status, done.text).to.equal(302);
  return new URL(done.headers.get('location')!);
}
