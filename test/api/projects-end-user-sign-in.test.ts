// A project created ready for end-user sign-in (createProject's `endUserSignIn`, issue 44), over
// HTTP: it has the users collection sign-in needs and a first sign-up with the publishable key
// succeeds at once; without it the spec's bare project stays; and when the collection cannot be
// made (a plan that allows none) neither is made: no project is left behind.
import { expect } from 'chai';
import { startTestApp, suiteDatabase, type TestApp } from '../helpers/app.js';
import { createDeveloper, createOperator } from '../helpers/fixtures.js';

describe('projects: created ready for end-user sign-in', () => {
  const shared = { PLATFORM_DB: suiteDatabase('project_sign_in') };
  let dashboard: TestApp;
  let publicApp: TestApp;
  let operator: Awaited<ReturnType<typeof createOperator>>;
  let dev: Awaited<ReturnType<typeof createDeveloper>>;

  before(async () => {
    dashboard = await startTestApp('dashboard', 'project_sign_in', shared);
    publicApp = await startTestApp('public', 'project_sign_in', shared);
    operator = await createOperator(dashboard.services);
    dev = await createDeveloper(dashboard.services);
  });
  after(async () => {
    await publicApp?.close();
    await dashboard?.close();
  });

  const signUp = (publishableKey: string) =>
    publicApp.client.with({ 'x-api-key': publishableKey }).post('/api/userAuth/signup', {
      email: 'first@example.test',
      password: 'correct horse battery',
      name: 'First',
    });

  it('makes the users collection, and a first sign-up with the publishable key succeeds', async () => {
    const created = await dashboard.client
      .with({ cookie: dev.cookie })
      .post('/api/projects', { name: 'Ready', endUserSignIn: true });
    expect(created.status, created.text).to.equal(201);
    const { project, keys } = created.body.data;
    const users = await dashboard.client
      .with({ cookie: dev.cookie })
      .get(`/api/projects/${project.id}/collections/users`);
    expect(users.status, users.text).to.equal(200);
    const fields = users.body.data.collection.fields as {
      name: string;
      type: string;
      required?: boolean;
      unique?: boolean;
    }[];
    expect(fields.map((f) => [f.name, f.type, Boolean(f.required), Boolean(f.unique)])).to.deep.equal([
      ['email', 'String', true, true],
      ['password', 'String', true, false],
      ['name', 'String', false, false],
    ]);
    const first = await signUp(keys.publishable);
    expect(first.status, first.text).to.equal(201);
    expect(first.body.data.user).to.include({ email: 'first@example.test', name: 'First' });
    expect(first.body.data.user).to.not.have.property('password');
  });

  it('keeps the bare project without it: sign-up is refused until a users collection is made', async () => {
    const created = await dashboard.client
      .with({ cookie: dev.cookie })
      .post('/api/projects', { name: 'Bare' });
    expect(created.status, created.text).to.equal(201);
    const list = await dashboard.client
      .with({ cookie: dev.cookie })
      .get(`/api/projects/${created.body.data.project.id}/collections`);
    expect(list.body.data.collections).to.deep.equal([]);
    const refused = await signUp(created.body.data.keys.publishable);
    expect(refused.status).to.equal(400);
    expect(refused.body.code).to.equal('USERS_COLLECTION_MISSING');
  });

  it('leaves no project behind when the collection cannot be made', async () => {
    const other = await createDeveloper(dashboard.services);
    const plans = await dashboard.client
      .with({ cookie: operator.cookie })
      .put('/api/admin/plans', { plans: { free: { limits: { collectionsPerProject: 0 } } } });
    expect(plans.status, plans.text).to.equal(200);
    try {
      const refused = await dashboard.client
        .with({ cookie: other.cookie })
        .post('/api/projects', { name: 'Half', endUserSignIn: true });
      expect(refused.status, refused.text).to.equal(403);
      expect(refused.body.code).to.equal('PLAN_LIMIT');
      const mine = await dashboard.client.with({ cookie: other.cookie }).get('/api/projects');
      expect(mine.body.data.projects).to.deep.equal([]);
    } finally {
      await dashboard.client
        .with({ cookie: operator.cookie })
        .put('/api/admin/plans', { plans: { free: { limits: { collectionsPerProject: 10 } } } });
    }
  });
});
