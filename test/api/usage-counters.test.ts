// The usage counters stay true (DECISIONS §5): deleting a collection gives its documents' size
// back, end users are charged like documents and refused at the limit, and the recount repairs
// a counter that drifted. Both roles over one platform database, as in a deployment.
import { expect } from 'chai';
import { startTestApps } from '../helpers/app.js';
import {
  contextFor,
  createDeveloper,
  createProjectFixture,
  type ProjectFixture,
} from '../helpers/fixtures.js';
import { USER_FIELDS } from '../helpers/user-auth.js';
import type { ApiClient } from '../helpers/client.js';
import { usageRecountJob } from '../../src/jobs/usage-recount.js';

type Apps = Awaited<ReturnType<typeof startTestApps>>;

describe('usage counters', () => {
  let apps: Apps;
  let operator: ApiClient;
  let p: ProjectFixture;
  let dashboard: ApiClient;
  let secret: ApiClient;
  let publishable: ApiClient;
  let n = 0;

  const usage = async () => (await apps.public.services.repos.projects.usage(p.project.id)).databaseUsed;
  /** The stored size of every document of the project's database, read raw. */
  const stored = () => apps.public.services.documents.databaseSize(p.project.id);
  const signup = (extra: Record<string, unknown> = {}) =>
    publishable.post('/api/userAuth/signup', {
      email: `user-${++n}@example.test`,
      password: 'correct horse battery',
      ...extra,
    });

  before(async () => {
    apps = await startTestApps('usage_counters', { USER_AUTH_SIGNUPS_PER_HOUR: '10000' });
    operator = apps.dashboard.client.with({
      cookie: (await createDeveloper(apps.dashboard.services)).cookie,
    });
    p = await createProjectFixture(apps.dashboard.services);
    dashboard = apps.dashboard.client.with({ cookie: p.cookie });
    secret = apps.public.client.with({ 'x-api-key': p.secretKey });
    publishable = apps.public.client.with({ 'x-api-key': p.publishableKey });
    await apps.dashboard.services.collections.create(contextFor({ developer: p.developer }), p.project.id, {
      name: 'users',
      mode: 'schema',
      fields: USER_FIELDS,
    });
  });
  after(async () => {
    await apps.public.deps.db
      .project(p.project.id)
      .dropDatabase()
      .catch(() => undefined);
    await apps.close();
  });

  it('deleting a collection gives back the size of its documents, trashed ones included', async () => {
    const start = await usage();
    const created = await dashboard.post(`/api/projects/${p.project.id}/collections`, {
      name: 'products',
      fields: [{ name: 'slug', type: 'String', unique: true }],
    });
    expect(created.status).to.equal(201);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await secret.post('/api/data/products', { slug: `p${i}`, text: 'x'.repeat(500) });
      expect(res.status).to.equal(201);
      ids.push(res.body.data._id);
    }
    await secret.delete(`/api/data/products/${ids[0]}`);
    await secret.put(`/api/data/products/${ids[1]}`, { text: 'y'.repeat(900) });
    expect(await usage()).to.be.greaterThan(start + 2500);
    expect(await usage()).to.equal(await stored());

    const deleted = await dashboard.delete(`/api/projects/${p.project.id}/collections/products`);
    expect(deleted.status).to.equal(200);
    expect(await usage()).to.equal(start);
    expect(await usage()).to.equal(await stored());
  });

  it('charges sign-ups and profile updates, and refuses a sign-up or a growing profile at the limit with 403 QUOTA_EXCEEDED', async () => {
    const start = await usage();
    const first = await signup({ name: 'Ada' });
    expect(first.status).to.equal(201);
    const afterSignup = await usage();
    expect(afterSignup).to.be.greaterThan(start + 100);
    expect(afterSignup).to.equal(await stored());

    const bearer = publishable.with({ authorization: `Bearer ${first.body.data.accessToken}` });
    const updated = await bearer.put('/api/userAuth/update-profile', { bio: 'b'.repeat(300) });
    expect(updated.status).to.equal(200);
    expect((await usage()) - afterSignup).to.be.greaterThan(300);
    expect(await usage()).to.equal(await stored());
    await bearer.put('/api/userAuth/update-profile', { bio: 'short' });
    expect(await usage()).to.equal(await stored());

    // The operator lowers the project's database size to what it uses now: no room for anyone.
    const limited = await operator.put(`/api/admin/projects/${p.project.id}/limits`, {
      limits: { databaseBytes: await usage() },
    });
    expect(limited.status).to.equal(200);
    const refused = await signup();
    expect(refused.status).to.equal(403);
    expect(refused.body.code).to.equal('QUOTA_EXCEEDED');
    expect(await usage()).to.equal(await stored()); // nothing written, nothing charged
    // A profile change that would grow the user past the limit is refused too; one that shrinks it is not.
    const grown = await bearer.put('/api/userAuth/update-profile', { bio: 'g'.repeat(400) });
    expect(grown.status).to.equal(403);
    expect(grown.body.code).to.equal('QUOTA_EXCEEDED');
    expect(await usage()).to.equal(await stored());
    expect((await bearer.put('/api/userAuth/update-profile', { bio: 's' })).status).to.equal(200);
    expect(await usage()).to.equal(await stored());

    await operator.put(`/api/admin/projects/${p.project.id}/limits`, { limits: {} });
    expect((await signup()).status).to.equal(201);
    expect(await usage()).to.equal(await stored());
  });

  it('charges disabling and enabling an end user, so deleting them later gives back exactly what was charged', async () => {
    const user = await signup();
    expect(user.status).to.equal(201);
    const id = user.body.data.user._id;
    expect((await secret.post(`/api/users/${id}/disable`)).status).to.equal(200);
    expect(await usage()).to.equal(await stored());
    expect((await dashboard.post(`/api/projects/${p.project.id}/users/${id}/enable`)).status).to.equal(200);
    expect(await usage()).to.equal(await stored());
    expect((await secret.post(`/api/users/${id}/disable`)).status).to.equal(200);
    expect((await secret.delete(`/api/users/${id}`)).status).to.equal(200);
    expect(await usage()).to.equal(await stored());
  });

  it('the recount repairs a counter corrupted by hand, logs it, and is idempotent', async () => {
    await secret.post('/api/data/users_notes', {}); // an unregistered collection: 404, nothing stored
    const truth = await stored();
    const projects = apps.public.services.repos.projects;
    await projects.addDatabaseUsed(p.project.id, 60 * 1024 * 1024 - truth); // past the Free 50 MB
    await projects.releaseStorage(p.project.id, -12345); // storage too: 12345 bytes of no file
    const stuck = await signup();
    expect(stuck.status).to.equal(403);
    expect(stuck.body.code).to.equal('QUOTA_EXCEEDED');

    const job = usageRecountJob(apps.public.deps, apps.public.services);
    const result = await job.recountProject(p.project.id);
    expect(result).to.deep.include({
      status: 'corrected',
      after: { databaseUsed: truth, storageUsed: 0 },
    });
    expect(await projects.usage(p.project.id)).to.deep.equal({ databaseUsed: truth, storageUsed: 0 });
    expect((await signup()).status).to.equal(201);

    const again = await job.recountProject(p.project.id);
    expect(again.status).to.equal('exact');
    const report = await job.recount();
    expect(report).to.include({ corrected: 0, busy: 0, failed: 0 });
    expect(report.projects).to.be.at.least(1);
  });

  it('the recount is one of the worker jobs', async () => {
    const { workerJobs } = await import('../../src/jobs/worker.js');
    expect(workerJobs(apps.public.deps, apps.public.services).map((job) => job.name)).to.include(
      'usage-recount',
    );
  });
});
