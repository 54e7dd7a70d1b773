import { expect } from 'chai';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startTestApp } from '../helpers/app.js';
import { codeOf, mailbox, subjectOf } from '../helpers/mail.js';
import { authProject, keyed, newEmail, PASSWORD, signup, useAuthSuite } from '../helpers/user-auth.js';
import { sha256 } from '../../src/lib/secrets.js';

const wrongCode = (code: string) => String((Number(code) + 1) % 1_000_000).padStart(6, '0');

describe('/api/userAuth codes by mail', () => {
  const { app, p } = useAuthSuite('user_auth_codes');

  const verify = (email: string, otp: string) => keyed(p).post('/api/userAuth/verify-email', { email, otp });
  const reset = (email: string, otp: string, newPassword = 'a brand new passphrase') =>
    keyed(p).post('/api/userAuth/reset-password', { email, otp, newPassword });

  describe('email verification', () => {
    it('mails a code over SMTP at sign-up; the code verifies the address', async () => {
      const email = newEmail();
      const inbox = mailbox(email);
      await signup(p, {}, email);
      const mail = await inbox.next();
      expect(mail.to).to.deep.equal([email]);
      expect(mail.from).to.equal(app.deps.config.mailFrom);
      expect(subjectOf(mail)).to.include('verification code');
      const res = await verify(email.toUpperCase(), codeOf(mail));
      expect(res.status).to.equal(200);
      expect(res.body.data).to.deep.equal({ email, emailVerified: true });
      const login = await keyed(p).post('/api/userAuth/login', { email, password: PASSWORD });
      expect(login.body.data.user.emailVerified).to.equal(true);
    });

    it('accepts a code once only', async () => {
      const email = newEmail();
      const inbox = mailbox(email);
      await signup(p, {}, email);
      const code = codeOf(await inbox.next());
      expect((await verify(email, code)).status).to.equal(200);
      const again = await verify(email, code);
      expect(again.status).to.equal(400);
      expect(again.body.code).to.equal('INVALID_CODE');
    });

    it('fails the sixth attempt even with the right code', async () => {
      const email = newEmail();
      const inbox = mailbox(email);
      await signup(p, {}, email);
      const code = codeOf(await inbox.next());
      for (let i = 0; i < 5; i++) {
        const res = await verify(email, wrongCode(code));
        expect(res.status).to.equal(400);
        expect(res.body.code).to.equal('INVALID_CODE');
      }
      const sixth = await verify(email, code);
      expect(sixth.status).to.equal(400);
      expect(sixth.body.code).to.equal('INVALID_CODE');
    });

    it('refuses an expired code', async () => {
      const email = newEmail();
      const inbox = mailbox(email);
      await signup(p, {}, email);
      const code = codeOf(await inbox.next());
      await app.deps.db.platform
        .collection('user_auth_codes')
        .updateOne({ email, projectId: p.project.id }, { $set: { expiresAt: new Date(Date.now() - 1000) } });
      expect((await verify(email, code)).status).to.equal(400);
    });

    it('stores codes only as a keyed hash', async () => {
      const email = newEmail();
      const inbox = mailbox(email);
      await signup(p, {}, email);
      const code = codeOf(await inbox.next());
      const stored = await app.deps.db.platform
        .collection('user_auth_codes')
        .findOne({ email, projectId: p.project.id });
      expect(JSON.stringify(stored)).not.to.include(code);
      expect(stored!.hash).to.match(/^[\w-]{43}$/);
    });

    it('answers 400 for a malformed code and for an unknown email, alike', async () => {
      expect((await verify(newEmail(), '12345')).status).to.equal(400);
      const unknown = await verify(newEmail(), '123456');
      expect(unknown.status).to.equal(400);
      expect(unknown.body.code).to.equal('INVALID_CODE');
    });

    it('answers 429 after twenty wrong codes from one IP', async () => {
      const q = await authProject(app);
      for (let i = 0; i < 20; i++) {
        const res = await keyed(q).post('/api/userAuth/verify-email', { email: newEmail(), otp: '000000' });
        expect(res.status).to.equal(400);
      }
      const res = await keyed(q).post('/api/userAuth/verify-email', { email: newEmail(), otp: '000000' });
      expect(res.status).to.equal(429);
    });
  });

  describe('POST /api/userAuth/resend-verification-otp', () => {
    it('mails a new code that replaces the old one, once a minute', async () => {
      const email = newEmail();
      const inbox = mailbox(email);
      await signup(p, {}, email);
      const first = codeOf(await inbox.next());
      // Sign-up has just sent one: the cooldown applies.
      const tooSoon = await keyed(p).post('/api/userAuth/resend-verification-otp', { email });
      expect(tooSoon.status).to.equal(429);
      expect(tooSoon.headers.get('retry-after')).to.equal('60');
      await app.deps.cache.del(`ua:resend-verify:${p.project.id}:e:${sha256(email)}`); // skip the minute
      const res = await keyed(p).post('/api/userAuth/resend-verification-otp', { email });
      expect(res.status).to.equal(200);
      const second = codeOf(await inbox.next());
      if (second !== first) expect((await verify(email, first)).status).to.equal(400);
      expect((await verify(email, second)).status).to.equal(200);
    });

    it('answers the same for an unknown email and sends nothing', async () => {
      const email = newEmail();
      const res = await keyed(p).post('/api/userAuth/resend-verification-otp', { email });
      expect(res.status).to.equal(200);
      expect(res.body.message).to.equal('If the email is registered, a code has been sent to it');
      await new Promise((r) => setTimeout(r, 300));
      expect(await mailbox(email).all()).to.have.length(0);
    });

    it('answers 400 for a malformed email', async () => {
      expect(
        (await keyed(p).post('/api/userAuth/resend-verification-otp', { email: 'nope' })).status,
      ).to.equal(400);
    });
  });

  describe('password reset', () => {
    it('mails a code; the reset sets the password, verifies the email and ends every session', async () => {
      const { email, refreshToken } = await signup(p);
      const inbox = mailbox(email);
      await inbox.next(); // the verification code of sign-up
      const ask = await keyed(p).post('/api/userAuth/request-password-reset', { email: email.toUpperCase() });
      expect(ask.status).to.equal(200);
      const mail = await inbox.next();
      expect(subjectOf(mail)).to.include('password reset code');
      const res = await reset(email, codeOf(mail));
      expect(res.status).to.equal(200);
      expect((await keyed(p).post('/api/userAuth/refresh-token', { refreshToken })).status).to.equal(401);
      expect((await keyed(p).post('/api/userAuth/login', { email, password: PASSWORD })).status).to.equal(
        401,
      );
      const login = await keyed(p).post('/api/userAuth/login', { email, password: 'a brand new passphrase' });
      expect(login.status).to.equal(200);
      expect(login.body.data.user.emailVerified).to.equal(true);
    });

    it('fails the sixth attempt even with the right code', async () => {
      const { email } = await signup(p);
      const inbox = mailbox(email);
      await inbox.next();
      await keyed(p).post('/api/userAuth/request-password-reset', { email });
      const code = codeOf(await inbox.next());
      for (let i = 0; i < 5; i++) expect((await reset(email, wrongCode(code))).status).to.equal(400);
      const sixth = await reset(email, code);
      expect(sixth.status).to.equal(400);
      expect((await keyed(p).post('/api/userAuth/login', { email, password: PASSWORD })).status).to.equal(
        200,
      );
    });

    it('does not accept a verification code as a reset code', async () => {
      const { email } = await signup(p);
      const code = codeOf(await mailbox(email).next());
      expect((await reset(email, code)).status).to.equal(400);
    });

    it('answers the same for an unknown email, and 429 for a second request within a minute', async () => {
      const known = (await signup(p)).email;
      const unknown = newEmail();
      const a = await keyed(p).post('/api/userAuth/request-password-reset', { email: known });
      const b = await keyed(p).post('/api/userAuth/request-password-reset', { email: unknown });
      expect([a.status, b.status]).to.deep.equal([200, 200]);
      expect(a.body).to.deep.equal(b.body);
      const again = await keyed(p).post('/api/userAuth/request-password-reset', { email: unknown });
      expect(again.status).to.equal(429);
    });

    it('answers 400 for a new password that is too short and for an unknown field', async () => {
      expect((await reset(newEmail(), '123456', 'short')).status).to.equal(400);
      const extra = await keyed(p).post('/api/userAuth/reset-password', {
        email: newEmail(),
        otp: '123456',
        newPassword: PASSWORD,
        userId: 'x',
      });
      expect(extra.status).to.equal(400);
      expect((await keyed(p).post('/api/userAuth/request-password-reset', {})).status).to.equal(400);
    });

    it('answers 429 after twenty wrong reset codes from one IP', async () => {
      const q = await authProject(app);
      for (let i = 0; i < 20; i++) {
        await keyed(q).post('/api/userAuth/reset-password', {
          email: newEmail(),
          otp: '000000',
          newPassword: PASSWORD,
        });
      }
      const res = await keyed(q).post('/api/userAuth/reset-password', {
        email: newEmail(),
        otp: '000000',
        newPassword: PASSWORD,
      });
      expect(res.status).to.equal(429);
    });

    it('limits code mails per IP to twenty an hour', async () => {
      const q = await authProject(app);
      for (let i = 0; i < 20; i++) {
        expect(
          (await keyed(q).post('/api/userAuth/request-password-reset', { email: newEmail() })).status,
        ).to.equal(200);
      }
      const res = await keyed(q).post('/api/userAuth/request-password-reset', { email: newEmail() });
      expect(res.status).to.equal(429);
    });
  });

  describe('without SMTP_URL', () => {
    it('writes the mail into the outbox folder', async () => {
      const outbox = await mkdtemp(path.join(tmpdir(), 'baas-outbox-'));
      const local = await startTestApp('public', 'user_auth_outbox', {
        SMTP_URL: '',
        MAIL_OUTBOX_DIR: outbox,
      });
      try {
        expect(local.services.mail.kind).to.equal('outbox');
        const q = await authProject(local);
        const email = newEmail();
        await keyed(q).post('/api/userAuth/signup', { email, password: PASSWORD });
        const mail = await mailbox<{ id: string; to: string[]; subject: string; text: string; raw: string }>(
          email,
          outbox,
        ).next();
        expect(mail.subject).to.include('verification code');
        expect(mail.text).to.match(/code is \d{6}/);
        const res = await keyed(q).post('/api/userAuth/verify-email', { email, otp: codeOf(mail) });
        expect(res.status).to.equal(200);
      } finally {
        await local.close();
        await rm(outbox, { recursive: true, force: true });
      }
    });
  });
});
