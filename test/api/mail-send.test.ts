// The public mail API over the real stack: every message is read back from the SMTP sink (or the
// project's own SMTP server started by the test). Content forms, template rendering and escaping,
// the bad shapes, the monthly quota (its edge, concurrency and the refund of a failed send), the
// Pro gates set by the operator, and a project's own SMTP server.
import { expect } from 'chai';
import { mailbox, subjectOf } from '../helpers/mail.js';
import { decodeHeader, mimeParts } from '../helpers/mime.js';
import {
  startMailSuite,
  startOwnSmtp,
  uniqueAddress,
  type MailProject,
  type OwnSmtp,
} from './mail-shared.js';

describe('mail API: POST /api/mail/send', () => {
  let suite: Awaited<ReturnType<typeof startMailSuite>>;
  let free: MailProject;
  let pro: MailProject;
  let own: OwnSmtp;

  before(async () => {
    // ALLOW_PRIVATE_HOSTS: the project's own SMTP server of these tests listens on 127.0.0.1.
    suite = await startMailSuite('mail_send', { ALLOW_PRIVATE_HOSTS: 'true' });
    free = await suite.project('free');
    pro = await suite.project('pro');
    own = await startOwnSmtp();
  });
  after(async () => {
    await suite?.apps.close();
    await own?.close();
  });

  it('sends explicit content over SMTP and reports the monthly usage', async () => {
    const to = uniqueAddress('plain');
    const box = mailbox(to);
    const res = await free.secret.post('/api/mail/send', {
      to,
      subject: 'Plain hello',
      text: 'Hello in text',
      html: '<p>Hello in <b>html</b></p>',
    });
    expect(res.status).to.equal(200);
    expect(res.body.data).to.include({ monthlyUsage: 1, monthlyLimit: 100, template: null });
    expect(res.body.data.id).to.match(/^[0-9a-f]{24}$/);
    const mail = await box.next();
    expect(subjectOf(mail)).to.equal('Plain hello');
    const parts = mimeParts(mail.raw);
    expect(parts.text).to.equal('Hello in text');
    expect(parts.html).to.equal('<p>Hello in <b>html</b></p>');
  });

  it('needs the secret key: 401 without a key, 403 with the publishable key', async () => {
    const body = { to: uniqueAddress('nokey'), subject: 's', text: 't' };
    const none = await suite.apps.public.client.post('/api/mail/send', body);
    expect(none.status).to.equal(401);
    const publishable = await free.publishable.post('/api/mail/send', body);
    expect(publishable.status).to.equal(403);
    expect(publishable.body.code).to.equal('SECRET_KEY_REQUIRED');
  });

  it('answers 413 to content within the documented lengths whose bytes pass the body limit', async () => {
    // '€' is three bytes in UTF-8: 300 000 of them in `html` and 200 000 in `text` are within
    // the documented lengths (characters) and make a body of 1.5 MB, over the 1 MiB default.
    const res = await free.secret.post('/api/mail/send', {
      to: uniqueAddress('huge'),
      subject: 'Too big',
      text: '€'.repeat(200_000),
      html: '€'.repeat(300_000),
    });
    expect(res.status).to.equal(413);
    expect(res.body.code).to.equal('PAYLOAD_TOO_LARGE');
  });

  it('answers a clear 400 for each bad shape, and sends nothing', async () => {
    const to = uniqueAddress('bad');
    const cases: [unknown, RegExp][] = [
      [
        { to, subject: 's', templateName: 'password-reset', templateId: 'password-reset' },
        /either templateName or templateId/,
      ],
      [{ to, subject: 'no content' }, /needs content/],
      [{ to, text: 'no subject' }, /subject is required/],
      [{ to, templateName: 'no-such-template' }, /Unknown mail template: templateName "no-such-template"/],
      [{ to, templateId: '65f1c2a4b7e8d90012345678' }, /Unknown mail template: templateId/],
      [{ to: [to, uniqueAddress('second')], subject: 's', text: 't' }, /to must be a string/],
      [{ to: 'not an address', subject: 's', text: 't' }, /to must be a valid email/],
      [{ subject: 's', text: 't' }, /to is required/],
    ];
    for (const [body, message] of cases) {
      const res = await free.secret.post('/api/mail/send', body);
      expect(res.status, JSON.stringify(body)).to.equal(400);
      expect(res.body.message).to.match(message);
    }
    await new Promise((r) => setTimeout(r, 200));
    expect(await mailbox(to).all()).to.have.length(0);
  });

  it('renders a system template by name: {{var}} escaped in html, raw in text; a fixed subject', async () => {
    const to = uniqueAddress('system');
    const box = mailbox(to);
    const appName = `<b>Shop & "Co"</b>`;
    const res = await free.secret.post('/api/mail/send', {
      to,
      templateName: 'email-verification',
      variables: { code: '123456', appName, validMinutes: 15 },
    });
    expect(res.status).to.equal(200);
    expect(res.body.data.template).to.deep.equal({
      id: 'email-verification',
      name: 'email-verification',
      system: true,
    });
    const mail = await box.next();
    const parts = mimeParts(mail.raw);
    expect(parts.text).to.include(`for ${appName}.`).and.include('Your code is 123456');
    expect(parts.html).to.include('for &lt;b&gt;Shop &amp; &quot;Co&quot;&lt;/b&gt;.');
    expect(parts.html).not.to.include('<b>Shop');
    expect(decodeHeader(mimeParts(mail.raw).headers.subject!)).to.equal('Your verification code');
  });

  it('renders a system template by id; explicit subject overrides the template', async () => {
    const to = uniqueAddress('byid');
    const box = mailbox(to);
    const res = await free.secret.post('/api/mail/send', {
      to,
      templateId: 'password-reset',
      subject: 'Reset for {{appName}}',
      variables: { code: '654321', appName: 'Shop' },
    });
    expect(res.status).to.equal(200);
    expect(res.body.data.template.name).to.equal('password-reset');
    const mail = await box.next();
    expect(subjectOf(mail)).to.equal('Reset for Shop');
    expect(mimeParts(mail.raw).text).to.include('Your code is 654321');
  });

  it('custom templates (Pro): by name and id, {{{raw}}}, dot paths, missing variables empty', async () => {
    const created = await pro.dash.post(`/api/projects/${pro.fx.project.id}/mail/templates`, {
      name: 'welcome',
      subject: 'Welcome {{user.name}}',
      text: 'Hi {{user.name}}, plan {{plan}}, missing [{{nope.deeper}}]',
      html: '<p>Hi {{user.name}}</p>{{{footer}}}<i>{{footer}}</i>',
    });
    expect(created.status).to.equal(201);
    const variables = { user: { name: 'Ada <3' }, plan: 'pro', footer: '<hr>' };
    const to = uniqueAddress('custom');
    const box = mailbox(to);
    const byName = await pro.secret.post('/api/mail/send', { to, templateName: 'welcome', variables });
    expect(byName.status).to.equal(200);
    expect(byName.body.data.template).to.deep.equal({
      id: created.body.data.template.id,
      name: 'welcome',
      system: false,
    });
    const mail = await box.next();
    expect(subjectOf(mail)).to.equal('Welcome Ada <3');
    const parts = mimeParts(mail.raw);
    expect(parts.text).to.equal('Hi Ada <3, plan pro, missing []');
    expect(parts.html).to.equal('<p>Hi Ada &lt;3</p><hr><i>&lt;hr&gt;</i>');

    const byId = await pro.secret.post('/api/mail/send', {
      to,
      templateId: created.body.data.template.id,
      text: 'explicit text wins',
      variables,
    });
    expect(byId.status).to.equal(200);
    const second = mimeParts((await box.next()).raw);
    expect(second.text).to.equal('explicit text wins');
    expect(second.html).to.equal('<p>Hi Ada &lt;3</p><hr><i>&lt;hr&gt;</i>');
  });

  it('refuses custom templates on Free (403 naming the plan), also after a downgrade', async () => {
    const created = await free.dash.post(`/api/projects/${free.fx.project.id}/mail/templates`, {
      name: 'promo',
      subject: 'Promo',
      text: 'Buy',
    });
    expect(created.status).to.equal(403);
    expect(created.body.message).to.equal(
      'Custom mail templates are a Pro feature. Please upgrade to continue.',
    );

    const later = await suite.project('pro');
    expect(
      (
        await later.dash.post(`/api/projects/${later.fx.project.id}/mail/templates`, {
          name: 'promo',
          subject: 'Promo',
          text: 'Buy',
        })
      ).status,
    ).to.equal(201);
    await suite.setPlan(later.fx, 'free');
    const res = await later.secret.post('/api/mail/send', {
      to: uniqueAddress('down'),
      templateName: 'promo',
    });
    expect(res.status).to.equal(403);
    expect(res.body.code).to.equal('PRO_FEATURE');
    expect(res.body.message).to.match(/Pro feature/);
  });

  it('counts per project and month: the last slot passes, the next is a 429 that says so', async () => {
    const p = await suite.project('free');
    await suite.setLimits(p.fx, { mailPerMonth: 2 });
    const to = uniqueAddress('quota');
    const send = () => p.secret.post('/api/mail/send', { to, subject: 'q', text: 'q' });
    expect((await send()).body.data).to.include({ monthlyUsage: 1, monthlyLimit: 2 });
    expect((await send()).body.data).to.include({ monthlyUsage: 2, monthlyLimit: 2 });
    const over = await send();
    expect(over.status).to.equal(429);
    expect(over.body.code).to.equal('MAIL_QUOTA_EXCEEDED');
    expect(over.body.message).to.match(
      /Monthly mail limit reached: this project may send 2 messages per month/,
    );
    expect(Number(over.headers.get('retry-after'))).to.be.greaterThan(0);
    const settings = await p.dash.get(`/api/projects/${p.fx.project.id}/mail`);
    expect(settings.body.data.usage).to.include({ used: 2, limit: 2 });
    expect(settings.body.data.usage.month).to.equal(new Date().toISOString().slice(0, 7));
    expect(await mailbox(to).all()).to.have.length(2);
  });

  it('never passes the limit under concurrent sends', async () => {
    const p = await suite.project('free');
    await suite.setLimits(p.fx, { mailPerMonth: 3 });
    const to = uniqueAddress('race');
    const results = await Promise.all(
      Array.from({ length: 8 }, () => p.secret.post('/api/mail/send', { to, subject: 'r', text: 'r' })),
    );
    expect(results.filter((r) => r.status === 200)).to.have.length(3);
    expect(results.filter((r) => r.status === 429)).to.have.length(5);
    expect(
      results
        .filter((r) => r.status === 200)
        .map((r) => r.body.data.monthlyUsage)
        .sort(),
    ).to.deep.equal([1, 2, 3]);
  });

  it("sends through the project's own SMTP server (Pro) and refunds the slot of a refused message", async () => {
    const p = await suite.project('pro');
    await suite.setLimits(p.fx, { mailPerMonth: 1 });
    const saved = await p.dash.put(`/api/projects/${p.fx.project.id}/mail/smtp`, {
      host: '127.0.0.1',
      port: own.port,
      username: own.user,
      password: own.pass,
      from: 'Shop <no-reply@shop.example.test>',
    });
    expect(saved.status).to.equal(200);
    expect(saved.body.data.smtp).to.include({
      host: '127.0.0.1',
      port: own.port,
      secure: false,
      hasPassword: true,
    });
    expect(saved.text).not.to.include(own.pass);

    const refused = await p.secret.post('/api/mail/send', {
      to: uniqueAddress('reject'),
      subject: 's',
      text: 't',
    });
    expect(refused.status).to.equal(502);
    expect(refused.body.code).to.equal('MAIL_SEND_FAILED');
    expect(refused.body.message).to.match(/Mailbox unavailable/);
    const usage = await p.dash.get(`/api/projects/${p.fx.project.id}/mail`);
    expect(usage.body.data.usage.used).to.equal(0);

    const to = uniqueAddress('own');
    const sent = await p.secret.post('/api/mail/send', { to, subject: 'Via own server', text: 'hello' });
    expect(sent.status).to.equal(200);
    expect(sent.body.data.monthlyUsage).to.equal(1);
    const received = own.messages.find((m) => m.to.includes(to));
    expect(received, 'the own server got it').not.to.equal(undefined);
    expect(received!.raw).to.match(/^From: Shop <no-reply@shop\.example\.test>/m);
    expect(await mailbox(to).all(), 'the platform sink did not').to.have.length(0);
  });
});
