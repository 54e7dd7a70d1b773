// The members' live stream of a collection on the dashboard API (session cookie): the public
// stream's events with the secret key's read rules, a document written through the public API
// arrives; strangers, the signed-out, `users`, bad filters and the connection cap are refused.
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

const OPERATION = { role: 'dashboard' as const, operationId: 'streamProjectDocuments' };

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
    apps = await startTestApps('project_stream');
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
