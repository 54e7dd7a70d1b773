// Realtime streams across processes: two public processes of one installation (same platform
// database, same Redis); a write on one reaches a subscriber of the other, in order, with the
// event shapes of the spec; reconnecting with Last-Event-ID (or ?last_event_id=) replays what was
// missed, and a position older than the replay buffer is answered with a `reset` event.
import { expect } from 'chai';
import { startTestApp, suiteDatabase, type TestApp } from '../helpers/app.js';
import type { ApiClient } from '../helpers/client.js';
import { createCollectionFixture, createProjectFixture, type ProjectFixture } from '../helpers/fixtures.js';
import { testEnv } from '../helpers/env.js';
import { pause, SseStream, streamUrl } from '../helpers/sse.js';

const REPLAY = 5;

describe('realtime: document events across processes', () => {
  let writer: TestApp;
  let reader: TestApp;
  let fx: ProjectFixture;
  let secret: ApiClient;
  const streams: SseStream[] = [];
  const open = async (query: Record<string, string> = {}, headers: Record<string, string> = {}) => {
    const stream = await SseStream.open(
      streamUrl(reader.url, 'posts', { key: fx.publishableKey, ...query }),
      headers,
    );
    streams.push(stream);
    return stream;
  };

  before(async function () {
    if (!testEnv.REDIS_URL) return this.skip();
    const shared = { PLATFORM_DB: suiteDatabase('realtime'), REALTIME_REPLAY_EVENTS: String(REPLAY) };
    writer = await startTestApp('public', 'realtime', shared);
    reader = await startTestApp('public', 'realtime', shared);
    fx = await createProjectFixture(writer.services);
    await createCollectionFixture(writer.services, fx.project.id, { name: 'posts' });
    secret = writer.client.with({ 'x-api-key': fx.secretKey });
  });
  afterEach(() => {
    for (const s of streams.splice(0)) s.close();
  });
  after(async () => {
    await reader?.close();
    await writer?.close();
  });

  it('delivers created, updated, deleted and restored events written by another process', async () => {
    const stream = await open();
    const [ready] = await stream.waitFor(1, ['ready']);
    expect(ready!.id).to.match(/^[0-9a-z]+-\d+$/);
    expect(ready!.data).to.deep.equal({ lastEventId: ready!.id });

    const created = await secret.post('/api/data/posts', { title: 'first' });
    expect(created.status).to.equal(201);
    const id = created.body.data._id as string;
    expect((await secret.patch(`/api/data/posts/${id}`, { title: 'second' })).status).to.equal(200);
    expect((await secret.delete(`/api/data/posts/${id}`)).status).to.equal(200);
    expect((await secret.post(`/api/data/posts/${id}/restore`)).status).to.equal(200);

    const events = await stream.waitFor(4, [
      'document.created',
      'document.updated',
      'document.deleted',
      'document.restored',
    ]);
    expect(events.map((e) => e.event)).to.deep.equal([
      'document.created',
      'document.updated',
      'document.deleted',
      'document.restored',
    ]);
    expect(events[0]!.data).to.deep.include({ type: 'document.created', id });
    expect(events[0]!.data.document).to.deep.equal(created.body.data);
    expect(events[1]!.data.document).to.include({ _id: id, title: 'second' });
    expect(events[2]!.data).to.deep.include({ type: 'document.deleted', id, document: null });
    expect(events[3]!.data.document).to.include({ _id: id, title: 'second', isDeleted: false });
    const seqs = events.map((e) => Number(e.id!.split('-')[1]));
    expect(seqs).to.deep.equal([...seqs].sort((a, b) => a - b));
    expect(new Set(seqs).size).to.equal(4);
    for (const e of events) expect(new Date(e.data.at).toISOString()).to.equal(e.data.at);
  });

  it('replays what was missed to a client reconnecting with Last-Event-ID, then goes live', async () => {
    const first = await open();
    await first.waitFor(1, ['ready']);
    await secret.post('/api/data/posts', { title: 'seen' });
    const [seen] = await first.waitFor(1, ['document.created']);
    first.close();

    await secret.post('/api/data/posts', { title: 'missed 1' });
    await secret.post('/api/data/posts', { title: 'missed 2' });

    const again = await open({}, { 'last-event-id': seen!.id! });
    const [ready] = await again.waitFor(1, ['ready']);
    const replayed = again.documents();
    expect(replayed.map((e) => e.data.document.title)).to.deep.equal(['missed 1', 'missed 2']);
    expect(again.events.indexOf(ready!)).to.equal(2); // the replay comes before `ready`
    expect(again.events.some((e) => e.event === 'reset')).to.equal(false);

    await secret.post('/api/data/posts', { title: 'live' });
    const all = await again.waitFor(3, ['document.created']);
    expect(all.map((e) => e.data.document.title)).to.deep.equal(['missed 1', 'missed 2', 'live']);

    // A new EventSource cannot set the header: the same position as a query parameter.
    const byQuery = await open({ last_event_id: seen!.id! });
    await byQuery.waitFor(1, ['ready']);
    expect(byQuery.documents().map((e) => e.data.document.title)).to.deep.equal([
      'missed 1',
      'missed 2',
      'live',
    ]);
  });

  it('signals a gap beyond the replay buffer with a reset event', async () => {
    const first = await open();
    const [ready] = await first.waitFor(1, ['ready']);
    first.close();
    for (let i = 0; i < REPLAY + 2; i++) await secret.post('/api/data/posts', { title: `burst ${i}` });

    const again = await open({}, { 'last-event-id': ready!.id! });
    const [reset] = await again.waitFor(1, ['reset']);
    expect(reset!.data.reason).to.equal('EVENTS_MISSED');
    await again.waitFor(1, ['ready']);
    expect(again.documents()).to.have.length(0);
    expect(again.events.map((e) => e.event)).to.deep.equal(['reset', 'ready']);

    // An id the server never issued (another epoch, garbage) is a gap too, never a silent resume.
    const stranger = await open({}, { 'last-event-id': 'zzzz-3' });
    await stranger.waitFor(1, ['ready']);
    expect(stranger.events[0]!.event).to.equal('reset');

    // After the reset the stream is live.
    await secret.post('/api/data/posts', { title: 'after reset' });
    const [live] = await again.waitFor(1, ['document.created']);
    expect(live!.data.document.title).to.equal('after reset');
  });

  it('sends nothing for a collection no one writes to, and keeps the connection with heartbeats', async () => {
    await createCollectionFixture(writer.services, fx.project.id, { name: 'quiet' });
    const quiet = await SseStream.open(streamUrl(reader.url, 'quiet', { key: fx.publishableKey }));
    streams.push(quiet);
    await quiet.waitFor(1, ['ready']);
    await secret.post('/api/data/posts', { title: 'elsewhere' });
    await pause(300);
    expect(quiet.documents()).to.have.length(0);
  });

  it('makes no event-log call for writes to a collection nobody streams; the first subscriber, in another process, gets the next write', async () => {
    await createCollectionFixture(writer.services, fx.project.id, { name: 'unwatched' });
    const log = writer.deps.cache.eventLog;
    const append = log.append;
    const appended: string[] = [];
    log.append = (stream, payload, limits) => {
      appended.push(stream);
      return append(stream, payload, limits);
    };
    try {
      for (let i = 0; i < 20; i++) {
        expect((await secret.post('/api/data/unwatched', { n: i })).status).to.equal(201);
      }
      await pause(100);
      expect(appended, 'appends while nobody listens').to.deep.equal([]);

      // Opened on the reader: the writer learns of it over the bus before the open is answered.
      const stream = await SseStream.open(streamUrl(reader.url, 'unwatched', { key: fx.publishableKey }));
      streams.push(stream);
      await stream.waitFor(1, ['ready']);
      const created = await secret.post('/api/data/unwatched', { n: 20 });
      const [event] = await stream.waitFor(1, ['document.created']);
      expect(event!.data.document).to.deep.equal(created.body.data);
      expect(appended).to.have.length(1);
    } finally {
      log.append = append;
    }
  });
});

