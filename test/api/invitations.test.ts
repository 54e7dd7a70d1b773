// Project invitations (issue 29 #12): an invitation tells nothing about the address, and only the
// developer who uses the invited address can accept it, once, before it expires.
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createDeveloper, createProjectFixture } from '../helpers/fixtures.js';
import { invitationTokenOf, mailbox, subjectOf } from '../helpers/mail.js';
import type { ApiClient } from '../helpers/client.js';

const address = (what: string) => `${what}-${randomBytes(5).toString('hex')}@example.test`;

describe('project invitations', () => {
  let app: TestApp;
  let fx: Awaited<ReturnType<typeof createProjectFixture>>;
  let admin: ApiClient;
  let path: string;
  before(async () => {
    app = await startTestApp('dashboard', 'invitations');
    fx = await createProjectFixture(app.services, 'Invited project');
    admin = app.client.with({ cookie: fx.cookie });
    path = `/api/projects/${fx.project.id}/invitations`;
  });
  after(() => app.close());

  const members = async () =>
    (await admin.get(`/api/projects/${fx.project.id}/members`)).body.data.members.map((m: any) => m.email);
  const pending = async () => (await admin.get(path)).body.data.invitations as any[];
  const accept = (cookie: string, token: string) =>
    app.client.with({ cookie }).post('/api/invitations/accept', { token });

  it('answers and lists an address with an account, a member and an unknown one alike', async () => {
    const known = await createDeveloper(app.services, address('known'));
    const unknown = address('nobody');
    const shape = (res: { status: number; body: any }) => {
      const { id, email, createdAt, sentAt, expiresAt, ...rest } = res.body.data.invitation;
      expect(id).to.match(/^[0-9a-f]{24}$/);
      expect(Date.parse(expiresAt) - Date.parse(sentAt)).to.equal(7 * 24 * 3600 * 1000);
      expect(createdAt).to.equal(sentAt);
      return { status: res.status, message: res.body.message.replace(email, '<email>'), rest };
    };
    const toKnown = await admin.post(path, { email: known.developer.email });
    const toUnknown = await admin.post(path, { email: unknown });
    const toMember = await admin.post(path, { email: fx.developer.email, role: 'admin' });
    expect(toKnown.status).to.equal(202);
    expect(shape(toUnknown)).to.deep.equal(shape(toKnown));
    expect(shape(toMember).rest).to.deep.equal({ ...shape(toKnown).rest, role: 'admin' });
    expect(shape(toKnown).rest).to.deep.equal({
      role: 'member',
      status: 'pending',
      invitedBy: fx.developer.id,
    });
    // Nobody joined; each address has its pending entry, with the same fields.
    expect(await members()).to.deep.equal([fx.developer.email]);
    const list = await pending();
    expect(list.map((i) => [i.email, i.role, i.status])).to.deep.equal([
      [known.developer.email, 'member', 'pending'],
      [unknown, 'member', 'pending'],
      [fx.developer.email, 'admin', 'pending'],
    ]);
    expect(new Set(list.map((i) => Object.keys(i).sort().join()))).to.have.lengthOf(1);
    // Both addresses get the same mail, and no account was created for the unknown one.
    const [knownMail, unknownMail] = await Promise.all([
      mailbox(known.developer.email).next(),
      mailbox(unknown).next(),
    ]);
    expect(subjectOf(knownMail)).to.equal('Invitation to a project');
    expect(subjectOf(unknownMail)).to.equal(subjectOf(knownMail));
    expect(unknownMail.raw).to.include('Invited project');
    const developers = app.deps.db.platform.collection('developers');
    expect(await developers.countDocuments({ email: unknown })).to.equal(0);
    // Tokens are stored hashed only.
    const token = invitationTokenOf(knownMail);
    const stored = await app.deps.db.platform.collection('project_invitations').find({}).toArray();
    expect(JSON.stringify(stored)).not.to.include(token);
  });

  it('makes the invited developer a member with the invited role; the link works once', async () => {
    const grace = await createDeveloper(app.services, address('grace'));
    const inbox = mailbox(grace.developer.email);
    await admin.post(path, { email: grace.developer.email.toUpperCase(), role: 'admin' });
    const token = invitationTokenOf(await inbox.next());
    const res = await accept(grace.cookie, token);
    expect(res.status, res.text).to.equal(200);
    expect(res.body.data.project).to.deep.equal({
      id: fx.project.id,
      name: 'Invited project',
      role: 'admin',
    });
    expect(res.body.message).to.equal('You are now an admin of Invited project');
    expect(await members()).to.include(grace.developer.email);
    expect((await pending()).map((i) => i.email)).not.to.include(grace.developer.email);
    const again = await accept(grace.cookie, token);
    expect(again.status).to.equal(404);
    expect(again.body).to.include({ code: 'INVITATION_NOT_FOUND' });
    expect(again.body.message).to.include('already used, revoked, or replaced');
  });

  it('refuses the link to another developer (403, in words) and keeps it for the right one', async () => {
    const invited = address('later');
    const inbox = mailbox(invited);
    await admin.post(path, { email: invited });
    const token = invitationTokenOf(await inbox.next());
    const mallory = await createDeveloper(app.services, address('mallory'));
    const refused = await accept(mallory.cookie, token);
    expect(refused.status).to.equal(403);
    expect(refused.body.code).to.equal('INVITATION_FOR_ANOTHER_EMAIL');
    expect(refused.body.message).to.equal(
      'This invitation was sent to another email address: log in as the developer who uses it, ' +
        'or sign up with it, then open the link again',
    );
    expect(refused.text).not.to.include(invited);
    expect(await members()).not.to.include(mallory.developer.email);
    // The address signs up afterwards, then accepts.
    const newcomer = await createDeveloper(app.services, invited);
    expect((await accept(newcomer.cookie, token)).status).to.equal(200);
    expect(await members()).to.include(invited);
    expect((await app.client.post('/api/invitations/accept', { token })).status).to.equal(401);
  });

  it('refuses an expired link with 410, and a link replaced by a repeated invitation with 404', async () => {
    const dev = await createDeveloper(app.services, address('slow'));
    const inbox = mailbox(dev.developer.email);
    await admin.post(path, { email: dev.developer.email });
    const first = invitationTokenOf(await inbox.next());
    const repeated = await admin.post(path, { email: dev.developer.email, role: 'admin' });
    expect(repeated.status).to.equal(202);
    const second = invitationTokenOf(await inbox.next());
    const list = (await pending()).filter((i) => i.email === dev.developer.email);
    expect(list.map((i) => i.role)).to.deep.equal(['admin']);
    expect((await accept(dev.cookie, first)).status).to.equal(404);
    await app.deps.db.platform
      .collection('project_invitations')
      .updateOne({ email: dev.developer.email }, { $set: { expiresAt: new Date(Date.now() - 1000) } });
    const expired = await accept(dev.cookie, second);
    expect(expired.status).to.equal(410);
    expect(expired.body).to.include({
      code: 'INVITATION_EXPIRED',
      message: 'This invitation expired; ask an admin of the project to send it again',
    });
    expect((await pending()).map((i) => i.email)).not.to.include(dev.developer.email);
    expect(await members()).not.to.include(dev.developer.email);
    expect((await accept(dev.cookie, 'x'.repeat(201))).status).to.equal(400);
  });

  it('resends with a new link (the old one stops) and revokes', async () => {
    const dev = await createDeveloper(app.services, address('resend'));
    const inbox = mailbox(dev.developer.email);
    const invited = await admin.post(path, { email: dev.developer.email });
    const id = invited.body.data.invitation.id as string;
    const old = invitationTokenOf(await inbox.next());
    const resent = await admin.post(`${path}/${id}/resend`);
    expect(resent.status).to.equal(202);
    expect(resent.body.data.invitation).to.include({ id, email: dev.developer.email, role: 'member' });
    const fresh = invitationTokenOf(await inbox.next());
    expect(fresh).not.to.equal(old);
    expect((await accept(dev.cookie, old)).status).to.equal(404);

    const revoked = await admin.delete(`${path}/${id}`);
    expect(revoked.status).to.equal(200);
    expect((await pending()).map((i) => i.id)).not.to.include(id);
    const late = await accept(dev.cookie, fresh);
    expect(late.status).to.equal(404);
    expect(late.body.code).to.equal('INVITATION_NOT_FOUND');
    for (const res of [await admin.delete(`${path}/${id}`), await admin.post(`${path}/${id}/resend`)]) {
      expect(res.status).to.equal(404);
      expect(res.body).to.include({ code: 'INVITATION_NOT_FOUND', message: 'Invitation not found' });
    }
    for (const res of [await admin.delete(`${path}/nope`), await admin.post(`${path}/nope/resend`)]) {
      expect(res.status).to.equal(400);
    }
  });

  it('lets admins only list, invite, resend and revoke; cross-site writes are refused', async () => {
    const member = await createDeveloper(app.services, address('member'));
    await app.services.members.add(fx.project, member.developer.email, 'member');
    const invited = await admin.post(path, { email: address('x') });
    const id = invited.body.data.invitation.id as string;
    const asMember = app.client.with({ cookie: member.cookie });
    for (const res of [
      await asMember.get(path),
      await asMember.post(path, { email: address('y') }),
      await asMember.post(`${path}/${id}/resend`),
      await asMember.delete(`${path}/${id}`),
    ]) {
      expect(res.status).to.equal(404);
      expect(res.body.message).to.equal('Project not found or access denied');
    }
    for (const res of [
      await app.client.get(path),
      await app.client.post(path, { email: address('z') }),
      await app.client.post(`${path}/${id}/resend`),
      await app.client.delete(`${path}/${id}`),
    ]) {
      expect(res.status).to.equal(401);
    }
    const evil = admin.with({ origin: 'https://evil.example' });
    for (const res of [
      await evil.post(path, { email: address('w') }),
      await evil.post(`${path}/${id}/resend`),
      await evil.delete(`${path}/${id}`),
      await evil.post('/api/invitations/accept', { token: 'abc' }),
    ]) {
      expect(res.status).to.equal(403);
      expect(res.body.code).to.equal('CSRF_ORIGIN_MISMATCH');
    }
    expect((await admin.post(path, { email: 'bad' })).status).to.equal(400);
    expect((await admin.get('/api/projects/nope/invitations')).status).to.equal(400);
  });

  it('forgets the invitations of a deleted project', async () => {
    const other = await createProjectFixture(app.services, 'Short-lived');
    const as = app.client.with({ cookie: other.cookie });
    await as.post(`/api/projects/${other.project.id}/invitations`, { email: address('gone') });
    expect((await as.delete(`/api/projects/${other.project.id}`)).status).to.equal(200);
    const left = await app.deps.db.platform
      .collection('project_invitations')
      .countDocuments({ projectId: new (await import('mongodb')).ObjectId(other.project.id) });
    expect(left).to.equal(0);
  });
});
