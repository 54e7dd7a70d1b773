// A new account made by social login is a sign-up of the browser's address: it shares the hour's
// budget of the email-and-password sign-ups (USER_AUTH_SIGNUPS_PER_HOUR), and past it the app's
// page gets error=too_many_signups with no account made. Logging in to an account already there
// is not a sign-up and is never refused by it.
import { expect } from 'chai';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { socialLogin, startOAuthProviders } from '../helpers/oauth.js';
import { authProject, keyed, newEmail, PASSWORD, type AuthProject } from '../helpers/user-auth.js';

const SITE = 'http://app.example.test';
const CALLBACK_PAGE = `${SITE}/auth/callback`;

describe('/api/userAuth social sign-ups and the sign-ups per address', () => {
  let providers: Awaited<ReturnType<typeof startOAuthProviders>>;
  let app: TestApp;
  let p: AuthProject;
  before(async () => {
    providers = await startOAuthProviders();
    app = await startTestApp('public', 'user_auth_social_signups', {
      ...providers.env,
      RATE_LIMIT_CLIENT_SHARE_PERCENT: '100',
      USER_AUTH_SIGNUPS_PER_HOUR: '2',
    });
    p = await authProject(app, { settings: { siteUrl: SITE } });
  });
  after(async () => {
    await app.close();
    await providers.close();
  });

  const google = (id: string, email: string) => {
    providers.google.profile = { id, email, emailVerified: true, name: 'Grace' };
    return socialLogin(app.client, 'google', p.publishableKey, CALLBACK_PAGE);
  };
  const users = () => app.deps.db.project(p.project.id).collection('users');

  it('counts a new social account against the address, beside password sign-ups, and never a log-in', async () => {
    // 1 of 2: a password sign-up.
    const first = await keyed(p).post('/api/userAuth/signup', { email: newEmail(), password: PASSWORD });
    expect(first.status, first.text).to.equal(201);

    // 2 of 2: a new account by Google.
    const grace = newEmail('grace');
    const made = await google('g-grace', grace);
    expect(made.searchParams.get('code'), made.toString()).to.be.a('string');

    // 3: another new account by Google from the same address is refused, and nothing is made.
    const third = newEmail('third');
    const refused = await google('g-third', third);
    expect(refused.searchParams.get('error'), refused.toString()).to.equal('too_many_signups');
    expect(refused.searchParams.get('error_description')).to.equal(
      'Too many sign-ups from this address; try again later',
    );
    expect(refused.searchParams.has('code')).to.equal(false);
    expect(await users().findOne({ email: third })).to.equal(null);

    // Logging in to the account made above is not a sign-up: it goes through.
    const again = await google('g-grace', grace);
    expect(again.searchParams.get('code'), again.toString()).to.be.a('string');
    expect(await users().countDocuments({ email: grace })).to.equal(1);

    // The budget is shared: a password sign-up is refused too.
    const fourth = await keyed(p).post('/api/userAuth/signup', { email: newEmail(), password: PASSWORD });
    expect(fourth.status, fourth.text).to.equal(429);
    expect(fourth.body.message).to.equal('Too many sign-ups from this address; try again later');
  });
});