describe('realtime: one process without Redis', () => {
  let app: TestApp;
  before(async () => {
    app = await startTestApp('public', 'realtime_mem', { REDIS_URL: '', REALTIME_HEARTBEAT_MS: '100' });
  });
  after(() => app.close());

  it('delivers events and replays through the in-process bus, with heartbeats', async () => {
    expect(app.deps.cache.kind).to.equal('memory');
    const fx = await createProjectFixture(app.services);
    await createCollectionFixture(app.services, fx.project.id, { name: 'posts' });
    const secret = app.client.with({ 'x-api-key': fx.secretKey });
    const stream = await SseStream.open(streamUrl(app.url, 'posts'), { 'x-api-key': fx.secretKey });
    try {
      const [ready] = await stream.waitFor(1, ['ready']);
      await secret.post('/api/data/posts', { title: 'in memory' });
      const [event] = await stream.waitFor(1, ['document.created']);
      expect(event!.data.document.title).to.equal('in memory');
      await stream.waitComments(2);
      stream.close();
      const again = await SseStream.open(streamUrl(app.url, 'posts'), {
        'x-api-key': fx.secretKey,
        'last-event-id': ready!.id!,
      });
      try {
        await again.waitFor(1, ['ready']);
        expect(again.documents().map((e) => e.data.document.title)).to.deep.equal(['in memory']);
      } finally {
        again.close();
      }
    } finally {
      stream.close();
    }
  });
});
