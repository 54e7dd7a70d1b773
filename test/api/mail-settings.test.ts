// The mail settings of the dashboard: templates (system read-only, custom CRUD on Pro, preview),
// a project's own SMTP server (Pro; restricted-host check; verified with a real connection;
// password never returned) and the usual 400/401/404 of every operation.
import { expect } from 'chai';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { mailbox, subjectOf } from '../helpers/mail.js';
import { startMailSuite, startOwnSmtp, type MailProject, type OwnSmtp } from './mail-shared.js';

describe('mail settings and templates (dashboard)', () => {
  let suite: Awaited<ReturnType<typeof startMailSuite>>;
  let privateHosts: TestApp;
  let free: MailProject;
  let pro: MailProject;
  let own: OwnSmtp;
  const base = (p: MailProject) => `/api/projects/${p.fx.project.id}/mail`;

  before(async () => {
    suite = await startMailSuite('mail_settings');
    // A second dashboard on the same platform database, run with ALLOW_PRIVATE_HOSTS, reaches the
    // test's own SMTP server on loopback.
    privateHosts = await startTestApp('dashboard', 'mail_settings', {
      PLATFORM_DB: suite.apps.dashboard.deps.config.platformDb,
      ALLOW_PRIVATE_HOSTS: 'true',
    });
    free = await suite.project('free');
    pro = await suite.project('pro');
    own = await startOwnSmtp();
  });
  after(async () => {
    await privateHosts?.close();
    await suite?.apps.close();
    await own?.close();
  });

  it('lists the system templates on every plan, and says whether custom ones are allowed', async () => {
    const res = await free.dash.get(`${base(free)}/templates`);
    expect(res.status).to.equal(200);
    expect(res.body.data.customTemplatesAllowed).to.equal(false);
    expect(res.body.data.templates.map((t: any) => [t.name, t.system])).to.deep.equal([
      ['email-verification', true],
      ['password-reset', true],
    ]);
    const one = await free.dash.get(`${base(free)}/templates/password-reset`);
    expect(one.status).to.equal(200);
    expect(one.body.data.template.subject).to.equal('Your password reset code');
  });

  it('custom templates: create, conflict, read, replace, preview, delete (Pro)', async () => {
    const url = `${base(pro)}/templates`;
    const created = await pro.dash.post(url, {
      name: 'order-shipped',
      subject: 'Order {{order.id}}',
      html: '<p>{{name}}</p>',
    });
    expect(created.status).to.equal(201);
    expect(created.body.data.template).to.include({ name: 'order-shipped', system: false, text: null });
    expect((await pro.dash.post(url, { name: 'order-shipped', subject: 's', text: 't' })).status).to.equal(
      409,
    );
    const reserved = await pro.dash.post(url, { name: 'password-reset', subject: 's', text: 't' });
    expect(reserved.status).to.equal(409);
    const empty = await pro.dash.post(url, { name: 'empty', subject: 's' });
    expect(empty.status).to.equal(400);
    expect(empty.body.message).to.equal('A template needs text or html (or both)');
    expect((await pro.dash.post(url, { name: 'Bad Name', subject: 's', text: 't' })).status).to.equal(400);
    // Within its own bounds, a template's body can still pass BODY_LIMIT_BYTES: a JSON 413.
    const huge = await pro.dash.post(url, { name: 'huge', subject: 's', html: '\u0001'.repeat(400_000) });
    expect(huge.status).to.equal(413);

    const list = await pro.dash.get(url);
    expect(list.body.data.customTemplatesAllowed).to.equal(true);
    expect(list.body.data.templates.map((t: any) => t.name)).to.include('order-shipped');

    const replaced = await pro.dash.put(`${url}/order-shipped`, {
      subject: 'Shipped: {{order.id}}',
      text: 'Hi {{name}}',
    });
    expect(replaced.status).to.equal(200);
    const hugeReplace = await pro.dash.put(`${url}/order-shipped`, {
      subject: 's',
      html: '\u0001'.repeat(400_000),
    });
    expect(hugeReplace.status).to.equal(413);
    expect(replaced.body.data.template).to.include({
      subject: 'Shipped: {{order.id}}',
      text: 'Hi {{name}}',
      html: null,
    });
    expect((await pro.dash.put(`${url}/order-shipped`, { subject: 's' })).status).to.equal(400);
    expect((await pro.dash.put(`${url}/nope`, { subject: 's', text: 't' })).status).to.equal(404);
    const system = await pro.dash.put(`${url}/password-reset`, { subject: 's', text: 't' });
    expect(system.status).to.equal(403);
    expect(system.body.code).to.equal('SYSTEM_TEMPLATE');

    const preview = await pro.dash.post(`${url}/order-shipped/preview`, {
      variables: { order: { id: 'A-17' }, name: '<Ada>' },
    });
    expect(preview.status).to.equal(200);
    expect(preview.body.data).to.deep.include({ subject: 'Shipped: A-17', text: 'Hi <Ada>', html: null });
    const systemPreview = await free.dash.post(`${base(free)}/templates/email-verification/preview`, {
      variables: { code: '111222', appName: 'A&B' },
    });
    expect(systemPreview.body.data.html).to.include('A&amp;B').and.include('111222');
    expect((await pro.dash.post(`${url}/nope/preview`, {})).status).to.equal(404);
    expect((await pro.dash.post(`${url}/order-shipped/preview`, { variables: 'x' })).status).to.equal(400);

    expect((await pro.dash.delete(`${url}/password-reset`)).status).to.equal(403);
    expect((await pro.dash.delete(`${url}/order-shipped`)).status).to.equal(200);
    expect((await pro.dash.delete(`${url}/order-shipped`)).status).to.equal(404);
    expect((await pro.dash.get(`${url}/order-shipped`)).status).to.equal(404);
  });

  it('sends a template to the caller’s own address as a test (admins), counted as a send', async () => {
    const box = mailbox(free.fx.developer.email);
    const url = `${base(free)}/templates/password-reset/test`;
    const before = (await free.dash.get(base(free))).body.data.usage.used as number;
    const sent = await free.dash.post(url, { variables: { appName: 'Shop', code: '123456' } });
    expect(sent.status, sent.text).to.equal(200);
    expect(sent.body.data.template).to.include({ name: 'password-reset', system: true });
    const message = await box.next();
    expect(subjectOf(message)).to.equal('Your password reset code');
    expect((await free.dash.get(base(free))).body.data.usage.used).to.equal(before + 1);
    expect((await free.dash.post(`${base(free)}/templates/nope/test`, {})).status).to.equal(404);
    expect((await free.dash.post(url, { variables: 'x' })).status).to.equal(400);
    expect((await suite.apps.dashboard.client.post(url, {})).status).to.equal(401);
  });

  it('custom templates are a Pro feature: 403 on Free naming the plan', async () => {
    const res = await free.dash.post(`${base(free)}/templates`, { name: 'x', subject: 's', text: 't' });
    expect(res.status).to.equal(403);
    expect(res.body.message).to.equal('Custom mail templates are a Pro feature. Please upgrade to continue.');
    const put = await free.dash.put(`${base(free)}/templates/x`, { subject: 's', text: 't' });
    expect(put.status).to.equal(403);
  });

  it('own SMTP: Pro only, restricted hosts refused, verified with a real login, password never returned', async () => {
    const input = {
      host: '127.0.0.1',
      port: own.port,
      username: own.user,
      password: own.pass,
      from: 'app@example.test',
    };
    const onFree = await free.dash.put(`${base(free)}/smtp`, input);
    expect(onFree.status).to.equal(403);
    expect(onFree.body.message).to.equal(
      'Bring Your Own Mail (SMTP) is a Pro feature. Please upgrade to continue.',
    );

    for (const host of ['127.0.0.1', 'localhost', '10.1.2.3', '169.254.169.254', '[::1]']) {
      const res = await pro.dash.put(`${base(pro)}/smtp`, { ...input, host });
      expect(res.status, host).to.equal(400);
      expect(res.body.code, host).to.equal('RESTRICTED_HOST');
    }

    const priv = privateHosts.client.with({ cookie: pro.fx.cookie });
    const wrong = await priv.put(`${base(pro)}/smtp`, { ...input, password: 'wrong' });
    expect(wrong.status).to.equal(400);
    expect(wrong.body.code).to.equal('SMTP_CHECK_FAILED');
    expect((await pro.dash.get(base(pro))).body.data.smtp).to.equal(null);

    const saved = await priv.put(`${base(pro)}/smtp`, input);
    expect(saved.status).to.equal(200);
    expect(saved.text).not.to.include(own.pass);
    const stored = await suite.apps.dashboard.deps.db.platform.collection('mail_settings').findOne({});
    expect(JSON.stringify(stored)).not.to.include(own.pass);
    const read = await pro.dash.get(base(pro));
    expect(read.status).to.equal(200);
    expect(read.body.data).to.deep.include({
      ownSmtpAllowed: true,
      customTemplatesAllowed: true,
      delivery: 'smtp',
    });
    expect(read.body.data.smtp).to.include({ host: '127.0.0.1', username: own.user, hasPassword: true });
    expect(read.text).not.to.include(own.pass);

    const removed = await pro.dash.delete(`${base(pro)}/smtp`);
    expect(removed.status).to.equal(200);
    expect(removed.body.data.smtp).to.equal(null);
  });

  it('answers 400 for a malformed project id, 401 without a session and 404 for another project', async () => {
    const stranger = await suite.project('pro');
    const calls: [string, string, unknown?][] = [
      ['GET', ''],
      [
        'PUT',
        '/smtp',
        { host: 'smtp.example.com', port: 587, username: 'u', password: 'p', from: 'a@b.test' },
      ],
      ['DELETE', '/smtp'],
      ['GET', '/templates'],
      ['POST', '/templates', { name: 'n', subject: 's', text: 't' }],
      ['GET', '/templates/password-reset'],
      ['PUT', '/templates/n', { subject: 's', text: 't' }],
      ['DELETE', '/templates/n'],
      ['POST', '/templates/password-reset/preview', {}],
    ];
    for (const [method, path, body] of calls) {
      const bad = await stranger.dash.request(method, `/api/projects/not-an-id/mail${path}`, { body });
      expect(bad.status, `${method} ${path}`).to.equal(400);
      const anonymous = await suite.apps.dashboard.client.request(method, `${base(pro)}${path}`, { body });
      expect(anonymous.status, `${method} ${path}`).to.equal(401);
      const other = await stranger.dash.request(method, `${base(pro)}${path}`, { body });
      expect(other.status, `${method} ${path}`).to.equal(404);
    }
  });
});
