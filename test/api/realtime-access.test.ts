// Realtime streams under the read rules: keys and tokens as for a list (header or query), RLS
// private mode (a user never receives another user's events, whatever the filters), trashed
// documents never sent, the users collection closed, the list's filters evaluated per event and
// everything else refused with a 400 naming it.
import { expect } from 'chai';
import type { ApiResponse } from '../helpers/client.js';
import { createCollectionFixture, userToken } from '../helpers/fixtures.js';
import { authProject } from '../helpers/user-auth.js';
import { pause, SseStream, streamUrl } from '../helpers/sse.js';
import { rls, startDataSuite, USER_A, USER_B, type DataSuite } from './data-helpers.js';

const NOTE_FIELDS = [
  { name: 'text', type: 'String' as const },
  { name: 'userId', type: 'String' as const },
  { name: 'views', type: 'Number' as const },
  { name: 'due', type: 'Date' as const },
];

describe('realtime: read rules', () => {
  let s: DataSuite;
  let tokenA: string;
  let tokenB: string;
  const streams: SseStream[] = [];
  const open = async (
    collection: string,
    query: Record<string, string>,
    headers: Record<string, string> = {},
  ) => {
    const stream = await SseStream.open(streamUrl(s.app.url, collection, query), headers);
    streams.push(stream);
    await stream.waitFor(1, ['ready']);
    return stream;
  };
  const refused = (res: ApiResponse, status: number, code: string) => {
    expect(res.status, res.text).to.equal(status);
    expect(res.body).to.include({ success: false, code });
  };

  before(async () => {
    s = await startDataSuite('realtime_access');
    await s.collection({ name: 'private_notes', mode: 'schema', fields: NOTE_FIELDS, rls: rls('private') });
    await s.collection({
      name: 'public_notes',
      mode: 'schema',
      fields: NOTE_FIELDS,
      rls: rls('public-read'),
    });
    await s.collection({ name: 'tasks', mode: 'schema', fields: NOTE_FIELDS });
    tokenA = await userToken(s.app.services, s.fx.project.id, USER_A);
    tokenB = await userToken(s.app.services, s.fx.project.id, USER_B);
  });
  afterEach(() => {
    for (const stream of streams.splice(0)) stream.close();
  });
  after(() => s.close());

  it('private RLS mode: user A never receives the events of user B, even when asking by filter', async () => {
    const a = await open('private_notes', { key: s.fx.publishableKey, access_token: tokenA });
    const aAskingForB = await open('private_notes', {
      key: s.fx.publishableKey,
      access_token: tokenA,
      userId: USER_B,
    });
    const b = await open(
      'private_notes',
      { key: s.fx.publishableKey },
      { authorization: `Bearer ${tokenB}` },
    );
    const all = await open('private_notes', {}, { 'x-api-key': s.fx.secretKey });
    const asA = await s.asUser(USER_A);
    const asB = await s.asUser(USER_B);

    const noteB = (await asB.post('/api/data/private_notes', { text: 'B secret' })).body.data;
    await asB.patch(`/api/data/private_notes/${noteB._id}`, { text: 'B secret 2' });
    await asB.delete(`/api/data/private_notes/${noteB._id}`);
    await asB.post(`/api/data/private_notes/${noteB._id}/restore`);
    const noteA = (await asA.post('/api/data/private_notes', { text: 'A note' })).body.data;
    await asA.delete(`/api/data/private_notes/${noteA._id}`);

    await all.waitFor(6, undefined);
    const [, deletedA] = await a.waitFor(2, ['document.created', 'document.deleted']);
    await b.waitFor(4, ['document.created', 'document.updated', 'document.deleted', 'document.restored']);
    await pause(200);
    expect(a.documents().map((e) => [e.event, e.data.id])).to.deep.equal([
      ['document.created', noteA._id],
      ['document.deleted', noteA._id],
    ]);
    expect(deletedA!.data.document).to.equal(null);
    expect(b.documents().every((e) => e.data.id === noteB._id)).to.equal(true);
    expect(b.documents()).to.have.length(4);
    expect(aAskingForB.documents()).to.have.length(0);
    expect(all.documents()).to.have.length(6);
  });

  it('follows a change of the RLS mode at once: switched to private, others stop seeing events', async () => {
    await s.collection({ name: 'switching', mode: 'schema', fields: NOTE_FIELDS, rls: rls('public-read') });
    const a = await open('switching', { key: s.fx.publishableKey, access_token: tokenA });
    const asB = await s.asUser(USER_B);
    await asB.post('/api/data/switching', { text: 'while public' });
    await a.waitFor(1, ['document.created']);
    await s.app.services.repos.collections.update(s.fx.project.id, 'switching', { rls: rls('private') });
    await asB.post('/api/data/switching', { text: 'now private' });
    await (await s.asUser(USER_A)).post('/api/data/switching', { text: 'mine' });
    const events = await a.waitFor(2, ['document.created']);
    await pause(200);
    expect(a.documents().map((e) => e.data.document.text)).to.deep.equal(['while public', 'mine']);
    expect(events).to.have.length(2);
  });

  it('public-read and RLS off: every key holder receives every event; trashed documents are never sent', async () => {
    const anonymous = await open('public_notes', { key: s.fx.publishableKey });
    const tasks = await open('tasks', { key: s.fx.publishableKey });
    const note = (await (await s.asUser(USER_B)).post('/api/data/public_notes', { text: 'hello' })).body.data;
    const task = (await s.secret.post('/api/data/tasks', { text: 'todo' })).body.data;
    await s.secret.delete(`/api/data/tasks/${task._id}`);
    const [created] = await anonymous.waitFor(1, ['document.created']);
    expect(created!.data.document).to.include({ _id: note._id, text: 'hello' });
    const [, deleted] = await tasks.waitFor(2, ['document.created', 'document.deleted']);
    expect(tasks.documents().map((e) => e.event)).to.deep.equal(['document.created', 'document.deleted']);
    expect(deleted!.data).to.deep.include({ id: task._id, document: null });
    expect(JSON.stringify(tasks.events)).not.to.include('"isDeleted":true');
  });

  it('narrows the stream with the list filters, evaluated per event (deletes by the deleted document)', async () => {
    const busy = await open('tasks', { key: s.fx.publishableKey, views_gte: '10', text_regex: '^im' });
    const due = await open('tasks', { key: s.fx.publishableKey, due_lt: '2030-01-01', views_in: '1,2,3' });
    const post = async (body: Record<string, unknown>) =>
      (await s.secret.post('/api/data/tasks', body)).body.data;
    const hit = await post({ text: 'Important', views: 12 });
    await post({ text: 'important', views: 3 });
    await post({ text: 'other', views: 50 });
    await post({ text: 'due soon', views: 2, due: '2029-06-01T00:00:00.000Z' });
    await post({ text: 'due late', views: 2, due: '2031-06-01T00:00:00.000Z' });
    await s.secret.patch(`/api/data/tasks/${hit._id}`, { views: 1 });
    await s.secret.delete(`/api/data/tasks/${hit._id}`);
    const gone = await post({ text: 'Imminent', views: 20 });
    await s.secret.delete(`/api/data/tasks/${gone._id}`);

    await due.waitFor(1, ['document.created']);
    await busy.waitFor(3, ['document.created', 'document.deleted']);
    await pause(300);
    // The update took `Important` out of the filter: neither it nor its delete is sent.
    expect(busy.documents().map((e) => [e.event, e.data.document?.text ?? e.data.id])).to.deep.equal([
      ['document.created', 'Important'],
      ['document.created', 'Imminent'],
      ['document.deleted', gone._id],
    ]);
    expect(due.documents().map((e) => [e.event, e.data.document?.text ?? e.data.id])).to.deep.equal([
      ['document.created', 'due soon'],
    ]);
  });

  it('refuses what a list would refuse, and the list options a stream cannot apply, naming them', async () => {
    const pk = s.app.client.with({ 'x-api-key': s.fx.publishableKey });
    refused(await pk.get('/api/realtime/tasks', { query: { sort: '-views' } }), 400, 'UNSUPPORTED_PARAMETER');
    const badSort = await pk.get('/api/realtime/tasks', { query: { sort: '-views' } });
    expect(badSort.body.message).to.include('"sort"');
    refused(
      await pk.get('/api/realtime/tasks', { query: { include_deleted: 'true' } }),
      400,
      'UNSUPPORTED_PARAMETER',
    );
    const unknown = await pk.get('/api/realtime/tasks', { query: { nope: '1' } });
    refused(unknown, 400, 'UNKNOWN_FIELD');
    expect(unknown.body.message).to.include('"nope"');
    refused(await pk.get('/api/realtime/tasks', { query: { views_gt: 'many' } }), 400, 'INVALID_FILTER');
    refused(await pk.get('/api/realtime/tasks', { query: { text_regex: '(' } }), 400, 'INVALID_REGEX');
  });

  it('applies the key and token rules of reads', async () => {
    const pk = s.app.client.with({ 'x-api-key': s.fx.publishableKey });
    refused(await s.app.client.get('/api/realtime/tasks'), 401, 'MISSING_CREDENTIALS');
    refused(await pk.get('/api/realtime/private_notes'), 401, 'MISSING_TOKEN');
    refused(
      await pk.get('/api/realtime/private_notes', { query: { access_token: 'not-a-token' } }),
      401,
      'INVALID_TOKEN',
    );
    // A secret key never travels in a URL.
    refused(
      await s.app.client.get('/api/realtime/tasks', { query: { key: s.fx.secretKey } }),
      401,
      'INVALID_API_KEY',
    );
    refused(await pk.get('/api/realtime/missing'), 404, 'COLLECTION_NOT_FOUND');
    refused(await pk.get('/api/realtime/users'), 403, 'USERS_COLLECTION');
    refused(await s.secret.get('/api/realtime/users'), 403, 'USERS_COLLECTION');
    // access_token is taken on this operation only: on a list it stays an (unknown) filter.
    const list = await pk.get('/api/data/tasks', { query: { access_token: tokenA } });
    refused(list, 400, 'UNKNOWN_FIELD');
  });

  it('never streams the users collection: sign-ups and profile changes reach no subscriber', async () => {
    const p = await authProject(s.app);
    await createCollectionFixture(s.app.services, p.project.id, { name: 'tasks' });
    refused(
      await s.app.client.with({ 'x-api-key': p.secretKey }).get('/api/realtime/users'),
      403,
      'USERS_COLLECTION',
    );
    const tasks = await open('tasks', {}, { 'x-api-key': p.secretKey });
    const endUsers = s.app.client.with({ 'x-api-key': p.publishableKey });
    const signup = await endUsers.post('/api/userAuth/signup', {
      email: 'rt-user@example.com',
      password: 'correct horse battery',
      name: 'Realtime',
    });
    expect(signup.status, signup.text).to.equal(201);
    const profile = await endUsers.put(
      '/api/userAuth/update-profile',
      { name: 'Renamed' },
      { headers: { authorization: `Bearer ${signup.body.data.accessToken}` } },
    );
    expect(profile.status, profile.text).to.equal(200);
    await s.app.client.with({ 'x-api-key': p.secretKey }).post('/api/data/tasks', { title: 'marker' });
    await tasks.waitFor(1, ['document.created']);
    expect(tasks.documents()).to.have.length(1);
    expect(JSON.stringify(tasks.events)).not.to.include('rt-user@example.com');
  });
});
