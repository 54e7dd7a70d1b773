// The operator invites developers over HTTP: the mail's sign-up link (read from the SMTP sink)
// creates the account at once on the chosen plan, works once and for a limited time, can be
// revoked; a bad address, a taken one and a non-operator are refused, and a flood is throttled.
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createDeveloper, createOperator } from '../helpers/fixtures.js';
import { mailbox, subjectOf, type SinkMessage } from '../helpers/mail.js';
import { signupTokenOf } from '../helpers/signup.js';
import { DEVELOPER_INVITES_PER_HOUR } from '../../src/services/developer-invitations.js';

const PASSWORD = 'a long enough password';
type Person = Awaited<ReturnType<typeof createDeveloper>>;
const address = (tag: string) => `${tag}-${randomBytes(5).toString('hex')}@example.test`;

/** The sign-up link of an invitation mail (quoted-printable undone): its token and address. */
function linkOf(message: SinkMessage) {
  const text = message.raw.replace(/=\r?\n/g, '').replace(/=3D/g, '=');
  const match = /(https?:\/\/[^\s"<>]+)\/signup\?invitation=([\w-]+)&(?:amp;)?email=([^\s"<>&]+)/.exec(text);
  if (!match) throw new Error(`no sign-up link in:\n${message.raw}`);
  return { base: match[1]!, token: match[2]!, email: decodeURIComponent(match[3]!) };
}

