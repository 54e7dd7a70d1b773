// The code mails the platform sends for a project (issue 29 #9): outside every project's mail
// quota, so capped per project and per recipient address and hour (a capped mail is not sent,
// and the answer stays the same); the subject is fixed and the project's name, which anyone who
// signs up chooses, reaches the body only sanitised and shortened.
import { expect } from 'chai';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { codeOf, mailbox, subjectOf } from '../helpers/mail.js';
import { mimeParts } from '../helpers/mime.js';
import { authProject, keyed, newEmail, signup, type AuthProject } from '../helpers/user-auth.js';
import { mailAppName } from '../../src/mail/templates.js';

const settle = () => new Promise((resolve) => setTimeout(resolve, 300));

describe('platform code mails', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp('public', 'mail_system', {
      USER_AUTH_SIGNUPS_PER_HOUR: '10000',
      SYSTEM_MAIL_PER_PROJECT_PER_HOUR: '3',
      SYSTEM_MAIL_PER_ADDRESS_PER_HOUR: '2',
    });
  });
  after(() => app.close());

  const project = async (name?: string): Promise<AuthProject> => {
    const p = await authProject(app);
    if (name !== undefined) {
      p.project = await app.services.projects.update(p.project, { name });
    }
    return p;
  };

  it('has a fixed subject and shows the project name in the body without links, at most 40 characters', async () => {
    const p = await project(
      'Your account is locked: go to https://evil.example/login?x=1 now and sign in again',
    );
    const email = newEmail();
    const inbox = mailbox(email);
    await signup(p, {}, email);
    const mail = await inbox.next();
    expect(subjectOf(mail)).to.equal('Your verification code');
    expect(mail.raw).not.to.include('evil.example');
    expect(mail.raw).not.to.include('https:');
    const shown = 'Your account is locked go to https evil…';
    expect(mailAppName(p.project.name)).to.equal(shown);
    expect(mimeParts(mail.raw).text).to.include(`for ${shown}.`);
    expect(codeOf(mail)).to.match(/^\d{6}$/);
  });

  it('reduces names to letters, digits and a few marks', () => {
    expect(mailAppName('Shop & Co')).to.equal('Shop & Co');
    expect(mailAppName('Café Zoë — 東京')).to.equal('Café Zoë 東京');
    expect(mailAppName('paypal.com\u202e\n<b>')).to.equal('paypal com b');
    expect(mailAppName('...')).to.equal('your app');
  });

  it('sends at most SYSTEM_MAIL_PER_ADDRESS_PER_HOUR code mails to one address, across projects', async () => {
    const email = newEmail('victim');
    const inbox = mailbox(email);
    const [a, b, c] = [await project(), await project(), await project()];
    await signup(a, {}, email);
    await signup(b, {}, email);
    await inbox.next();
    await inbox.next();
    // The third project's sign-up and a reset in the first answer as always, and send nothing.
    await signup(c, {}, email);
    const reset = await keyed(a).post('/api/userAuth/request-password-reset', { email });
    expect(reset.status).to.equal(200);
    await settle();
    expect(await inbox.all()).to.have.length(2);
  });

  it('sends at most SYSTEM_MAIL_PER_PROJECT_PER_HOUR code mails for one project', async () => {
    const p = await project();
    const addresses = [newEmail(), newEmail(), newEmail(), newEmail()];
    for (const email of addresses) await signup(p, {}, email);
    await settle();
    const received = await Promise.all(addresses.map(async (email) => (await mailbox(email).all()).length));
    expect(received).to.deep.equal([1, 1, 1, 0]);
    // The answers did not change: a reset for an unknown address and a known one look alike.
    const known = await keyed(p).post('/api/userAuth/request-password-reset', { email: addresses[3] });
    const unknown = await keyed(p).post('/api/userAuth/request-password-reset', { email: newEmail() });
    expect(known.status).to.equal(200);
    expect(unknown.body).to.deep.equal(known.body);
  });
});
