// beforeSignUp on a social sign-up (Google, the OpenID Connect mock): the hook refuses (the app
// gets error=signup_refused, no account) or sets profile fields, checked like a client's own.
import { expect } from 'chai';
import { socialLogin, startOAuthProviders } from '../helpers/oauth.js';
import { startHookReceiver, type HookReceiver } from '../helpers/hook-receiver.js';
import { newEmail, useAuthSuite, USER_FIELDS } from '../helpers/user-auth.js';

const SITE = 'http://app.example.test';

describe('functions: beforeSignUp on social sign-ups', () => {
  let providers: Awaited<ReturnType<typeof startOAuthProviders>>;
  let hooks: HookReceiver;
  before(async () => {
    providers = await startOAuthProviders();
    hooks = await startHookReceiver();
  });
  const { app, p } = useAuthSuite('functions_social_signup', {
    env: () => ({ ...providers.env, ALLOW_PRIVATE_HOSTS: 'true' }),
    project: { settings: { siteUrl: SITE }, fields: USER_FIELDS },
  });
  after(async () => {
    await providers.close();
    await hooks.close();
  });

  const loginWithGoogle = () => socialLogin(app.client, 'google', p.publishableKey, `${SITE}/auth/callback`);

  it('refuses a social sign-up, or sets checked profile fields on it', async () => {
    const res = await app.client.with({ 'x-api-key': p.secretKey }).post('/api/functions', {
      name: 'social',
      trigger: { type: 'beforeSignUp' },
      runtime: { type: 'http', url: hooks.url('/social') },
    });
    expect(res.status, res.text).to.equal(201);
    hooks.secret('/social', res.body.data.signingSecret);

    const refusedEmail = newEmail('refused');
    hooks.answer('/social', {
      json: { refuse: { status: 403, code: 'CLOSED', message: 'Sign-ups are closed' } },
    });
    providers.google.profile = { id: 'g-refused', email: refusedEmail, emailVerified: true, name: 'Ref' };
    const refused = await loginWithGoogle();
    expect(refused.searchParams.get('error')).to.equal('signup_refused');
    expect(refused.searchParams.has('code')).to.equal(false);
    const users = app.deps.db.project(p.project.id).collection('users');
    expect(await users.findOne({ email: refusedEmail })).to.equal(null);
    const call = hooks.on('/social').at(-1)!;
    expect(call.verified, call.verifyError).to.equal(true);
    expect(call.event).to.deep.include({ trigger: 'beforeSignUp', provider: 'google', email: refusedEmail });

    // Fields the hook sets go through the checks of a client's (checkedHookFields) and the schema.
    hooks.answer('/social', { json: { fields: { plan: 'social' } } });
    const email = newEmail('social');
    providers.google.profile = { id: 'g-ok', email, emailVerified: true, name: 'Grace' };
    const landing = await loginWithGoogle();
    expect(landing.searchParams.get('code'), landing.toString()).to.be.a('string');
    expect(await users.findOne({ email })).to.include({ plan: 'social', name: 'Grace' });
  });
});
