// The per-project request log: public API requests appear (time, method, path, status, duration,
// key kind, end user) in batches off the request path; members filter them by status class and
// path prefix and page through them; the count bound is driven past its edge, the age bound is
// swept; strangers get 404; the setting turns it off.
import { expect } from 'chai';
import { startTestApp, startTestApps, suiteDatabase } from '../helpers/app.js';
import type { ApiClient } from '../helpers/client.js';
import {
  createCollectionFixture,
  createDeveloper,
  createProjectFixture,
  userToken,
  type ProjectFixture,
} from '../helpers/fixtures.js';
import { requestLogsRepo } from '../../src/db/request-logs.js';
import { newId, ObjectId } from '../../src/db/ids.js';
import { LEASE_MS } from '../../src/cache/rate-lease.js';

const MAX = 8;

describe('request log', () => {
  let apps: Awaited<ReturnType<typeof startTestApps>>;
  let fx: ProjectFixture;
  let member: ApiClient;
  let secret: ApiClient;
  let path: string;
  /** Writes what the public role has buffered (it would within a second anyway). */
  const flushed = () => apps.public.services.requestLog.flush();

  before(async () => {
    apps = await startTestApps('request_log', { REQUEST_LOG_MAX_ENTRIES: String(MAX) });
    fx = await createProjectFixture(apps.dashboard.services);
    await createCollectionFixture(apps.dashboard.services, fx.project.id, { name: 'posts' });
    member = apps.dashboard.client.with({ cookie: fx.cookie });
    secret = apps.public.client.with({ 'x-api-key': fx.secretKey });
    path = `/api/projects/${fx.project.id}/request-log`;
  });
  after(() => apps?.close());

  it('logs public API requests with their key kind, end user, status and duration', async () => {
    const made = await secret.post('/api/data/posts', { title: 'Hello' });
    expect(made.status).to.equal(201);
    const token = await userToken(apps.public.services, fx.project.id, newId());
    const asUser = apps.public.client.with({
      'x-api-key': fx.publishableKey,
      authorization: `Bearer ${token}`,
    });
    expect((await asUser.get('/api/data/posts')).status).to.equal(200);
    expect((await secret.get('/api/data/posts/000000000000000000000000')).status).to.equal(404);
    // A request with an unknown key has no project: not logged anywhere.
    await apps.public.client.with({ 'x-api-key': 'pk_nothing' }).get('/api/data/posts');
    await flushed();

    const res = await member.get(path);
    expect(res.status, res.text).to.equal(200);
    expect(res.body.data.enabled).to.equal(true);
    const [notFound, userRead, create] = res.body.data.entries;
    expect(res.body.data.entries).to.have.length(3);
    expect(notFound).to.include({
      method: 'GET',
      path: '/api/data/posts/000000000000000000000000',
      status: 404,
    });
    expect(notFound.keyKind).to.equal('secret');
    expect(userRead).to.include({
      method: 'GET',
      path: '/api/data/posts',
      status: 200,
      keyKind: 'publishable',
    });
    expect(userRead.userId).to.be.a('string').with.length(24);
    expect(create).to.include({
      method: 'POST',
      status: 201,
      userId: null,
      requestId: made.headers.get('x-request-id'),
    });
    expect(create.durationMs).to.be.a('number').and.at.least(0);
    expect(Date.parse(create.at)).to.be.closeTo(Date.now(), 60_000);
  });

  it('filters by status class and path prefix, and pages with the cursor', async () => {
    const errors = await member.get(path, { query: { status: '4xx' } });
    expect(errors.body.data.entries.map((e: { status: number }) => e.status)).to.deep.equal([404]);
    const posts = await member.get(path, { query: { path: '/api/data/posts/' } });
    expect(posts.body.data.entries).to.have.length(1);
    const first = await member.get(path, { query: { limit: 2 } });
    expect(first.body.data.entries).to.have.length(2);
    expect(first.body.data.pagination.hasMore).to.equal(true);
    const second = await member.get(path, {
      query: { limit: 2, cursor: first.body.data.pagination.nextCursor },
    });
    expect(second.body.data.entries).to.have.length(1);
    expect(second.body.data.entries[0].method).to.equal('POST');
    expect(second.body.data.pagination).to.include({ hasMore: false, nextCursor: null });
    const bad = await member.get(path, { query: { cursor: 'nope' } });
    expect(bad.status).to.equal(400);
    expect(bad.body.code).to.equal('INVALID_CURSOR');
    const badClass = await member.get(path, { query: { status: '6xx' } });
    expect(badClass.status).to.equal(400);
  });

  it('keeps at most REQUEST_LOG_MAX_ENTRIES per project, the newest', async () => {
    for (let i = 0; i < MAX + 5; i++) await secret.get(`/api/data/posts?n=${i}`);
    await flushed();
    // Stored as one document per project and written batch: the entries are counted.
    const buckets = await apps.dashboard.deps.db.platform
      .collection('request_logs')
      .find({ projectId: fx.project.id })
      .toArray();
    const rows = buckets.map((b) => JSON.parse(b.entries) as unknown[]);
    expect(rows.reduce((sum, r) => sum + r.length, 0)).to.equal(MAX);
    expect(buckets.every((b, i) => b.count === rows[i]!.length)).to.equal(true);
    const res = await member.get(path, { query: { limit: 200 } });
    expect(res.body.data.entries).to.have.length(MAX);
    expect(res.body.data.entries.every((e: { path: string }) => e.path === '/api/data/posts')).to.equal(true);
  });

  it('pages newest first across buckets written by two processes, each entry once', async () => {
    const repo = requestLogsRepo(apps.dashboard.deps.db.platform);
    const projectId = newId();
    const now = Math.floor(Date.now() / 1000);
    // Ids as two processes make them (their own random part), written in interleaved batches.
    const ids = Array.from({ length: 12 }, (_, i) => {
      const hex = ObjectId.createFromTime(now - 60 + i).toHexString();
      return `${hex.slice(0, 8)}${i % 2 ? 'aaaaaaaaaa' : '0000000000'}${hex.slice(18)}`;
    });
    const entry = (id: string) => ({
      id,
      projectId,
      at: new Date(),
      method: 'GET',
      path: `/api/data/p${id.slice(-4)}`,
      status: 200,
      durationMs: 1,
      keyKind: 'secret' as const,
      userId: null,
      requestId: id,
    });
    for (const batch of [
      [0, 2, 4, 6],
      [1, 3, 5],
      [8, 7, 10],
      [9, 11],
    ])
      await repo.insertMany(batch.map((i) => entry(ids[i]!)));
    const seen: string[] = [];
    let before: string | undefined;
    for (let page = 0; page < 10; page++) {
      const rows = await repo.list(projectId, { since: new Date(Date.now() - 3_600_000), limit: 5, before });
      const shown = rows.slice(0, 5);
      seen.push(...shown.map((r) => r.id));
      if (rows.length <= 5) break;
      before = shown[shown.length - 1]!.id;
    }
    expect(seen).to.deep.equal([...ids].sort().reverse());
    expect(await repo.trim(projectId, 5)).to.equal(7);
    const kept = await repo.list(projectId, { since: new Date(Date.now() - 3_600_000), limit: 50 });
    expect(kept.map((r) => r.id)).to.deep.equal([...ids].sort().reverse().slice(0, 5));
  });

  it('lists past, and sweeps by age, documents of the format before buckets (one per request)', async () => {
    const platform = apps.dashboard.deps.db.platform.collection('request_logs');
    const oldFormat = (at: Date) => ({
      _id: ObjectId.createFromTime(Math.floor(at.getTime() / 1000)),
      projectId: fx.project.id,
      at,
      method: 'GET',
      path: '/api/data/legacy',
      status: 200,
      durationMs: 1,
      keyKind: 'secret',
      userId: null,
      requestId: 'legacy',
    });
    await platform.insertMany([oldFormat(new Date()), oldFormat(new Date(Date.now() - 8 * 86_400_000))]);
    const listed = await member.get(path, { query: { limit: 200 } });
    expect(listed.status).to.equal(200);
    expect(listed.body.data.entries.some((e: { requestId: string }) => e.requestId === 'legacy')).to.equal(
      false,
    );
    expect(await apps.dashboard.services.requestLog.sweep(new Date())).to.equal(1);
    expect(await platform.countDocuments({ requestId: 'legacy' })).to.equal(1);
    await platform.deleteMany({ requestId: 'legacy' });
  });

  it('sweeps entries past their age, and never lists them', async () => {
    const repo = requestLogsRepo(apps.dashboard.deps.db.platform);
    const old = new Date(Date.now() - 8 * 86_400_000);
    await repo.insertMany([
      {
        // An entry's age is its id's time (made when it is written).
        id: ObjectId.createFromTime(Math.floor(old.getTime() / 1000)).toHexString(),
        projectId: fx.project.id,
        at: old,
        method: 'GET',
        path: '/api/data/old',
        status: 200,
        durationMs: 1,
        keyKind: 'secret',
        userId: null,
        requestId: 'old',
      },
    ]);
    const listed = await member.get(path, { query: { path: '/api/data/old' } });
    expect(listed.body.data.entries).to.deep.equal([]);
    const deleted = await apps.dashboard.services.requestLog.sweep(new Date());
    expect(deleted).to.equal(1);
    expect(
      await apps.dashboard.deps.db.platform.collection('request_logs').countDocuments({ entries: /"old"/ }),
    ).to.equal(0);
  });

  it('logs requests the rate limit refused', async () => {
    await apps.public.services.repos.projects.setLimits(fx.project.id, { requestsPerMinute: 1 });
    // Requests leased from the bucket before (the test above made many) stay usable for LEASE_MS.
    await new Promise((r) => setTimeout(r, LEASE_MS + 100));
    try {
      let refused = 0;
      for (let i = 0; i < 4 && !refused; i++) {
        if ((await secret.get('/api/data/posts', { query: { limited: i } })).status === 429) refused++;
      }
      expect(refused).to.equal(1);
      await flushed();
      const res = await member.get(path, { query: { status: '4xx' } });
      expect(res.body.data.entries.map((e: { status: number }) => e.status)).to.include(429);
    } finally {
      await apps.public.services.repos.projects.setLimits(fx.project.id, {});
    }
  });

  it('answers 401 signed out and 404 to strangers', async () => {
    expect((await apps.dashboard.client.get(path)).status).to.equal(401);
    const stranger = await createDeveloper(apps.dashboard.services);
    expect((await apps.dashboard.client.with({ cookie: stranger.cookie }).get(path)).status).to.equal(404);
  });

  it('logs nothing with REQUEST_LOG_ENABLED=false', async () => {
    const app = await startTestApp('public', 'request_log_off', {
      PLATFORM_DB: suiteDatabase('request_log_off'),
      REQUEST_LOG_ENABLED: 'false',
    });
    try {
      const own = await createProjectFixture(app.services);
      await createCollectionFixture(app.services, own.project.id, { name: 'posts' });
      await app.client.with({ 'x-api-key': own.secretKey }).get('/api/data/posts');
      await app.services.requestLog.flush();
      expect(await app.deps.db.platform.collection('request_logs').countDocuments({})).to.equal(0);
      expect(app.services.requestLog.enabled).to.equal(false);
    } finally {
      await app.close();
    }
  });
});
