// Finding out which developer accounts exist, slowed down (issue 29 #9, #12, #17): sign-ups per
// client IP (DEVELOPER_SIGNUPS_PER_HOUR, an IPv6 client counted by its /64; client addresses from
// X-Forwarded-For with TRUST_PROXY) and invitation mails (invites and resends) per inviting
// developer and hour.
import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createProjectFixture } from '../helpers/fixtures.js';
import { INVITES_PER_HOUR } from '../../src/services/invitations.js';

describe('developer accounts: sign-up and invitation limits', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp('dashboard', 'accounts_signup', {
      TRUST_PROXY: 'true',
      DEVELOPER_SIGNUPS_PER_HOUR: '2',
    });
  });
  after(() => app.close());

  const signUp = (ip: string) =>
    app.client.post(
      '/api/auth/signup',
      { email: `dev-${randomBytes(5).toString('hex')}@example.com`, password: 'correct horse battery' },
      { headers: { 'x-forwarded-for': ip } },
    );

  it('accepts 2 sign-ups an hour from one address, then answers 429 with Retry-After', async () => {
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await signUp('198.51.100.20')).status);
    expect(statuses).to.deep.equal([201, 201, 429]);
    const refused = await signUp('198.51.100.20');
    expect(refused.body).to.include({ code: 'RATE_LIMITED' });
    expect(refused.body.message).to.include('Too many sign-ups from this address');
    expect(refused.headers.get('retry-after')).to.equal('3600');
    expect((await signUp('198.51.100.21')).status).to.equal(201);
  });

  it('counts the addresses of one IPv6 /64 as one client', async () => {
    expect((await signUp('2001:db8:7:7::1')).status).to.equal(201);
    expect((await signUp('2001:db8:7:7:1:2:3:4')).status).to.equal(201);
    expect((await signUp('2001:db8:7:7::ffff')).status).to.equal(429);
    expect((await signUp('2001:db8:7:8::1')).status).to.equal(201);
  });

  it(`answers 429 to the invitation past ${INVITES_PER_HOUR} an hour of one developer, over their projects`, async () => {
    const owner = await createProjectFixture(app.services);
    const second = await app.services.projects.create(
      { requestId: 't', log: app.deps.log, ip: '127.0.0.1', principal: { developer: owner.developer } },
      'Second',
      {},
    );
    const admin = app.client.with({ cookie: owner.cookie });
    const invite = (projectId: string, i: number) =>
      admin.post(`/api/projects/${projectId}/invitations`, { email: `probe-${i}@example.com` });
    let last = '';
    for (let i = 0; i < INVITES_PER_HOUR; i++) {
      const projectId = i % 2 ? second.project.id : owner.project.id;
      const res = await invite(projectId, i);
      expect(res.status).to.equal(202);
      last = res.body.data.invitation.id;
    }
    const refused = await invite(second.project.id, INVITES_PER_HOUR);
    expect(refused.status).to.equal(429);
    expect(refused.body.message).to.include(`At most ${INVITES_PER_HOUR} invitations an hour`);
    expect(refused.headers.get('retry-after')).to.equal('3600');
    // A resend is one more mail: counted the same.
    const resend = await admin.post(`/api/projects/${second.project.id}/invitations/${last}/resend`);
    expect(resend.status).to.equal(429);
    expect(resend.body.message).to.include(`At most ${INVITES_PER_HOUR} invitations an hour`);
    // Another developer's invitations are counted apart.
    const other = await createProjectFixture(app.services);
    const res = await app.client
      .with({ cookie: other.cookie })
      .post(`/api/projects/${other.project.id}/invitations`, { email: 'probe@example.com' });
    expect(res.status).to.equal(202);
  });
});
