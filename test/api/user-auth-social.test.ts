import { createHash, randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { startTestApp } from '../helpers/app.js';
import type { ApiResponse } from '../helpers/client.js';
import { authorizeAtProvider, requestManual, startOAuthProviders } from '../helpers/oauth.js';
import {
  authProject,
  bearer,
  cookieOf,
  expectNoSecrets,
  keyed,
  newEmail,
  PASSWORD,
  signup,
  useAuthSuite,
  USER_BASE_FIELDS,
} from '../helpers/user-auth.js';

const SITE = 'http://app.example.test';
const CALLBACK_PAGE = `${SITE}/auth/callback`;

describe('/api/userAuth social login', () => {
  let providers: Awaited<ReturnType<typeof startOAuthProviders>>;
  before(async () => {
    providers = await startOAuthProviders();
  });
  // Registered after the providers' hook: the app starts once the mocks are up and closes first.
  const { app, p } = useAuthSuite('user_auth_social', {
    env: () => providers.env,
    project: { settings: { siteUrl: SITE } },
  });
  after(() => providers.close());

  const start = (provider: string, query: Record<string, string> = {}, project = p) =>
    requestManual(app.client, `/api/userAuth/social/${provider}/start`, {
      key: project.publishableKey,
      ...query,
    });

  /** The `Cookie` header of the browser that started a flow: its state cookie. */
  const browserOf = (started: ApiResponse) => ({
    cookie: `baas_oauth_state=${cookieOf(started, 'baas_oauth_state')!.value}`,
  });
  /** The browser each code of a callback landed in: the cookie the callback set there. */
  const browserOfCode = new Map<string, Record<string, string>>();

  /**
   * Start -> provider -> callback; returns the URL the app's callback page is sent to. The
   * callback comes from the browser that started, unless `browser` says otherwise.
   */
  async function loginAt(
    provider: 'github' | 'google',
    redirectUrl: string | null = CALLBACK_PAGE,
    project = p,
    browser?: Record<string, string>,
  ): Promise<URL> {
    const started = await start(provider, redirectUrl === null ? {} : { redirectUrl }, project);
    expect(started.status, started.text).to.equal(302);
    const back = await authorizeAtProvider(started.headers.get('location')!);
    expect(back.pathname).to.equal(`/api/userAuth/social/${provider}/callback`);
    const done = await requestManual(
      app.client,
      back.pathname,
      Object.fromEntries(back.searchParams),
      browser ?? browserOf(started),
    );
    expect(done.status, done.text).to.equal(302);
    expect(done.body.data.location).to.equal(done.headers.get('location'));
    const landing = new URL(done.headers.get('location')!);
    const cookie = cookieOf(done, 'baas_oauth_state');
    const code = landing.searchParams.get('code');
    if (code) {
      // The code is bound to this browser by a new cookie value, for the code's 2 minutes.
      expect(cookie?.value).to.have.length.greaterThan(30);
      expect(cookie?.value).not.to.equal(back.searchParams.get('state'));
      expect(cookie?.attributes).to.include('httponly');
      const expires = Date.parse(/expires=([^;]+)/.exec(cookie!.attributes)![1]!);
      expect(expires - Date.now()).to.be.within(60_000, 2 * 60_000 + 1000);
      browserOfCode.set(code, { cookie: `baas_oauth_state=${cookie!.value}` });
    } else {
      expect(cookie?.attributes, 'the state cookie is cleared').to.match(/expires=thu, 01 jan 1970/);
    }
    return landing;
  }

  /** The app's callback page swaps the code, from the browser the code landed in unless told otherwise. */
  const exchange = (
    code: string,
    project = p,
    browser = browserOfCode.get(code) ?? {},
    body: Record<string, string> = {},
  ) =>
    keyed(project)
      .with(browser)
      .post('/api/userAuth/social/exchange', { code, ...body });

  describe('Google (OpenID Connect userinfo)', () => {
    it('creates a verified user for a new verified email and hands tokens over through a one-time code', async () => {
      const email = newEmail('google');
      providers.google.profile = {
        id: 'g-new',
        email,
        emailVerified: true,
        name: 'Grace',
        avatar: 'https://img.example/g.png',
      };
      const started = await start('google', { redirectUrl: CALLBACK_PAGE });
      const authorize = new URL(started.headers.get('location')!);
      expect(authorize.origin + authorize.pathname).to.equal(`${providers.google.url}/authorize`);
      expect(authorize.searchParams.get('client_id')).to.equal('google-client');
      expect(authorize.searchParams.get('code_challenge_method')).to.equal('S256');
      expect(authorize.searchParams.get('scope')).to.equal('openid email profile');
      expect(authorize.searchParams.get('state')).to.have.length.greaterThan(30);

      const landing = await loginAt('google');
      expect(landing.origin + landing.pathname).to.equal(CALLBACK_PAGE);
      const code = landing.searchParams.get('code')!;
      expect(code).to.have.length.greaterThan(30);
      const token = providers.google.tokenRequests.at(-1)!;
      expect(token).to.include({
        grant_type: 'authorization_code',
        client_id: 'google-client',
        client_secret: 'google-secret',
      });
      expect(token.code_verifier).to.have.length.greaterThan(42);

      const res = await exchange(code);
      expect(res.status).to.equal(200);
      expectNoSecrets(res);
      const { user, accessToken, refreshToken } = res.body.data;
      expect(user).to.include({
        email,
        emailVerified: true,
        name: 'Grace',
        avatar: 'https://img.example/g.png',
      });
      expect(user.identities).to.deep.equal([{ provider: 'google', id: 'g-new' }]);
      expect(refreshToken).to.match(/^rt_/);
      expect((await bearer(p, accessToken).get('/api/userAuth/me')).body.data.email).to.equal(email);
      // Single use.
      expect((await exchange(code)).status).to.equal(400);
      // The same identity signs in to the same account again.
      const again = await exchange((await loginAt('google')).searchParams.get('code')!);
      expect(again.body.data.user._id).to.equal(user._id);
    });

    it('links to an existing verified account by the provider-verified email', async () => {
      const { email, user } = await signup(p);
      await app.deps.db
        .project(p.project.id)
        .collection('users')
        .updateOne({ email }, { $set: { emailVerified: true } });
      providers.google.profile = { id: `g-${user._id}`, email: email.toUpperCase(), emailVerified: true };
      const res = await exchange((await loginAt('google')).searchParams.get('code')!);
      expect(res.body.data.user._id).to.equal(user._id);
      // A verified account keeps its password.
      expect((await keyed(p).post('/api/userAuth/login', { email, password: PASSWORD })).status).to.equal(
        200,
      );
    });

    it('takes over an unverified account only by disabling its password and sessions', async () => {
      const { email, user, refreshToken } = await signup(p);
      providers.google.profile = { id: `g-${user._id}`, email, emailVerified: true };
      const res = await exchange((await loginAt('google')).searchParams.get('code')!);
      expect(res.body.data.user).to.include({ _id: user._id, emailVerified: true });
      expect((await keyed(p).post('/api/userAuth/login', { email, password: PASSWORD })).status).to.equal(
        401,
      );
      expect((await keyed(p).post('/api/userAuth/refresh-token', { refreshToken })).status).to.equal(401);
    });

    it('refuses an email the provider has not verified, with an error for the app', async () => {
      const { email } = await signup(p);
      providers.google.profile = { id: 'g-unverified', email, emailVerified: false };
      const landing = await loginAt('google');
      expect(landing.searchParams.get('error')).to.equal('email_not_verified');
      expect(landing.searchParams.has('code')).to.equal(false);
    });

    it('charges a new account to databaseUsed, and refuses one that does not fit the quota', async () => {
      const projects = app.services.repos.projects;
      const used = async () => (await projects.usage(p.project.id)).databaseUsed;
      const stored = () => app.services.documents.databaseSize(p.project.id);
      await projects.addDatabaseUsed(p.project.id, (await stored()) - (await used()));
      providers.google.profile = { id: 'g-charged', email: newEmail('charged'), emailVerified: true };
      const landed = await loginAt('google');
      expect(landed.searchParams.has('code')).to.equal(true);
      expect(await used()).to.equal(await stored());

      await projects.setLimits(p.project.id, { databaseBytes: await used() });
      try {
        const email = newEmail('full');
        providers.google.profile = { id: 'g-full', email, emailVerified: true };
        const refused = await loginAt('google');
        expect(refused.searchParams.get('error')).to.equal('login_unavailable');
        expect(refused.searchParams.get('error_description')).to.match(/^Database quota exceeded/);
        const users = app.deps.db.project(p.project.id).collection('users');
        expect(await users.countDocuments({ email })).to.equal(0);
      } finally {
        await projects.setLimits(p.project.id, {});
      }
    });

    it('does not create an account the users schema would refuse: profile_incomplete, nothing written', async () => {
      const strict = await authProject(app, {
        fields: [...USER_BASE_FIELDS, { name: 'company', type: 'String', required: true }],
        settings: { siteUrl: SITE },
      });
      const email = newEmail('incomplete');
      providers.google.profile = { id: 'g-incomplete', email, emailVerified: true, name: 'Ines' };
      const landing = await loginAt('google', CALLBACK_PAGE, strict);
      expect(landing.origin + landing.pathname).to.equal(CALLBACK_PAGE);
      expect(landing.searchParams.has('code')).to.equal(false);
      expect(landing.searchParams.get('error')).to.equal('profile_incomplete');
      expect(landing.searchParams.get('error_description')).to.equal(
        'The account needs fields the provider does not supply (company); sign up with email and password instead',
      );
      const users = app.deps.db.project(strict.project.id).collection('users');
      expect(await users.countDocuments({ email })).to.equal(0);
      // The person signs up with the field instead; the provider then links to that account.
      const signedUp = await keyed(strict).post('/api/userAuth/signup', {
        email,
        password: PASSWORD,
        company: 'Acme',
      });
      expect(signedUp.status, signedUp.text).to.equal(201);
    });

    it('fills a new account from the profile and the schema defaults when that satisfies the schema', async () => {
      const named = await authProject(app, {
        fields: [
          ...USER_BASE_FIELDS.filter((f) => f.name !== 'name'),
          { name: 'name', type: 'String', required: true },
          { name: 'tier', type: 'String', default: 'basic' },
        ],
        settings: { siteUrl: SITE },
      });
      providers.google.profile = {
        id: 'g-named',
        email: newEmail('named'),
        emailVerified: true,
        name: 'Nora',
      };
      const landing = await loginAt('google', CALLBACK_PAGE, named);
      const res = await exchange(landing.searchParams.get('code')!, named);
      expect(res.status, res.text).to.equal(200);
      expect(res.body.data.user).to.include({ name: 'Nora', tier: 'basic' });
    });

    it('sends the app an error when the user denies access at the provider', async () => {
      const started = await start('google', { redirectUrl: CALLBACK_PAGE });
      const state = new URL(started.headers.get('location')!).searchParams.get('state')!;
      // Providers add parameters of their own (Google: scope, authuser, prompt); they are accepted.
      const res = await requestManual(
        app.client,
        '/api/userAuth/social/google/callback',
        { state, error: 'access_denied', scope: 'email', authuser: '0' },
        browserOf(started),
      );
      expect(res.status).to.equal(302);
      expect(new URL(res.headers.get('location')!).searchParams.get('error')).to.equal('access_denied');
    });
  });

  describe('GitHub (/user and /user/emails)', () => {
    it('uses the primary verified address of /user/emails', async () => {
      const email = newEmail('octo');
      providers.github.profile = { id: '4242', email, emailVerified: true, name: 'Octo Cat' };
      const landing = await loginAt('github');
      const res = await exchange(landing.searchParams.get('code')!);
      expect(res.status).to.equal(200);
      expect(res.body.data.user).to.include({ email, name: 'Octo Cat' });
      expect(res.body.data.user.identities).to.deep.equal([{ provider: 'github', id: '4242' }]);
      expect(providers.github.tokenRequests.at(-1)).to.include({
        client_id: 'github-client',
        client_secret: 'github-secret',
      });
    });

    it('falls back to another verified address, and refuses when none is verified', async () => {
      providers.github.profile = { id: '4343', email: newEmail('octo'), emailVerified: false };
      // The other (verified) address of the mock is then chosen: it is verified by the provider.
      const landing = await loginAt('github');
      const res = await exchange(landing.searchParams.get('code')!);
      expect(res.body.data.user.email).to.equal('other-4343@example.test');
      providers.github.profile = { id: '4444', email: null, emailVerified: false };
      expect((await loginAt('github')).searchParams.get('error')).to.equal('email_not_verified');
    });
  });

  describe('state and redirect checks', () => {
    it('binds the state to the browser with an HttpOnly cookie set at start', async () => {
      const started = await start('github', { redirectUrl: CALLBACK_PAGE });
      const state = new URL(started.headers.get('location')!).searchParams.get('state')!;
      const cookie = cookieOf(started, 'baas_oauth_state');
      expect(cookie?.value).to.equal(state);
      expect(cookie?.attributes).to.include('httponly');
      expect(cookie?.attributes).to.include('samesite=lax');
      expect(cookie?.attributes).to.include('path=/api/userauth/social');
      const expires = Date.parse(/expires=([^;]+)/.exec(cookie!.attributes)![1]!);
      expect(expires - Date.now()).to.be.within(9 * 60_000, 10 * 60_000 + 1000);
    });

    it('sends another browser (login CSRF) to the app with invalid_state and no code', async () => {
      providers.github.profile = { id: 'csrf-1', email: newEmail('csrf'), emailVerified: true };
      // The victim's browser follows the attacker's callback URL: it has no state cookie.
      const without = await loginAt('github', CALLBACK_PAGE, p, {});
      expect(without.origin + without.pathname).to.equal(CALLBACK_PAGE);
      expect(without.searchParams.get('error')).to.equal('invalid_state');
      expect(without.searchParams.has('code')).to.equal(false);
      // Nor does the cookie of another flow of the victim's own help.
      const victims = await start('github', { redirectUrl: CALLBACK_PAGE });
      const other = await loginAt('github', CALLBACK_PAGE, p, browserOf(victims));
      expect(other.searchParams.get('error')).to.equal('invalid_state');
      expect(other.searchParams.has('code')).to.equal(false);
      // The state was spent by the failed attempt: no account was made for the attacker's profile.
      const users = app.deps.db.project(p.project.id).collection('users');
      expect(await users.countDocuments({ 'identities.id': 'csrf-1' })).to.equal(0);
    });

    it("refuses the attacker's own code in the victim's browser (login CSRF through the exchange), and spends it", async () => {
      providers.github.profile = { id: '5151', email: newEmail('attacker'), emailVerified: true };
      // The attacker completes a login in their own browser and keeps the code instead of using it.
      const first = await loginAt('github');
      const code = first.searchParams.get('code')!;
      expect(code, first.toString()).to.be.a('string');
      const attackers = browserOfCode.get(code)!;
      // The victim, lured to CALLBACK_PAGE?code=..., has the app swap it: no cookie of that flow.
      const lured = await exchange(code, p, {});
      expect(lured.status).to.equal(400);
      expect(lured.body.code, lured.text).to.equal('OAUTH_BROWSER_MISMATCH');
      expect(lured.body).not.to.have.nested.property('data.accessToken');
      // Nor does the cookie of the victim's own, finished login help.
      providers.github.profile = { id: '5252', email: newEmail('victim'), emailVerified: true };
      const victims = (await loginAt('github')).searchParams.get('code')!;
      providers.github.profile = { id: '5151', email: newEmail('attacker'), emailVerified: true };
      const second = (await loginAt('github')).searchParams.get('code')!;
      const crossed = await exchange(second, p, browserOfCode.get(victims)!);
      expect(crossed.body.code).to.equal('OAUTH_BROWSER_MISMATCH');
      // A refused code is spent: the attacker cannot use it afterwards either.
      const late = await exchange(code, p, attackers);
      expect(late.body.code).to.equal('INVALID_EXCHANGE_CODE');
      // The legitimate flow: the victim's code in the victim's browser signs the victim in.
      const own = await exchange(victims);
      expect(own.status).to.equal(200);
      expect(own.body.data.user.identities).to.deep.equal([{ provider: 'github', id: '5252' }]);
      expect(cookieOf(own, 'baas_oauth_state')?.attributes, 'cleared').to.match(/expires=thu, 01 jan 1970/);
    });

    it("binds the code to the app's PKCE verifier when the start carried a codeChallenge", async () => {
      const verifier = randomBytes(32).toString('base64url');
      const codeChallenge = createHash('sha256').update(verifier).digest('base64url');
      providers.google.profile = { id: 'g-pkce', email: newEmail('pkce'), emailVerified: true };
      const viaApp = async () => {
        const started = await start('google', { redirectUrl: CALLBACK_PAGE, codeChallenge });
        expect(started.status, started.text).to.equal(302);
        const back = await authorizeAtProvider(started.headers.get('location')!);
        const done = await requestManual(
          app.client,
          back.pathname,
          Object.fromEntries(back.searchParams),
          browserOf(started),
        );
        return new URL(done.headers.get('location')!).searchParams.get('code')!;
      };
      // A cross-site app's fetch carries no cookie of the API: the verifier is its proof.
      const ok = await exchange(await viaApp(), p, {}, { codeVerifier: verifier });
      expect(ok.status, ok.text).to.equal(200);
      expect(ok.body.data.user.identities).to.deep.equal([{ provider: 'google', id: 'g-pkce' }]);
      // Another browser has another verifier (or none), whatever cookie it holds.
      const other = randomBytes(32).toString('base64url');
      expect((await exchange(await viaApp(), p, {}, { codeVerifier: other })).body.code).to.equal(
        'OAUTH_BROWSER_MISMATCH',
      );
      expect((await exchange(await viaApp(), p, {})).body.code).to.equal('OAUTH_BROWSER_MISMATCH');
      const badChallenge = await start('google', { redirectUrl: CALLBACK_PAGE, codeChallenge: 'short' });
      expect(badChallenge.status).to.equal(400);
    });

    it('answers 400 for an unknown, reused or other-provider state', async () => {
      const unknown = await requestManual(app.client, '/api/userAuth/social/google/callback', {
        state: 'forged',
        code: 'x',
      });
      expect(unknown.status).to.equal(400);
      expect(unknown.body.code).to.equal('INVALID_OAUTH_STATE');
      const started = await start('google', { redirectUrl: CALLBACK_PAGE });
      const state = new URL(started.headers.get('location')!).searchParams.get('state')!;
      const wrong = await requestManual(app.client, '/api/userAuth/social/github/callback', {
        state,
        code: 'x',
      });
      expect(wrong.status).to.equal(400);
      // Taken out by the attempt above: single use.
      const reused = await requestManual(app.client, '/api/userAuth/social/google/callback', {
        state,
        code: 'x',
      });
      expect(reused.status).to.equal(400);
      expect((await requestManual(app.client, '/api/userAuth/social/google/callback')).status).to.equal(400);
    });

    it('refuses a redirect URL outside the site URL and allowed origins', async () => {
      for (const redirectUrl of [
        'https://evil.example/cb',
        'http://app.example.test.evil.example/cb',
        'javascript:alert(1)',
      ]) {
        const res = await start('google', { redirectUrl });
        expect(res.status, redirectUrl).to.equal(400);
      }
      const res = await start('google', { redirectUrl: 'https://evil.example/cb' });
      expect(res.body.code).to.equal('REDIRECT_URL_NOT_ALLOWED');
    });

    it('defaults to the site URL, and accepts an allowed origin', async () => {
      const landing = await loginAt('google', null);
      expect(landing.origin + landing.pathname).to.equal(`${SITE}/`);
      const q = await authProject(app, { settings: { allowedOrigins: ['https://other-app.example'] } });
      providers.google.profile = { id: 'g-origin', email: newEmail(), emailVerified: true };
      const there = await loginAt('google', 'https://other-app.example/done?x=1', q);
      expect(there.searchParams.get('x')).to.equal('1');
      expect((await exchange(there.searchParams.get('code')!, q)).status).to.equal(200);
    });

    it('asks for a site URL when the project has none', async () => {
      const q = await authProject(app);
      const res = await start('google', { redirectUrl: CALLBACK_PAGE }, q);
      expect(res.status).to.equal(400);
      expect(res.body.message).to.include('site URL');
    });

    it('does not hand a code of project A to project B', async () => {
      const q = await authProject(app, { settings: { siteUrl: SITE } });
      providers.google.profile = { id: 'g-cross', email: newEmail(), emailVerified: true };
      const code = (await loginAt('google')).searchParams.get('code')!;
      const res = await exchange(code, q);
      expect(res.status).to.equal(400);
      expect(res.body.code).to.equal('INVALID_EXCHANGE_CODE');
    });

    it('answers 400 for a provider without credentials and for an unknown provider', async () => {
      const bare = await startTestApp('public', 'user_auth_social_bare');
      try {
        const q = await authProject(bare, { settings: { siteUrl: SITE } });
        const res = await requestManual(bare.client, '/api/userAuth/social/github/start', {
          key: q.publishableKey,
        });
        expect(res.status).to.equal(400);
        expect(res.body.code).to.equal('PROVIDER_NOT_CONFIGURED');
        expect(res.body.message).to.equal(
          'Social login with github is not set up on this installation: its operator sets OAUTH_GITHUB_CLIENT_ID and OAUTH_GITHUB_CLIENT_SECRET (docs/configuration.md).',
        );
      } finally {
        await bare.close();
      }
      expect((await start('gitlab')).status).to.equal(400);
    });

    it('answers 401 for a start without a key', async () => {
      const res = await requestManual(app.client, '/api/userAuth/social/google/start');
      expect(res.status).to.equal(401);
    });
  });
});
