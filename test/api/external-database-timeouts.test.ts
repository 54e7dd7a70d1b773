// A project whose own database accepts connections and never answers a query (the fake replica
// set made silent: it still says hello, so the pool opens and server selection succeeds). Its
// clients get a 504 EXTERNAL_DB_TIMEOUT within the deadline on every data operation while a
// project on the managed database keeps being served, and on every operation on its end users'
// accounts (public and dashboard), and on its collections, indexes and imports; in the worker, another project's webhook
// is delivered, a backup runs, and the TTL sweep and the trash purge finish while the silent
// project's tasks are stuck; the silent project's unconfirmed webhook intents are checked, each
// failure counted, and dropped after WEBHOOK_INTENT_MAX_FAILURES.
import { expect } from 'chai';
import { ObjectId } from 'mongodb';
import { startTestApps } from '../helpers/app.js';
import {
  createCollectionFixture,
  createProjectFixture,
  userToken,
  type ProjectFixture,
} from '../helpers/fixtures.js';
import { startFakeReplicaSet, type FakeReplicaSet } from '../helpers/fake-replica-set.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';
import { USER_FIELDS } from '../helpers/user-auth.js';
import { codeOf, mailbox } from '../helpers/mail.js';
import { authTokensRepo } from '../../src/db/auth-tokens.js';
import { sha256 } from '../../src/lib/secrets.js';
import { startTestWorker } from '../helpers/worker.js';
import { backupRunner } from '../../src/jobs/backup-runner.js';
import { ttlSweepJob } from '../../src/jobs/ttl-sweep.js';
import { trashPurgeJob } from '../../src/jobs/trash-purge.js';

const DEADLINE_MS = 1000;
const TASK_MS = 2500;
const MAX_FAILURES = 3;
const SETTINGS = {
  ALLOW_PRIVATE_HOSTS: 'true',
  EXTERNAL_DB_TIMEOUT_MS: String(DEADLINE_MS),
  WORKER_TASK_TIMEOUT_MS: String(TASK_MS),
  WEBHOOK_INTENT_GRACE: '100ms',
  WEBHOOK_INTENT_MAX_FAILURES: String(MAX_FAILURES),
  WEBHOOK_TIMEOUT_MS: '1000',
  WEBHOOK_LEASE_MS: '1500',
};
const DAY = 86_400_000;
const TTL_INDEX = [
  {
    name: 'expiry',
    keys: [{ field: 'at', direction: 1 as const }],
    unique: false,
    expireAfterSeconds: 60,
    createdAt: new Date(),
  },
];

type Call = [string, () => Promise<{ status: number; text: string; body: any }>];

/** Sends every call at once; each must answer 504 EXTERNAL_DB_TIMEOUT. Their times, by name. */
async function allTimeOut(calls: Call[]): Promise<Record<string, number>> {
  const timings: Record<string, number> = {};
  await Promise.all(
    calls.map(async ([name, call]) => {
      const started = Date.now();
      const res = await call();
      timings[name] = Date.now() - started;
      expect(res.status, `${name}: ${res.text}`).to.equal(504);
      expect(res.body).to.include({ success: false, code: 'EXTERNAL_DB_TIMEOUT' });
      expect(res.body.message).to.match(/own database did not answer in time/);
    }),
  );
  return timings;
}

