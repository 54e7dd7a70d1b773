// The members' live stream of a collection on the dashboard API (session cookie): the public
// stream's events with the secret key's read rules, a document written through the public API
// arrives; strangers, the signed-out, `users`, bad filters and the connection cap are refused; an
// open stream ends within one heartbeat of the member's removal, log-out, password change or
// session expiry.
import { expect } from 'chai';
import { startTestApps } from '../helpers/app.js';
import type { ApiClient } from '../helpers/client.js';
import {
  createCollectionFixture,
  createDeveloper,
  createProjectFixture,
  type ProjectFixture,
} from '../helpers/fixtures.js';
import { pause, SseStream } from '../helpers/sse.js';
import { SESSION_COOKIE } from '../../src/services/accounts.js';
import { sha256 } from '../../src/lib/secrets.js';

const OPERATION = { role: 'dashboard' as const, operationId: 'streamProjectDocuments' };
/** Short, so that "within one heartbeat" is measured in a test's time. */
const HEARTBEAT_MS = 300;

describe('dashboard: a collection’s live stream for members', () => {
  let apps: Awaited<ReturnType<typeof startTestApps>>;
  let fx: ProjectFixture;
  let memberCookie: string;
  let anonymous: ApiClient;
  let secret: ApiClient;
  const streams: SseStream[] = [];
  const path = (collection = 'notes') => `/api/projects/${fx.project.id}/collections/${collection}/stream`;
  const open = async (cookie: string, query = '') => {
    const stream = await SseStream.open(`${apps.dashboard.url}${path()}${query}`, { cookie }, OPERATION);
    streams.push(stream);
    await stream.waitFor(1, ['ready']);
    return stream;
  };

  before(async () => {
    apps = await startTestApps('project_stream', { REALTIME_HEARTBEAT_MS: String(HEARTBEAT_MS) });
    const services = apps.dashboard.services;
    fx = await createProjectFixture(services);
    const member = await createDeveloper(services);
    await services.members.add(fx.project, member.developer.email, 'member');
    memberCookie = member.cookie;
    // Private RLS: an end user would see only their own documents; members see every one.
    await createCollectionFixture(services, fx.project.id, {
      name: 'notes',
      rls: { enabled: true, mode: 'private', ownerField: 'ownerId' },
      fields: [
        { name: 'title', type: 'String' },
        { name: 'ownerId', type: 'String' },
      ],
    });
    await createCollectionFixture(services, fx.project.id, { name: 'users' });
    anonymous = apps.dashboard.client;
    secret = apps.public.client.with({ 'x-api-key': fx.secretKey });
  });
  afterEach(async () => {
    for (const s of streams.splice(0)) s.close();
    await apps.dashboard.services.repos.projects.setLimits(fx.project.id, {});
  });
  after(() => apps?.close());

  it('streams documents written through the public API to a member, whatever their owner', async () => {
    const stream = await open(memberCookie);
    const made = await secret.post('/api/data/notes', { title: 'From the API', ownerId: 'someone' });
    expect(made.status, made.text).to.equal(201);
    const [created] = await stream.waitFor(1, ['document.created']);
    expect(created!.data).to.include({ type: 'document.created', id: made.body.data._id });
    expect(created!.data.document).to.include({ title: 'From the API', ownerId: 'someone' });
    const patched = await secret.patch(`/api/data/notes/${made.body.data._id}`, { title: 'Edited' });
    expect(patched.status).to.equal(200);
    const [updated] = await stream.waitFor(1, ['document.updated']);
    expect(updated!.data.document.title).to.equal('Edited');
    expect(updated!.id).to.match(/^[0-9a-z]+-\d+$/);
  });

  it('applies the list filters to the stream', async () => {
    const stream = await open(memberCookie, '?title=wanted');
    await secret.post('/api/data/notes', { title: 'other' });
    await secret.post('/api/data/notes', { title: 'wanted' });
    const [only] = await stream.waitFor(1, ['document.created']);
    expect(only!.data.document.title).to.equal('wanted');
    await pause(200);
    expect(stream.documents()).to.have.length(1);
  });

  it('refuses the signed-out, strangers, `users`, unknown collections and bad filters', async () => {
    const stranger = await createDeveloper(apps.dashboard.services);
    const signedOut = await anonymous.get(path());
    expect(signedOut.status).to.equal(401);
    const notMember = await anonymous.with({ cookie: stranger.cookie }).get(path());
    expect(notMember.status).to.equal(404);
    const member = anonymous.with({ cookie: memberCookie });
    const users = await member.get(path('users'));
    expect(users.status).to.equal(403);
    expect((await member.get(path('nothing'))).status).to.equal(404);
    const bad = await member.get(path(), { query: { sort: 'title' } });
    expect(bad.status, bad.text).to.equal(400);
    expect(bad.body.code).to.equal('UNSUPPORTED_PARAMETER');
  });

  describe('ends within one heartbeat when the member may no longer read it', () => {
    let member: Awaited<ReturnType<typeof createDeveloper>>;
    beforeEach(async () => {
      member = await createDeveloper(apps.dashboard.services);
      await apps.dashboard.services.members.add(fx.project, member.developer.email, 'member');
    });
    /** Opens a stream, lets a heartbeat pass (still open), acts, and reads the close in time. */
    async function endsAfter(cookie: string, act: () => Promise<void>) {
      const stream = await open(cookie);
      await stream.waitComments(1, 3 * HEARTBEAT_MS);
      expect(stream.ended, 'open while the session is valid').to.equal(false);
      await act();
      const started = Date.now();
      // One heartbeat, plus the time of its two reads on a loaded machine.
      const [closing] = await stream.waitFor(1, ['close'], HEARTBEAT_MS + 700);
      expect(closing!.data.reason).to.equal('SESSION_ENDED');
      await stream.waitEnded(500);
      return Date.now() - started;
    }
    const tokenOf = (cookie: string) => cookie.slice(SESSION_COOKIE.length + 1);

    it('on removal from the project', async () => {
      const admin = anonymous.with({ cookie: fx.cookie });
      const waited = await endsAfter(member.cookie, async () => {
        const res = await admin.delete(`/api/projects/${fx.project.id}/members/${member.developer.id}`);
        expect(res.status, res.text).to.equal(200);
      });
      expect(waited).to.be.below(HEARTBEAT_MS + 700);
      // Reopening is refused like any stranger's.
      expect((await anonymous.with({ cookie: member.cookie }).get(path())).status).to.equal(404);
    });

    it('on log-out', async () => {
      await endsAfter(member.cookie, async () => {
        const res = await anonymous.with({ cookie: member.cookie }).post('/api/auth/logout');
        expect(res.status, res.text).to.equal(200);
      });
      expect((await anonymous.with({ cookie: member.cookie }).get(path())).status).to.equal(401);
    });

    it('on a password change made in another session', async () => {
      const other = await apps.dashboard.services.accounts.openSession(member.developer);
      const elsewhere = anonymous.with({ cookie: `${SESSION_COOKIE}=${other.sessionToken}` });
      await endsAfter(member.cookie, async () => {
        const res = await elsewhere.put('/api/user/me/password', {
          currentPassword: member.password,
          newPassword: 'a brand new passphrase',
        });
        expect(res.status, res.text).to.equal(200);
      });
      // The session that changed it keeps its own stream.
      const kept = await open(`${SESSION_COOKIE}=${other.sessionToken}`);
      await kept.waitComments(2, 4 * HEARTBEAT_MS);
      expect(kept.ended).to.equal(false);
    });

    it('on session expiry', async () => {
      await endsAfter(member.cookie, async () => {
        // The session's time runs out (as seven days would make it).
        const hash = sha256(tokenOf(member.cookie));
        const res = await apps.dashboard.deps.db.platform
          .collection('sessions')
          .updateOne({ _id: hash as never }, { $set: { expiresAt: new Date(Date.now() - 1000) } });
        expect(res.modifiedCount).to.equal(1);
      });
      expect((await anonymous.with({ cookie: member.cookie }).get(path())).status).to.equal(401);
    });
  });

  it('counts against the plan’s cap on concurrent connections', async () => {
    await apps.dashboard.services.repos.projects.setLimits(fx.project.id, {
      realtimeConnectionsPerProject: 1,
    });
    await open(fx.cookie);
    const refused = await anonymous.with({ cookie: memberCookie }).get(path());
    expect(refused.status, refused.text).to.equal(429);
    expect(refused.body.code).to.equal('REALTIME_CONNECTION_LIMIT');
  });
});
