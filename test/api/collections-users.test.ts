// The dashboard's one click for the `users` collection (createUsersCollection), over HTTP: the
// server makes it from its own sign-in definition, after which a first sign-up with the
// publishable key succeeds; it is made once (409 after), by project admins only, and within the
// plan's collection count exactly as createCollection is, leaving nothing behind when refused.
import { expect } from 'chai';
import { startTestApps } from '../helpers/app.js';
import { createDeveloper, createProjectFixture, type ProjectFixture } from '../helpers/fixtures.js';

describe('collections: the users collection in one call (dashboard)', () => {
  let apps: Awaited<ReturnType<typeof startTestApps>>;
  const url = (projectId: string) => `/api/projects/${projectId}/users-collection`;
  const dash = (fx: { cookie: string }) => apps.dashboard.client.with({ cookie: fx.cookie });
  const collectionNames = async (fx: ProjectFixture) =>
    (await dash(fx).get(`/api/projects/${fx.project.id}/collections`)).body.data.collections.map(
      (c: { name: string }) => c.name,
    );
  // Listed unfiltered: the test stack's MongoDB-compatible server may ignore a name filter.
  /** Whether the project database holds a `users` collection. */
  const storedUsers = async (fx: ProjectFixture) =>
    (await apps.dashboard.deps.db.project(fx.project.id).listCollections().toArray()).some(
      (c) => c.name === 'users',
    );

  before(async () => {
    apps = await startTestApps('collections_users');
  });
  after(() => apps?.close());

  it("makes the server's users collection, and a first sign-up with the publishable key succeeds", async () => {
    const fx = await createProjectFixture(apps.dashboard.services, 'One click');
    const res = await dash(fx).post(url(fx.project.id));
    expect(res.status, res.text).to.equal(201);
    expect(res.body.message).to.equal('Collection created');
    const def = res.body.data.collection;
    expect(def).to.include({ name: 'users', mode: 'schema', projectId: fx.project.id });
    expect(def.rls.enabled).to.equal(false);
    const fields = def.fields as { name: string; type: string; required?: boolean; unique?: boolean }[];
    expect(fields.map((f) => [f.name, f.type, Boolean(f.required), Boolean(f.unique)])).to.deep.equal([
      ['email', 'String', true, true],
      ['password', 'String', true, false],
      ['name', 'String', false, false],
    ]);
    const indexes = await apps.dashboard.deps.db
      .project(fx.project.id)
      .collection('users')
      .listIndexes()
      .toArray();
    expect(indexes.map((i) => i.name).sort()).to.deep.equal(['_id_', 'u_email']);

    const first = await apps.public.client
      .with({ 'x-api-key': fx.publishableKey })
      .post('/api/userAuth/signup', {
        email: 'first@example.test',
        password: 'correct horse battery',
        name: 'First',
      });
    expect(first.status, first.text).to.equal(201);
    expect(first.body.data.user).to.include({ email: 'first@example.test', name: 'First' });
    expect(first.body.data.user).to.not.have.property('password');

    const again = await dash(fx).post(url(fx.project.id));
    expect(again.status).to.equal(409);
    expect(again.body).to.include({
      code: 'COLLECTION_EXISTS',
      message: 'A collection named "users" already exists in this project',
    });
  });

  it('answers 409 for a project made ready for sign-in', async () => {
    const dev = await createDeveloper(apps.dashboard.services);
    const made = await dash(dev).post('/api/projects', { name: 'Ready', endUserSignIn: true });
    expect(made.status, made.text).to.equal(201);
    const res = await dash(dev).post(url(made.body.data.project.id));
    expect(res.status).to.equal(409);
    expect(res.body.code).to.equal('COLLECTION_EXISTS');
  });

  it('is for project admins: a member gets 403 ADMIN_ONLY, others the 404 of a hidden project', async () => {
    const fx = await createProjectFixture(apps.dashboard.services, 'Members');
    const member = await createDeveloper(apps.dashboard.services);
    const admin = await createDeveloper(apps.dashboard.services);
    const stranger = await createDeveloper(apps.dashboard.services);
    await apps.dashboard.services.repos.projects.addMember(fx.project.id, member.developer.id, 'member');
    await apps.dashboard.services.repos.projects.addMember(fx.project.id, admin.developer.id, 'admin');

    const refused = await dash(member).post(url(fx.project.id));
    expect(refused.status, refused.text).to.equal(403);
    expect(refused.body).to.include({
      code: 'ADMIN_ONLY',
      message: 'Only project admins may create the users collection',
    });
    const hidden = await dash(stranger).post(url(fx.project.id));
    expect(hidden.status).to.equal(404);
    expect(hidden.body.message).to.equal('Project not found or access denied');
    expect(await collectionNames(fx)).to.deep.equal([]);
    expect(await storedUsers(fx)).to.equal(false);

    expect((await dash(admin).post(url(fx.project.id))).status).to.equal(201);
  });

  it('answers 404 for an unknown project, 400 for a malformed id, 401 without a session', async () => {
    const dev = await createDeveloper(apps.dashboard.services);
    const unknown = await dash(dev).post(url('65f1c2a4b7e8d90012345678'));
    expect(unknown.status).to.equal(404);
    expect(unknown.body.code).to.equal('PROJECT_NOT_FOUND');
    const malformed = await dash(dev).post(url('nope'));
    expect(malformed.status).to.equal(400);
    expect(malformed.body.message).to.equal('Invalid project ID');
    const anonymous = await apps.dashboard.client.post(url('65f1c2a4b7e8d90012345678'));
    expect(anonymous.status).to.equal(401);
  });

  it('counts against the plan as createCollection does, and leaves nothing behind when refused', async () => {
    const fx = await createProjectFixture(apps.dashboard.services, 'Full');
    const { projects } = apps.dashboard.services.repos;
    await projects.setLimits(fx.project.id, { collectionsPerProject: 1 });
    const posts = { name: 'posts', fields: [{ name: 'title', type: 'String' }] };
    expect((await dash(fx).post(`/api/projects/${fx.project.id}/collections`, posts)).status).to.equal(201);

    const refused = await dash(fx).post(url(fx.project.id));
    expect(refused.status, refused.text).to.equal(403);
    expect(refused.body).to.include({
      code: 'PLAN_LIMIT',
      message: 'Plan limit reached: this project may have at most 1 collection (collectionsPerProject)',
    });
    const generic = await dash(fx).post(`/api/projects/${fx.project.id}/collections`, {
      name: 'users',
      mode: 'schema',
      fields: [{ name: 'name', type: 'String' }],
    });
    expect(generic.status).to.equal(403);
    expect(refused.body).to.deep.equal(generic.body);
    expect(await collectionNames(fx)).to.deep.equal(['posts']);
    expect(await storedUsers(fx)).to.equal(false);

    // The refused call took no slot: one more allowed is one more made.
    await projects.setLimits(fx.project.id, { collectionsPerProject: 2 });
    expect((await dash(fx).post(url(fx.project.id))).status).to.equal(201);
    expect(await collectionNames(fx)).to.have.members(['posts', 'users']);
  });
});
