import { expect } from 'chai';
import { startTestApps } from '../helpers/app.js';
import type { ApiClient } from '../helpers/client.js';
import { invitationTokenOf, mailbox } from '../helpers/mail.js';
import { signUpByMail } from '../helpers/signup.js';

type Apps = Awaited<ReturnType<typeof startTestApps>>;

async function signUp(client: ApiClient, email: string) {
  const { id, cookie } = await signUpByMail(client, email, 'correct horse battery');
  return { id, cookie };
}

describe('dashboard projects', () => {
  let apps: Apps;
  let dash: ApiClient;
  const people: Record<'operator' | 'admin' | 'member' | 'other', { id: string; cookie: string }> =
    {} as never;
  let projectId: string;
  let keys: { publishable: string; secret: string };

  const as = (who: keyof typeof people | 'none') =>
    who === 'none' ? dash : dash.with({ cookie: people[who].cookie });

  before(async () => {
    apps = await startTestApps('projects');
    dash = apps.dashboard.client;
    people.operator = await signUp(dash, 'operator@example.com');
    people.admin = await signUp(dash, 'admin@example.com');
    people.member = await signUp(dash, 'member@example.com');
    people.other = await signUp(dash, 'other@example.com');
    const created = await as('admin').post('/api/projects', {
      name: 'Shop',
      settings: { allowedOrigins: ['https://shop.example'] },
    });
    expect(created.status).to.equal(201);
    projectId = created.body.data.project.id;
    keys = created.body.data.keys;
    const inbox = mailbox('member@example.com');
    await inbox.skipExisting(); // the sink is shared by every run
    const invited = await as('admin').post(`/api/projects/${projectId}/invitations`, {
      email: 'member@example.com',
    });
    expect(invited.status).to.equal(202);
    const token = invitationTokenOf(await inbox.next());
    const accepted = await as('member').post('/api/invitations/accept', { token });
    expect(accepted.status).to.equal(200);
  });
  after(() => apps.close());

  it('creates a project with both keys shown once and only their last four characters kept', async () => {
    expect(keys.publishable).to.match(/^pk_live_[\w-]{43}$/);
    expect(keys.secret).to.match(/^sk_live_[\w-]{43}$/);
    const got = await as('admin').get(`/api/projects/${projectId}`);
    expect(got.body.data.project.keys.secret.last4).to.equal(keys.secret.slice(-4));
    expect(JSON.stringify(got.body)).to.not.include(keys.secret).and.not.include(keys.publishable);
    expect(got.body.data.project).to.deep.include({
      role: 'admin',
      usage: { databaseUsed: 0, storageUsed: 0 },
    });
    expect(got.body.data.project.limits).to.include({ projectsPerDeveloper: 2, collectionsPerProject: 10 });
    const stored = await apps.dashboard.deps.db.platform.collection('projects').findOne({});
    expect(JSON.stringify(stored)).to.not.include(keys.secret);
  });

  it('lists only the projects the caller is a member of', async () => {
    expect((await as('member').get('/api/projects')).body.data.projects.map((p: any) => p.id)).to.deep.equal([
      projectId,
    ]);
    expect((await as('other').get('/api/projects')).body.data.projects).to.deep.equal([]);
    expect((await as('none').get('/api/projects')).status).to.equal(401);
  });

  describe('permission table', () => {
    const table: [
      string,
      (c: ApiClient) => Promise<{ status: number; body: any }>,
      Record<string, number>,
    ][] = [
      [
        'get',
        (c) => c.get(`/api/projects/${projectId}`),
        { admin: 200, member: 200, other: 404, operator: 404, none: 401 },
      ],
      [
        'update',
        (c) => c.patch(`/api/projects/${projectId}`, { name: 'Shop 2' }),
        { admin: 200, member: 404, other: 404, operator: 404, none: 401 },
      ],
      [
        'list members',
        (c) => c.get(`/api/projects/${projectId}/members`),
        { admin: 200, member: 200, other: 404, operator: 404, none: 401 },
      ],
      [
        'set limits',
        (c) => c.put(`/api/admin/projects/${projectId}/limits`, { limits: { collectionsPerProject: 12 } }),
        { admin: 403, member: 403, other: 403, operator: 200, none: 401 },
      ],
      [
        'set plan',
        (c) => c.put(`/api/admin/developers/${people.other.id}/plan`, { plan: 'free' }),
        { admin: 403, member: 403, other: 403, operator: 200, none: 401 },
      ],
    ];
    for (const [name, call, expected] of table) {
      for (const [who, status] of Object.entries(expected)) {
        it(`${name} as ${who} -> ${status}`, async () => {
          const res = await call(as(who as never));
          expect(res.status).to.equal(status);
          if (status === 404) expect(res.body.message).to.equal('Project not found or access denied');
        });
      }
    }
  });

  it('answers 400 Invalid project ID for an id that is not an object id, on every project route', async () => {
    const bad = 'not-an-id';
    const calls = [
      as('admin').get(`/api/projects/${bad}`),
      as('admin').patch(`/api/projects/${bad}`, { name: 'x' }),
      as('admin').delete(`/api/projects/${bad}`),
      as('admin').post(`/api/projects/${bad}/keys/secret/rotate`),
      as('admin').get(`/api/projects/${bad}/members`),
      as('admin').post(`/api/projects/${bad}/invitations`, { email: 'x@example.com' }),
      as('admin').patch(`/api/projects/${bad}/members/${people.member.id}`, { role: 'admin' }),
      as('admin').delete(`/api/projects/${bad}/members/${people.member.id}`),
      as('operator').put(`/api/admin/projects/${bad}/limits`, { limits: {} }),
    ];
    for (const res of await Promise.all(calls)) {
      expect(res.status).to.equal(400);
      expect(res.body.message).to.equal('Invalid project ID');
    }
    const plan = await as('operator').put('/api/admin/developers/nope/plan', { plan: 'pro' });
    expect(plan.status).to.equal(400);
    const missing = await as('operator').put('/api/admin/developers/65f1c2a4b7e8d90012345678/plan', {
      plan: 'pro',
    });
    expect(missing.status).to.equal(404);
    const noProject = await as('operator').put('/api/admin/projects/65f1c2a4b7e8d90012345678/limits', {
      limits: {},
    });
    expect(noProject.status).to.equal(404);
    // A limit past what a JSON number carries exactly would come back as a float.
    const huge = await as('operator').put(`/api/admin/projects/${projectId}/limits`, {
      limits: { storageBytes: 2.989011733453734e33 },
    });
    expect(huge.status).to.equal(400);
    expect(huge.body.message).to.equal('Validation failed: limits.storageBytes must be <= 9007199254740991');
  });

  it('refuses cross-site cookie writes on every project write (403)', async () => {
    const evil = as('admin').with({ origin: 'https://evil.example' });
    const calls = [
      evil.post('/api/projects', { name: 'x' }),
      evil.patch(`/api/projects/${projectId}`, { name: 'x' }),
      evil.delete(`/api/projects/${projectId}`),
      evil.post(`/api/projects/${projectId}/keys/secret/rotate`),
      evil.post(`/api/projects/${projectId}/invitations`, { email: 'other@example.com' }),
      evil.patch(`/api/projects/${projectId}/members/${people.member.id}`, { role: 'admin' }),
      evil.delete(`/api/projects/${projectId}/members/${people.member.id}`),
    ];
    for (const res of await Promise.all(calls)) expect(res.body.code).to.equal('CSRF_ORIGIN_MISMATCH');
  });

  it('updates settings and validates them', async () => {
    const ok = await as('admin').patch(`/api/projects/${projectId}`, {
      settings: { endUserAuth: false, siteUrl: 'https://shop.example' },
    });
    expect(ok.status).to.equal(200);
    expect(ok.body.data.project.settings).to.deep.equal({
      allowedOrigins: ['https://shop.example'],
      endUserAuth: false,
      siteUrl: 'https://shop.example',
    });
    const bad = await as('admin').patch(`/api/projects/${projectId}`, {
      settings: { allowedOrigins: 'everyone' },
    });
    expect(bad.status).to.equal(400);
    expect(bad.body.message).to.equal('Validation failed: settings.allowedOrigins must be an array');
  });

  it('rotates one key: the old one stops at once, the other keeps working', async () => {
    const rotated = await as('admin').post(`/api/projects/${projectId}/keys/secret/rotate`);
    expect(rotated.status).to.equal(200);
    const fresh = rotated.body.data.key as string;
    expect(fresh)
      .to.match(/^sk_live_/)
      .and.not.equal(keys.secret);
    const services = apps.public.services;
    await services.projects.resolveApiKey(fresh);
    await services.projects.resolveApiKey(keys.publishable);
    let oldRefused = false;
    await services.projects.resolveApiKey(keys.secret).catch((err) => (oldRefused = err.status === 401));
    expect(oldRefused).to.equal(true);
    expect((await as('member').post(`/api/projects/${projectId}/keys/secret/rotate`)).status).to.equal(404);
    expect((await as('none').post(`/api/projects/${projectId}/keys/secret/rotate`)).status).to.equal(401);
  });

  describe('members', () => {
    it('invites any address as a pending invitation: nobody joins before accepting', async () => {
      const before = await as('admin').get(`/api/projects/${projectId}/members`);
      const ghost = await as('admin').post(`/api/projects/${projectId}/invitations`, {
        email: 'ghost@example.com',
      });
      expect(ghost.status).to.equal(202);
      expect(ghost.body.data.invitation).to.include({
        email: 'ghost@example.com',
        role: 'member',
        status: 'pending',
      });
      expect(ghost.body.message).to.equal('Invitation sent to ghost@example.com');
      // A current member: the same answer, and their role stays until they accept.
      const again = await as('admin').post(`/api/projects/${projectId}/invitations`, {
        email: 'MEMBER@example.com',
        role: 'admin',
      });
      expect(again.status).to.equal(202);
      expect(again.body.data.invitation).to.include({ email: 'member@example.com', role: 'admin' });
      const after = await as('admin').get(`/api/projects/${projectId}/members`);
      expect(after.body.data.members).to.deep.equal(before.body.data.members);
      expect(
        await apps.dashboard.deps.db.platform
          .collection('developers')
          .countDocuments({ email: 'ghost@example.com' }),
      ).to.equal(0);
      expect(
        (await as('member').post(`/api/projects/${projectId}/invitations`, { email: 'other@example.com' }))
          .status,
      ).to.equal(404);
      expect(
        (await as('none').post(`/api/projects/${projectId}/invitations`, { email: 'other@example.com' }))
          .status,
      ).to.equal(401);
      expect(
        (await as('admin').post(`/api/projects/${projectId}/invitations`, { email: 'bad' })).status,
      ).to.equal(400);
    });

    it('lists members with their emails and roles', async () => {
      const res = await as('member').get(`/api/projects/${projectId}/members`);
      expect(res.body.data.members.map((m: any) => [m.email, m.role])).to.deep.equal([
        ['admin@example.com', 'admin'],
        ['member@example.com', 'member'],
      ]);
    });

    it('keeps the last admin: no demotion, no leaving (409)', async () => {
      const demote = await as('admin').patch(`/api/projects/${projectId}/members/${people.admin.id}`, {
        role: 'member',
      });
      expect(demote.status).to.equal(409);
      expect(demote.body.code).to.equal('LAST_ADMIN');
      const leave = await as('admin').delete(`/api/projects/${projectId}/members/${people.admin.id}`);
      expect(leave.status).to.equal(409);
    });

    it('changes roles (admins only) and lets members leave; others cannot remove members (403)', async () => {
      expect(
        (await as('admin').patch(`/api/projects/${projectId}/members/${people.other.id}`, { role: 'admin' }))
          .status,
      ).to.equal(404);
      expect(
        (
          await as('member').patch(`/api/projects/${projectId}/members/${people.admin.id}`, {
            role: 'member',
          })
        ).status,
      ).to.equal(404);
      expect(
        (await as('none').patch(`/api/projects/${projectId}/members/${people.admin.id}`, { role: 'member' }))
          .status,
      ).to.equal(401);
      expect(
        (await as('admin').patch(`/api/projects/${projectId}/members/${people.admin.id}`, { role: 'owner' }))
          .status,
      ).to.equal(400);
      const forbidden = await as('member').delete(`/api/projects/${projectId}/members/${people.admin.id}`);
      expect(forbidden.status).to.equal(403);
      expect(
        (await as('other').delete(`/api/projects/${projectId}/members/${people.member.id}`)).status,
      ).to.equal(404);
      expect(
        (await as('none').delete(`/api/projects/${projectId}/members/${people.member.id}`)).status,
      ).to.equal(401);
      expect(
        (await as('admin').delete(`/api/projects/${projectId}/members/${people.other.id}`)).status,
      ).to.equal(404);

      const promoted = await as('admin').patch(`/api/projects/${projectId}/members/${people.member.id}`, {
        role: 'admin',
      });
      expect(promoted.status).to.equal(200);
      const demoteSelf = await as('admin').patch(`/api/projects/${projectId}/members/${people.admin.id}`, {
        role: 'member',
      });
      expect(demoteSelf.status).to.equal(200);
      const left = await as('admin').delete(`/api/projects/${projectId}/members/${people.admin.id}`);
      expect(left.status).to.equal(200);
      expect(left.body.data.members.map((m: any) => m.email)).to.deep.equal(['member@example.com']);
      expect((await as('admin').get(`/api/projects/${projectId}`)).status).to.equal(404);
    });
  });

  it('refuses a name of spaces and trims the spaces around a real one, on create and rename', async () => {
    for (const name of ['   ', '\t \n']) {
      const blank = await as('other').post('/api/projects', { name });
      expect(blank.status).to.equal(400);
      expect(blank.body.details.map((d: { path: string }) => d.path)).to.deep.equal(['body.name']);
      const renamed = await as('admin').patch(`/api/projects/${projectId}`, { name });
      expect(renamed.status).to.equal(400);
    }
    const renamed = await as('admin').patch(`/api/projects/${projectId}`, { name: '  Shop  ' });
    expect(renamed.body.data.project.name).to.equal('Shop');
    const created = await as('other').post('/api/projects', { name: ' Blog ' });
    expect(created.body.data.project.name).to.equal('Blog');
    const deleted = await as('other').delete(`/api/projects/${created.body.data.project.id}`);
    expect(deleted.status).to.be.oneOf([200, 204]);
  });

  it('applies the plan limit on projects per developer (403 PLAN_LIMIT), lifted by the operator', async () => {
    const dev = await signUp(dash, 'busy@example.com');
    const c = dash.with({ cookie: dev.cookie });
    // The limit is told before it bites: the account says how many projects it may own.
    expect((await c.get('/api/user/me')).body.data.developer.projectLimit).to.equal(2);
    expect((await c.post('/api/projects', { name: 'one' })).status).to.equal(201);
    expect((await c.post('/api/projects', { name: 'two' })).status).to.equal(201);
    const third = await c.post('/api/projects', { name: 'three' });
    expect(third.status).to.equal(403);
    expect(third.body).to.include({
      code: 'PLAN_LIMIT',
      message: 'Plan limit reached: the free plan allows 2 projects',
    });
    const pro = await as('operator').put(`/api/admin/developers/${dev.id}/plan`, { plan: 'pro' });
    expect(pro.body.data.developer.plan).to.equal('pro');
    const relogged = await dash.post('/api/auth/login', {
      email: 'busy@example.com',
      password: 'correct horse battery',
    });
    expect(relogged.body.data.developer.plan).to.equal('pro');
    expect(relogged.body.data.developer.projectLimit).to.be.above(2);
    expect((await c.post('/api/projects', { name: 'three' })).status).to.equal(201);
    expect((await as('none').post('/api/projects', { name: 'x' })).status).to.equal(401);
    expect((await c.post('/api/projects', {})).status).to.equal(400);
  });

  it('deletes a project with its database (admins only)', async () => {
    const created = await as('other').post('/api/projects', { name: 'Doomed' });
    const id = created.body.data.project.id;
    const db = apps.dashboard.deps.db.project(id);
    await db.collection('things').insertOne({ a: 1 });
    expect((await as('admin').delete(`/api/projects/${id}`)).status).to.equal(404);
    expect((await as('none').delete(`/api/projects/${id}`)).status).to.equal(401);
    const res = await as('other').delete(`/api/projects/${id}`);
    expect(res.status).to.equal(200);
    expect((await as('other').get(`/api/projects/${id}`)).status).to.equal(404);
    expect(await db.collection('things').countDocuments()).to.equal(0);
    let refused = false;
    await apps.public.services.projects
      .resolveApiKey(created.body.data.keys.secret)
      .catch(() => (refused = true));
    expect(refused).to.equal(true);
  });
});