describe('operator: developer invitations', () => {
  let app: TestApp;
  let operator: Person;
  let bob: Person;
  /** Invitations this operator got a 202 for: the hourly throttle counts them. */
  let sent = 0;
  const as = (who: Person) => app.client.with({ cookie: who.cookie });
  const invite = async (email: string, plan?: string) => {
    const res = await as(operator).post('/api/admin/developer-invitations', {
      email,
      ...(plan ? { plan } : {}),
    });
    if (res.status === 202) sent++;
    return res;
  };
  /** Invites `email` and returns the link of the mail that arrives. */
  const inviteAndRead = async (email: string, plan?: string) => {
    const inbox = mailbox(email);
    await inbox.skipExisting();
    const res = await invite(email, plan);
    expect(res.status, res.text).to.equal(202);
    const message = await inbox.next();
    return { res, message, link: linkOf(message) };
  };
  const signUp = (token: string, password = PASSWORD, name?: string) =>
    app.client.post('/api/auth/signup/invitation', { token, password, ...(name ? { name } : {}) });

  before(async () => {
    app = await startTestApp('dashboard', 'admin_invites');
    operator = await createOperator(app.services);
    bob = await createDeveloper(app.services, address('bob'));
  });
  after(() => app?.close());

  it('mails a sign-up link; the invited person signs up through it on the chosen plan, once', async () => {
    const email = address('grace');
    const { res, message, link } = await inviteAndRead(email, 'pro');
    expect(res.body.message).to.equal(`Invitation sent to ${email}`);
    expect(res.body.data.invitation).to.include({ email, plan: 'pro' });
    expect(subjectOf(message)).to.equal('Invitation to create a developer account');
    expect(message.raw).to.include('operator@example.test');
    expect(link.base).to.equal(app.deps.config.dashboardUrl.replace(/\/$/, ''));
    expect(link.email, 'the address rides along for the form').to.equal(email);

    const pending = await as(operator).get('/api/admin/developer-invitations');
    expect(pending.status).to.equal(200);
    const row = pending.body.data.invitations.find((i: { email: string }) => i.email === email);
    expect(row).to.include({ plan: 'pro' });
    expect(Date.parse(row.expiresAt) - Date.now()).to.be.within(6.9 * 86_400_000, 7 * 86_400_000);
    const stored = await app.deps.db.platform.collection('developer_invitations').findOne({ email });
    expect(JSON.stringify(stored), 'only a hash of the token is stored').not.to.include(link.token);

    const created = await signUp(link.token, PASSWORD, 'Grace Hopper');
    expect(created.status, created.text).to.equal(201);
    expect(created.body.data.developer).to.include({
      email,
      plan: 'pro',
      name: 'Grace Hopper',
      isOperator: false,
    });
    const cookie = created.headers.get('set-cookie')!.split(';')[0]!;
    const me = await app.client.with({ cookie }).get('/api/user/me');
    expect(me.body.data.developer).to.include({ email, plan: 'pro' });
    const login = await app.client.post('/api/auth/login', { email, password: PASSWORD });
    expect(login.status, 'the chosen password works').to.equal(200);

    const again = await signUp(link.token);
    expect(again.status, 'a used link').to.equal(404);
    expect(again.body.code).to.equal('INVITATION_NOT_FOUND');
    expect(again.body.message).to.match(/^This invitation link is not valid: it was already used/);
    const after = await as(operator).get('/api/admin/developer-invitations');
    expect(after.body.data.invitations.map((i: { email: string }) => i.email)).not.to.include(email);
  });

  it('ends the invitation of an address that signs up without its link', async () => {
    const email = address('own-way');
    const { link } = await inviteAndRead(email);
    const inbox = mailbox(email);
    await inbox.skipExisting();
    const asked = await app.client.post('/api/auth/signup', { email, password: PASSWORD });
    expect(asked.status, asked.text).to.equal(201);
    const confirmed = await app.client.post('/api/auth/signup/confirm', {
      token: signupTokenOf(await inbox.next())!,
      password: PASSWORD,
    });
    expect(confirmed.status, confirmed.text).to.equal(201);
    const pending = await as(operator).get('/api/admin/developer-invitations');
    expect(pending.body.data.invitations.map((i: { email: string }) => i.email)).not.to.include(email);
    const late = await signUp(link.token);
    expect(late.status, 'the link of an ended invitation').to.equal(404);
    expect(late.body.code).to.equal('INVITATION_NOT_FOUND');
  });

  it('gives the default plan without a plan; a new invitation replaces the old link', async () => {
    const email = address('ada');
    const first = await inviteAndRead(email);
    expect(first.res.body.data.invitation.plan).to.equal(null);
    const second = await inviteAndRead(email);
    expect((await signUp(first.link.token)).status, 'the replaced link').to.equal(404);
    const created = await signUp(second.link.token);
    expect(created.status, created.text).to.equal(201);
    expect(created.body.data.developer.plan).to.equal(app.deps.config.plans.defaultPlan);
  });

  it('refuses an expired link (410) and a link whose address got an account meanwhile (409)', async () => {
    const late = address('late');
    const { link } = await inviteAndRead(late);
    await app.deps.db.platform
      .collection('developer_invitations')
      .updateOne({ email: late }, { $set: { expiresAt: new Date(Date.now() - 1000) } });
    const expired = await signUp(link.token);
    expect(expired.status).to.equal(410);
    expect(expired.body.code).to.equal('INVITATION_EXPIRED');
    expect(expired.body.message).to.match(/^This invitation expired/);

    const taken = address('taken');
    const other = await inviteAndRead(taken);
    await createDeveloper(app.services, taken);
    const conflict = await signUp(other.link.token);
    expect(conflict.status).to.equal(409);
    expect(conflict.body.code).to.equal('EMAIL_TAKEN');

    const short = await signUp('whatever', 'short');
    expect(short.status).to.equal(400);
    expect(short.body.details.map((d: { path: string }) => d.path)).to.include('body.password');
    const unknown = await signUp('no-such-token');
    expect(unknown.status).to.equal(404);
  });

  it('revokes a pending invitation: its link stops working', async () => {
    const email = address('revoked');
    const { res, link } = await inviteAndRead(email);
    const id = res.body.data.invitation.id as string;
    const revoked = await as(operator).delete(`/api/admin/developer-invitations/${id}`);
    expect(revoked.status).to.equal(200);
    expect(revoked.body.message).to.equal('Invitation revoked');
    expect((await signUp(link.token)).status).to.equal(404);
    const twice = await as(operator).delete(`/api/admin/developer-invitations/${id}`);
    expect(twice.status).to.equal(404);
    expect(twice.body.code).to.equal('INVITATION_NOT_FOUND');
    expect((await as(operator).delete('/api/admin/developer-invitations/nope')).status).to.equal(400);
  });

  it('names the problem: a bad address or plan is a 400, an address with an account a 409', async () => {
    const bad = await invite('not an address');
    expect(bad.status).to.equal(400);
    expect(bad.body.details.map((d: { path: string }) => d.path)).to.include('body.email');
    expect(bad.body.message).to.equal('Validation failed: email must be a valid email');
    const plan = await invite(address('plan'), 'platinum');
    expect(plan.status).to.equal(400);
    expect(plan.body).to.include({ code: 'UNKNOWN_PLAN' });
    expect(plan.body.message).to.match(/^Unknown plan "platinum": this installation's plans are free, pro/);
    const inbox = mailbox(bob.developer.email);
    const existing = await invite(bob.developer.email.toUpperCase());
    expect(existing.status).to.equal(409);
    expect(existing.body.code).to.equal('EMAIL_TAKEN');
    expect(existing.body.message).to.equal(
      `An account already uses ${bob.developer.email}: find it in the list of developers`,
    );
    await new Promise((r) => setTimeout(r, 300));
    expect(await inbox.all(), 'no mail to an existing account').to.deep.equal([]);
  });

  it('refuses each operation to another developer (403) and without a session (401)', async () => {
    const calls = [
      (c: typeof app.client) => c.post('/api/admin/developer-invitations', { email: address('x') }),
      (c: typeof app.client) => c.get('/api/admin/developer-invitations'),
      (c: typeof app.client) => c.delete('/api/admin/developer-invitations/65f1c2a4b7e8d9001234567c'),
    ];
    for (const call of calls) {
      const refused = await call(as(bob));
      expect(refused.status).to.equal(403);
      expect(refused.body.code).to.equal('OPERATOR_ONLY');
      expect((await call(app.client)).status).to.equal(401);
    }
  });

  it(`sends at most ${DEVELOPER_INVITES_PER_HOUR} invitations an hour per operator, then 429`, async () => {
    let refused;
    for (let i = 0; i < DEVELOPER_INVITES_PER_HOUR + 2 && !refused; i++) {
      const res = await invite(address('flood'));
      if (res.status === 429) refused = res;
      else expect(res.status, res.text).to.equal(202);
    }
    expect(sent, 'the 429 comes right after the hourly allowance').to.equal(DEVELOPER_INVITES_PER_HOUR);
    expect(refused!.headers.get('retry-after')).to.match(/^\d+$/);
    expect(refused!.body.message).to.match(/^At most 20 developer invitations an hour/);
  });
});