describe('external database that never answers', function () {
  this.timeout(90_000);
  let rs: FakeReplicaSet;
  let receiver: Receiver;
  let apps: Awaited<ReturnType<typeof startTestApps>>;
  let silent: ProjectFixture;
  let managed: ProjectFixture;
  let third: ProjectFixture;
  /** On the silent database too, with no collection: the users collection's one call meets it. */
  let bare: ProjectFixture;

  const hook = async (fx: ProjectFixture, path: string) => {
    const res = await apps.dashboard.client
      .with({ cookie: fx.cookie })
      .post(`/api/projects/${fx.project.id}/webhooks`, {
        url: receiver.url(path),
        events: ['document.created'],
      });
    expect(res.status, res.text).to.equal(201);
    receiver.secret(path, res.body.data.secret);
  };
  const outbox = (projectId: string) =>
    apps.public.deps.db.platform
      .collection('webhook_deliveries')
      .find({ projectId: new ObjectId(projectId) })
      .toArray();

  before(async () => {
    rs = await startFakeReplicaSet();
    receiver = await startReceiver();
    apps = await startTestApps('extdb_timeouts', SETTINGS);
    const { services } = apps.public;
    [silent, managed, third, bare] = await Promise.all([
      createProjectFixture(apps.dashboard.services, 'Silent'),
      createProjectFixture(apps.dashboard.services, 'Managed'),
      createProjectFixture(apps.dashboard.services, 'Third'),
      createProjectFixture(apps.dashboard.services, 'Bare'),
    ]);
    for (const [fx, db] of [
      [silent, 'shop'],
      [bare, 'bare'],
    ] as const) {
      const saved = await apps.dashboard.client
        .with({ cookie: fx.cookie })
        .put(`/api/projects/${fx.project.id}/database`, { uri: `mongodb://${rs.self}/${db}` });
      expect(saved.status, saved.text).to.equal(200);
    }
    for (const fx of [silent, managed, third]) {
      await createCollectionFixture(services, fx.project.id, { name: 'posts' });
      await createCollectionFixture(services, fx.project.id, { name: 'events', indexes: TTL_INDEX });
    }
    for (const name of ['upd_a', 'upd_b', 'gone_a', 'gone_b', 'imp_a', 'imp_b', 'idx_a', 'idx_b'])
      await createCollectionFixture(services, silent.project.id, { name });
    // A plain declared index, not a TTL one: the worker's TTL sweep below meets only `events`.
    const plain = [{ ...TTL_INDEX[0]!, name: 'by_title', expireAfterSeconds: undefined }];
    for (const name of ['drop_a', 'drop_b'])
      await createCollectionFixture(services, silent.project.id, { name, indexes: plain });
    await createCollectionFixture(services, silent.project.id, {
      name: 'users',
      mode: 'schema',
      fields: USER_FIELDS,
    });
    await hook(silent, '/silent');
    await hook(third, '/third');
    const db = apps.public.deps.db.project(managed.project.id);
    await db.collection('events').insertOne({ at: new Date(Date.now() - DAY), title: 'expired' });
    await db
      .collection('posts')
      .insertMany([
        { title: 'kept' },
        { title: 'trashed long ago', isDeleted: true, deletedAt: new Date(Date.now() - 40 * DAY) },
      ]);
    rs.silent = true;
  });
  after(async () => {
    await apps?.close();
    await receiver?.close();
    await rs?.close();
  });

  it('answers every data operation with 504 EXTERNAL_DB_TIMEOUT within the deadline, and serves the managed project meanwhile', async () => {
    const api = apps.public.client.with({ 'x-api-key': silent.secretKey });
    const id = new ObjectId().toHexString();
    const calls: Call[] = [
      ['listDocuments', () => api.get('/api/data/posts')],
      ['createDocument', () => api.post('/api/data/posts', { title: 'never answered' })],
      ['getDocument', () => api.get(`/api/data/posts/${id}`)],
      ['updateDocument', () => api.put(`/api/data/posts/${id}`, { title: 'x' })],
      ['patchDocument', () => api.patch(`/api/data/posts/${id}`, { title: 'x' })],
      ['deleteDocument', () => api.delete(`/api/data/posts/${id}`)],
      ['restoreDocument', () => api.post(`/api/data/posts/${id}/restore`)],
      [
        'createDocuments',
        () => api.post('/api/data/posts/bulk', { documents: [{ title: 'a' }, { title: 'b' }] }),
      ],
      ['deleteDocuments', () => api.post('/api/data/posts/bulk/delete', { ids: [id] })],
      ['restoreDocuments', () => api.post('/api/data/posts/bulk/restore', { ids: [id] })],
      ['aggregateDocuments', () => api.post('/api/data/posts/aggregate', { pipeline: [{ $match: {} }] })],
    ];
    const other = apps.public.client.with({ 'x-api-key': managed.secretKey });
    let stop = false;
    const servedMs: number[] = [];
    const servedMeanwhile = (async () => {
      while (!stop) {
        const started = Date.now();
        const res = await other.get('/api/data/posts');
        expect(res.status, res.text).to.equal(200);
        servedMs.push(Date.now() - started);
        await new Promise((r) => setTimeout(r, 50)); // under the plan's request limit
      }
    })();
    let timings: Record<string, number>;
    try {
      timings = await allTimeOut(calls);
    } finally {
      stop = true;
      await servedMeanwhile;
    }
    for (const [name, ms] of Object.entries(timings)) {
      expect(ms, `${name} answered after ${ms} ms`).to.be.within(DEADLINE_MS - 50, DEADLINE_MS + 3000);
    }
    expect(servedMs.length, 'managed project requests answered meanwhile').to.be.greaterThan(3);
    expect(Math.max(...servedMs), 'slowest managed request (ms)').to.be.below(2 * DEADLINE_MS);
    console.log(
      `      504 after ${JSON.stringify(timings)} ms; ${servedMs.length} managed lists, slowest ${Math.max(...servedMs)} ms`,
    );
    expect(rs.commands, 'the silent server did receive the operations').to.be.greaterThan(calls.length - 1);
  });

  it("answers every operation on the end users' accounts with 504 EXTERNAL_DB_TIMEOUT within the deadline", async () => {
    const { services } = apps.public;
    const key = apps.public.client.with({ 'x-api-key': silent.secretKey });
    const userId = new ObjectId().toHexString();
    const bearer = key.with({
      authorization: `Bearer ${await userToken(services, silent.project.id, userId)}`,
    });
    const dash = apps.dashboard.client.with({ cookie: silent.cookie });
    const users = `/api/projects/${silent.project.id}/users`;
    const email = 'someone@example.com';
    const password = 'Correct-Horse-9';
    // What the platform holds lets these reach the account: a session, two mailed codes and a
    // social log-in's exchange code (only the account lives in the silent database).
    const { refreshToken } = await services.userAuth.sessions.start(silent.project.id, userId);
    const codes: Record<string, { email: string; otp: string }> = {};
    for (const purpose of ['verify-email', 'password-reset'] as const) {
      const address = `${purpose}-${new ObjectId().toHexString()}@example.com`;
      const inbox = mailbox(address);
      await services.userAuth.codes.issue(silent.project, purpose, address, apps.public.deps.log);
      codes[purpose] = { email: address, otp: codeOf(await inbox.next()) };
    }
    const exchangeCode = 'exchange-' + new ObjectId().toHexString();
    await authTokensRepo(apps.public.deps.db.platform).putGrant(
      sha256(exchangeCode),
      { kind: 'exchange', projectId: silent.project.id, userId },
      60_000,
    );
    const calls: Call[] = [
      ['signupEndUser', () => key.post('/api/userAuth/signup', { email, password })],
      ['loginEndUser', () => key.post('/api/userAuth/login', { email, password })],
      ['getEndUserProfile', () => bearer.get('/api/userAuth/me')],
      ['updateEndUserProfile', () => bearer.put('/api/userAuth/update-profile', { name: 'Ada' })],
      [
        'changeEndUserPassword',
        () =>
          bearer.put('/api/userAuth/change-password', {
            currentPassword: password,
            newPassword: `${password}!`,
          }),
      ],
      ['refreshEndUserToken', () => key.post('/api/userAuth/refresh-token', { refreshToken })],
      ['requestEndUserPasswordReset', () => key.post('/api/userAuth/request-password-reset', { email })],
      ['resendEndUserVerification', () => key.post('/api/userAuth/resend-verification-otp', { email })],
      ['verifyEndUserEmail', () => key.post('/api/userAuth/verify-email', codes['verify-email'])],
      [
        'resetEndUserPassword',
        () =>
          key.post('/api/userAuth/reset-password', {
            ...codes['password-reset'],
            newPassword: `${password}!`,
          }),
      ],
      [
        'exchangeSocialLoginCode',
        () => key.post('/api/userAuth/social/exchange', { code: exchangeCode, codeVerifier: 'v'.repeat(43) }),
      ],
      ['getEndUserPublicProfile', () => key.get('/api/userAuth/public/ada')],
      ['listUsers', () => key.get('/api/users')],
      ['getUser', () => key.get(`/api/users/${userId}`)],
      ['updateUser', () => key.patch(`/api/users/${userId}`, { name: 'Ada' })],
      ['deleteUser', () => key.delete(`/api/users/${userId}`)],
      ['disableUser', () => key.post(`/api/users/${userId}/disable`)],
      ['enableUser', () => key.post(`/api/users/${userId}/enable`)],
      ['revokeUserSessions', () => key.post(`/api/users/${userId}/revoke-sessions`)],
      ['listProjectUsers', () => dash.get(users)],
      ['getProjectUser', () => dash.get(`${users}/${userId}`)],
      ['updateProjectUser', () => dash.patch(`${users}/${userId}`, { name: 'Ada' })],
      ['deleteProjectUser', () => dash.delete(`${users}/${userId}`)],
      ['disableProjectUser', () => dash.post(`${users}/${userId}/disable`)],
      ['enableProjectUser', () => dash.post(`${users}/${userId}/enable`)],
      ['revokeProjectUserSessions', () => dash.post(`${users}/${userId}/revoke-sessions`)],
    ];
    const timings = await allTimeOut(calls);
    for (const [name, ms] of Object.entries(timings)) {
      expect(ms, `${name} answered after ${ms} ms`).to.be.within(DEADLINE_MS - 50, DEADLINE_MS + 3000);
    }
    console.log(
      `      end users: 504 after ${Math.min(...Object.values(timings))} to ${Math.max(...Object.values(timings))} ms`,
    );
  });

  it('answers every operation on collections, indexes and imports with 504 EXTERNAL_DB_TIMEOUT', async () => {
    const key = apps.public.client.with({ 'x-api-key': silent.secretKey });
    const dash = apps.dashboard.client.with({ cookie: silent.cookie });
    const base = `/api/projects/${silent.project.id}`;
    const index = (name: string) => ({ name, keys: [{ field: 'title', direction: 1 }] });
    const unique = { mode: 'schema', fields: [{ name: 'title', type: 'String', unique: true }] };
    const ndjson = { rawBody: '{"title":"a"}\n', headers: { 'content-type': 'application/x-ndjson' } };
    // Each on a collection of its own (made in before()), so that no two race for one.
    const calls: Call[] = [
      [
        'createCollection',
        () => dash.post(`${base}/collections`, { name: 'fresh_a', mode: 'flexible', fields: [] }),
      ],
      ['updateCollection', () => dash.put(`${base}/collections/upd_a`, unique)],
      ['deleteCollection', () => dash.delete(`${base}/collections/gone_a`)],
      ['createCollectionIndex', () => dash.post(`${base}/collections/idx_a/indexes`, index('by_a'))],
      ['dropCollectionIndex', () => dash.delete(`${base}/collections/drop_a/indexes/by_title`)],
      ['getCollectionSizes', () => dash.get(`${base}/collection-sizes`)],
      [
        'createUsersCollection',
        () =>
          apps.dashboard.client
            .with({ cookie: bare.cookie })
            .post(`/api/projects/${bare.project.id}/users-collection`),
      ],
      ['importCollection', () => dash.request('POST', `${base}/collections/imp_a/import`, ndjson)],
      [
        'createCollectionSchema',
        () => key.post('/api/schemas', { name: 'fresh_b', mode: 'flexible', fields: [] }),
      ],
      ['updateCollectionSchema', () => key.put('/api/schemas/upd_b', unique)],
      ['deleteCollectionSchema', () => key.delete('/api/schemas/gone_b')],
      ['createSchemaIndex', () => key.post('/api/schemas/idx_b/indexes', index('by_b'))],
      ['dropSchemaIndex', () => key.delete('/api/schemas/drop_b/indexes/by_title')],
      ['importProjectCollection', () => key.request('POST', '/api/collections/imp_b/import', ndjson)],
    ];
    const timings = await allTimeOut(calls);
    for (const [name, ms] of Object.entries(timings)) {
      // An import's write and the removal of what it wrote each wait their deadline.
      const most = name.startsWith('import') ? 3 * DEADLINE_MS + 3000 : DEADLINE_MS + 3000;
      expect(ms, `${name} answered after ${ms} ms`).to.be.within(DEADLINE_MS - 50, most);
    }
    const all = Object.values(timings);
    console.log(
      `      collections, indexes, imports: 504 after ${Math.min(...all)} to ${Math.max(...all)} ms`,
    );
  });

  it('keeps the worker serving other projects and gives up the silent project’s intents after the failure limit', async () => {
    // The 504 create and bulk create left their intents: the write may have landed.
    const intents = (await outbox(silent.project.id)).filter((row) => row.status === 'intent');
    expect(intents.length, 'intents left by the timed-out creates').to.equal(3);

    // The silent project's backup is queued first: the single backup lane meets it first.
    const dashSilent = apps.dashboard.client.with({ cookie: silent.cookie });
    const dashManaged = apps.dashboard.client.with({ cookie: managed.cookie });
    const silentBackup = (await dashSilent.post(`/api/projects/${silent.project.id}/backups`, {})).body.data
      .backup.id as string;
    const managedBackup = (await dashManaged.post(`/api/projects/${managed.project.id}/backups`, {})).body
      .data.backup.id as string;

    const worker = await startTestWorker(apps.public.deps.config.platformDb, SETTINGS);
    const failuresSeen = new Set<number>();
    try {
      const started = Date.now();
      const { deps, services } = apps.dashboard;
      const created = await apps.public.client
        .with({ 'x-api-key': third.secretKey })
        .post('/api/data/posts', { title: 'delivered anyway' });
      expect(created.status).to.equal(201);
      const [delivered, ran, ttl, purge] = await Promise.all([
        receiver
          .waitFor(() => receiver.on('/third').find((r) => r.completed), 15_000)
          .then((r) => ({
            ...r,
            ms: Date.now() - started,
          })),
        backupRunner(deps, services).drain(),
        ttlSweepJob(deps, services).sweep(),
        trashPurgeJob(deps, services, () => new Date()).purge(),
      ]);
      const workerMs = Date.now() - started;
      expect(delivered.verified).to.equal(true);
      expect(delivered.payload).to.deep.include({ event: 'document.created' });
      expect(ran).to.equal(2);
      expect(ttl.removed, 'the managed project’s expired document').to.equal(1);
      expect(purge.removed, 'the managed project’s old trash').to.equal(1);
      expect(workerMs, 'all of it within the task limit and a margin').to.be.below(TASK_MS + 3000);

      const backup = async (fx: ProjectFixture, id: string) =>
        (
          await apps.dashboard.client
            .with({ cookie: fx.cookie })
            .get(`/api/projects/${fx.project.id}/backups/${id}`)
        ).body.data.backup;
      expect((await backup(managed, managedBackup)).state).to.equal('done');
      const failed = await backup(silent, silentBackup);
      expect(failed.state).to.equal('failed');
      expect(failed.error).to.equal("the project's own database did not answer in time");
      console.log(
        `      webhook of another project delivered after ${delivered.ms} ms; backups, TTL, purge done after ${workerMs} ms; silent backup: ${failed.error}`,
      );

      // Each failed check is counted on the intents, and they go after MAX_FAILURES.
      const deadline = Date.now() + 30_000;
      let left = intents.length;
      while (Date.now() < deadline) {
        const rows = (await outbox(silent.project.id)).filter((row) => row.status === 'intent');
        for (const row of rows) failuresSeen.add(Number(row.intentFailures ?? 0));
        left = rows.length;
        if (!left) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(left, 'intents dropped').to.equal(0);
      // Counted on the intents as they fail (how many of the counts a 100 ms poll sees depends on
      // the machine's pace), and never past the limit: the next failure drops them.
      expect(Math.max(...failuresSeen)).to.equal(MAX_FAILURES - 1);
      expect(receiver.on('/silent'), 'nothing sent for an unknown outcome').to.have.length(0);
    } finally {
      await worker.stop();
    }
  });
});
