// beforeSignUp and tokenClaims over HTTP on an HTTP hook (verified with `standardwebhooks`): a
// sign-up refused or given profile fields (validated again: no managed or protected field), and
// claims added under `app` at sign-up, log-in and refresh, at most 1 KiB, with the failure policy.
import { expect } from 'chai';
import jwt from 'jsonwebtoken';
import { startHookReceiver, type HookReceiver } from '../helpers/hook-receiver.js';
import { keyed, newEmail, PASSWORD, useAuthSuite, USER_FIELDS } from '../helpers/user-auth.js';

describe('functions: beforeSignUp and tokenClaims', () => {
  let hooks: HookReceiver;
  before(async () => (hooks = await startHookReceiver()));
  after(() => hooks?.close());
  const { app, p } = useAuthSuite('functions_auth_hooks', {
    env: () => ({ ALLOW_PRIVATE_HOSTS: 'true' }),
    project: { fields: [...USER_FIELDS, { name: 'role', type: 'String', protected: true }] },
  });
  const secret = () => app.client.with({ 'x-api-key': p.secretKey });
  const signUp = (extra: Record<string, unknown> = {}) =>
    keyed(p).post('/api/userAuth/signup', { email: newEmail(), password: PASSWORD, ...extra });

  async function register(name: string, type: string, extra: Record<string, unknown> = {}) {
    const res = await secret().post('/api/functions', {
      name,
      trigger: { type },
      runtime: { type: 'http', url: hooks.url(`/${name}`) },
      ...extra,
    });
    expect(res.status, res.text).to.equal(201);
    hooks.secret(`/${name}`, res.body.data.signingSecret);
    return res.body.data.function.id as string;
  }

  it('beforeSignUp refuses a sign-up or sets profile fields, never the password to the hook', async () => {
    await register('signup', 'beforeSignUp');
    hooks.answer('/signup', (event) =>
      event.email.endsWith('@blocked.test')
        ? { json: { refuse: { status: 403, code: 'DOMAIN', message: 'This domain may not sign up' } } }
        : { json: { fields: { bio: `welcome ${event.fields.name}`, plan: 'trial' } } },
    );
    const refused = await keyed(p).post('/api/userAuth/signup', {
      email: 'x@blocked.test',
      password: PASSWORD,
    });
    expect(refused.status).to.equal(403);
    expect(refused.body).to.include({ code: 'HOOK_DOMAIN', message: 'This domain may not sign up' });
    const ok = await signUp({ name: 'Ada' });
    expect(ok.status, ok.text).to.equal(201);
    expect(ok.body.data.user).to.include({ name: 'Ada', bio: 'welcome Ada', plan: 'trial' });
    const call = hooks.on('/signup').at(-1)!;
    expect(call.verified, call.verifyError).to.equal(true);
    expect(call.event).to.deep.include({
      trigger: 'beforeSignUp',
      provider: 'password',
      fields: { name: 'Ada' },
    });
    expect(JSON.stringify(hooks.on('/signup').map((c) => c.event))).not.to.include(PASSWORD);
    // A hook cannot set what the client may not: protected fields, the email, unknown fields.
    for (const [fields, message] of [
      [{ role: 'admin' }, /role/],
      [{ email: 'other@example.test' }, /email cannot be set here/],
      [{ nope: 1 }, /nope/],
    ] as [Record<string, unknown>, RegExp][]) {
      hooks.answer('/signup', { json: { fields } });
      const res = await signUp();
      expect(res.status, JSON.stringify(fields)).to.be.oneOf([400, 403]);
      expect(res.body.message).to.match(message);
    }
    await secret().delete('/api/functions/signup');
  });

  it('tokenClaims adds claims under app at sign-up, log-in and refresh; over 1 KiB is refused', async () => {
    await register('claims', 'tokenClaims');
    hooks.answer('/claims', (event) => ({ json: { claims: { tier: 'gold', reason: event.reason } } }));
    const email = newEmail();
    const created = await signUp({ email });
    const claimsOf = (token: string) => jwt.decode(token) as Record<string, any>;
    expect(claimsOf(created.body.data.accessToken).app).to.deep.equal({ tier: 'gold', reason: 'login' });
    const login = await keyed(p).post('/api/userAuth/login', { email, password: PASSWORD });
    expect(claimsOf(login.body.data.accessToken).app).to.deep.equal({ tier: 'gold', reason: 'login' });
    const refreshed = await keyed(p).post('/api/userAuth/refresh-token', {
      refreshToken: login.body.data.refreshToken,
    });
    expect(refreshed.status, refreshed.text).to.equal(200);
    expect(claimsOf(refreshed.body.data.accessToken).app).to.deep.equal({ tier: 'gold', reason: 'refresh' });
    // The token still works for the API.
    const me = await keyed(p)
      .with({ authorization: `Bearer ${refreshed.body.data.accessToken}` })
      .get('/api/userAuth/me');
    expect(me.status).to.equal(200);
    const event = hooks.on('/claims').at(-1)!.event;
    expect(event).to.deep.include({
      trigger: 'tokenClaims',
      reason: 'refresh',
      userId: login.body.data.user._id,
    });
    // 1 KiB at most: refused under closed (503), left out under open.
    hooks.answer('/claims', { json: { claims: { big: 'x'.repeat(1100) } } });
    const tooBig = await keyed(p).post('/api/userAuth/login', { email, password: PASSWORD });
    expect(tooBig.status).to.equal(503);
    expect(tooBig.body.message).to.match(/larger than 1024 bytes/);
    await secret().patch('/api/functions/claims', { failurePolicy: 'open' });
    const open = await keyed(p).post('/api/userAuth/login', { email, password: PASSWORD });
    expect(open.status, open.text).to.equal(200);
    expect(claimsOf(open.body.data.accessToken).app).to.equal(undefined);
    await secret().delete('/api/functions/claims');
    const none = await keyed(p).post('/api/userAuth/login', { email, password: PASSWORD });
    expect(claimsOf(none.body.data.accessToken).app).to.equal(undefined);
  });
});
