// TTL indexes delete documents for good and send no event: only project admins may declare one
// (a member gets 403 ADMIN_ONLY, the secret key may), and the worker's sweep deletes in batches
// with an equal share of each run per project, so one project's backlog does not hold back another's.
import { expect } from 'chai';
import { startTestApps } from '../helpers/app.js';
import { createDeveloper, createProjectFixture, type ProjectFixture } from '../helpers/fixtures.js';
import type { ApiClient } from '../helpers/client.js';
import { ttlSweepJob } from '../../src/jobs/ttl-sweep.js';

describe('TTL indexes: who may declare them, and a fair sweep', () => {
  let apps: Awaited<ReturnType<typeof startTestApps>>;
  const fields = [
    { name: 'n', type: 'Number' },
    { name: 'expiresAt', type: 'Date' },
  ];
  const TTL = { keys: [{ field: 'expiresAt' }], expireAfterSeconds: 60 };
  before(async () => {
    apps = await startTestApps('ttl_indexes');
  });
  after(() => apps.close());

  const dashOf = (cookie: string) => apps.dashboard.client.with({ cookie });
  const secretOf = (p: ProjectFixture) => apps.public.client.with({ 'x-api-key': p.secretKey });
  const base = (p: ProjectFixture) => `/api/projects/${p.project.id}/collections`;

  it('lets only project admins declare a TTL index; a member gets 403 ADMIN_ONLY and may declare plain ones', async () => {
    const p = await createProjectFixture(apps.dashboard.services, 'TTL roles');
    const member = await createDeveloper(apps.dashboard.services);
    await apps.dashboard.services.repos.projects.addMember(p.project.id, member.developer.id, 'member');
    const admin: ApiClient = dashOf(p.cookie);
    const asMember: ApiClient = dashOf(member.cookie);
    expect((await admin.post(base(p), { name: 'events', mode: 'schema', fields })).status).to.equal(201);

    const refused = await asMember.post(`${base(p)}/events/indexes`, TTL);
    expect(refused.status, refused.text).to.equal(403);
    expect(refused.body).to.include({
      code: 'ADMIN_ONLY',
      message: 'Only project admins may declare a TTL index (expireAfterSeconds): it deletes documents',
    });
    const inBody = await asMember.post(base(p), { name: 'logs', mode: 'schema', fields, indexes: [TTL] });
    expect(inBody.status).to.equal(403);
    expect(inBody.body.code).to.equal('ADMIN_ONLY');
    expect((await admin.get(`${base(p)}/logs`)).status, 'nothing created').to.equal(404);
    expect((await admin.get(`${base(p)}/events`)).body.data.collection.indexes).to.deep.equal([]);

    const plain = await asMember.post(`${base(p)}/events/indexes`, { keys: [{ field: 'n' }] });
    expect(plain.status, plain.text).to.equal(201);
    expect((await admin.post(`${base(p)}/events/indexes`, TTL)).status).to.equal(201);
    const bySecret = await secretOf(p).post('/api/schemas', {
      name: 'logs',
      mode: 'schema',
      fields,
      indexes: [TTL],
    });
    expect(bySecret.status, bySecret.text).to.equal(201);
  });

  it('gives each project an equal share of a run, deleting in batches', async function () {
    this.timeout(60_000);
    const expired = new Date(Date.now() - 3600_000).toISOString();
    const fill = async (p: ProjectFixture, collection: string) => {
      const created = await secretOf(p).post('/api/schemas', {
        name: collection,
        mode: 'schema',
        fields,
        indexes: [TTL],
      });
      expect(created.status, created.text).to.equal(201);
      const documents = Array.from({ length: 60 }, (_, n) => ({ n, expiresAt: expired }));
      expect((await secretOf(p).post(`/api/data/${collection}/bulk`, { documents })).status).to.equal(201);
    };
    const count = async (p: ProjectFixture, collection: string) =>
      (await secretOf(p).get(`/api/data/${collection}`, { query: { count: 'true' } })).body.data.count;
    // `big` has two collections of expired documents, `small` one, and the first test's project
    // TTL indexes with nothing expired: the run's budget of 40 goes 20 and 20.
    const big = await createProjectFixture(apps.dashboard.services, 'Big backlog');
    const small = await createProjectFixture(apps.dashboard.services, 'Small backlog');
    await fill(big, 'a');
    await fill(big, 'b');
    await fill(small, 'c');
    const sweep = ttlSweepJob(apps.public.deps, apps.public.services, undefined, {
      budget: 40,
      batch: 7,
      minShare: 1,
    });
    const first = await sweep.sweep();
    expect(first.removed).to.equal(40);
    expect(first.byProject).to.deep.equal({ [big.project.id]: 20, [small.project.id]: 20 });
    const [a, b] = [await count(big, 'a'), await count(big, 'b')];
    expect(a + b, "the big project's two collections together").to.equal(100);
    expect(a, 'each collection of a project has its part').to.be.below(60);
    expect(b).to.be.below(60);
    expect(await count(small, 'c')).to.equal(40);
    // Runs go on until every backlog is gone, whichever project is served first.
    for (let run = 0; run < 10; run++) await sweep.sweep();
    expect([await count(big, 'a'), await count(big, 'b'), await count(small, 'c')]).to.deep.equal([0, 0, 0]);
  });
});
