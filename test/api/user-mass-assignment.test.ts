// Mass assignment through the end-user endpoints, performed as an attacker with the publishable
// key would: fields the users schema does not declare (`role`, `plan`) at sign-up and in profile
// updates, in flexible mode (the default) and schema mode; and what a populated user shows.
import { expect } from 'chai';
import {
  authProject,
  bearer,
  keyed,
  newEmail,
  PASSWORD,
  signup,
  useAuthSuite,
  type AuthProject,
} from '../helpers/user-auth.js';
import { contextFor } from '../helpers/fixtures.js';
import type { FieldDef } from '../../src/services/types.js';

const FIELDS = [
  { name: 'email', type: 'String', required: true, unique: true },
  { name: 'password', type: 'String', required: true },
  { name: 'username', type: 'String', unique: true },
  { name: 'bio', type: 'String' },
  { name: 'prefs', type: 'Object', fields: [{ name: 'theme', type: 'String' }] },
] as FieldDef[];

describe('end users cannot write fields the users schema does not declare', () => {
  const { app, p: flexible } = useAuthSuite('user_mass_assignment', {
    project: { mode: 'flexible', fields: FIELDS },
  });
  let strict: AuthProject;
  before(async () => {
    strict = await authProject(app, { mode: 'schema', fields: FIELDS });
  });
  const projects = () =>
    [
      ['flexible', flexible],
      ['schema', strict],
    ] as const;

  it('refuses role and plan at sign-up with a 400 naming them, and creates no account', async () => {
    for (const [mode, p] of projects()) {
      const email = newEmail();
      const res = await keyed(p).post('/api/userAuth/signup', {
        email,
        password: PASSWORD,
        bio: 'hi',
        role: 'admin',
        plan: 'pro',
      });
      expect(res.status, mode).to.equal(400);
      expect(res.body.code, mode).to.equal('UNDECLARED_FIELD');
      expect(res.body.message, mode).to.match(/^role, plan are not fields of the users schema/);
      expect(res.body.details.map((d: { path: string }) => d.path)).to.deep.equal(['body.role', 'body.plan']);
      const login = await keyed(p).post('/api/userAuth/login', { email, password: PASSWORD });
      expect(login.status, `${mode}: no account was made`).to.equal(401);
    }
  });

  it('takes the declared fields, nested ones typed, and the display name in either mode', async () => {
    for (const [mode, p] of projects()) {
      const { user } = await signup(p, { bio: 'hi', name: 'Ada', prefs: { theme: 'dark' } });
      expect(user, mode).to.include({ bio: 'hi', name: 'Ada' });
      const nested = await keyed(p).post('/api/userAuth/signup', {
        email: newEmail(),
        password: PASSWORD,
        prefs: { theme: 'dark', admin: true },
      });
      expect(nested.status, mode).to.equal(400);
      expect(nested.body.message, mode).to.include('prefs.admin');
      const typed = await keyed(p).post('/api/userAuth/signup', {
        email: newEmail(),
        password: PASSWORD,
        bio: 42,
      });
      expect(typed.status, mode).to.equal(400);
      expect(typed.body.message, mode).to.include('bio');
    }
  });

  it('refuses plan and role in update-profile (dot paths too) and leaves the user unchanged', async () => {
    for (const [mode, p] of projects()) {
      const { accessToken } = await signup(p, { bio: 'before' });
      const client = bearer(p, accessToken);
      for (const body of [{ plan: 'pro' }, { bio: 'after', role: 'admin' }, { 'plan.tier': 'pro' }]) {
        const res = await client.put('/api/userAuth/update-profile', body);
        expect(res.status, `${mode} ${JSON.stringify(body)}`).to.equal(400);
        expect(res.body.code).to.equal('UNDECLARED_FIELD');
        expect(res.body.message).to.include(Object.keys(body).find((k) => k !== 'bio'));
      }
      const deep = await client.put('/api/userAuth/update-profile', { 'prefs.admin': true });
      expect(deep.status, mode).to.equal(400);
      const me = await client.get('/api/userAuth/me');
      expect(me.body.data, mode).to.include({ bio: 'before' });
      expect(me.body.data, mode).not.to.have.any.keys('plan', 'role', 'prefs');
      const ok = await client.put('/api/userAuth/update-profile', { bio: 'after', 'prefs.theme': 'light' });
      expect(ok.status, mode).to.equal(200);
      expect(ok.body.data).to.deep.include({ bio: 'after', prefs: { theme: 'light' } });
    }
  });
});

describe('a populated user shows the publishable key only their public profile', () => {
  const POPULATED_FIELDS = [
    ...FIELDS,
    { name: 'name', type: 'String' },
    { name: 'plan', type: 'String', default: 'free' },
    { name: 'role', type: 'String', protected: true, default: 'member' },
    { name: 'phone', type: 'String', private: true },
  ] as FieldDef[];
  const { p } = useAuthSuite('user_populate_public', { project: { fields: POPULATED_FIELDS } });

  it('leaves out plan, role, email and private fields for the publishable key; the secret key sees them', async () => {
    await p.app.services.collections.create(contextFor({ developer: p.developer }), p.project.id, {
      name: 'posts',
      fields: [
        { name: 'title', type: 'String' },
        { name: 'author', type: 'Ref', ref: 'users' },
      ],
    });
    const username = `ada${Date.now()}`;
    const { user, accessToken } = await signup(p, { username, name: 'Ada', bio: 'hi', phone: '+44 1' });
    const secret = keyed(p, p.secretKey);
    expect((await secret.patch(`/api/users/${user._id}`, { plan: 'pro', role: 'admin' })).status).to.equal(
      200,
    );
    const post = await secret.post('/api/data/posts', { title: 't', author: user._id });
    const read = (client: ReturnType<typeof keyed>) =>
      client.get(`/api/data/posts/${post.body.data._id}`, { query: { populate: 'author' } });

    for (const client of [keyed(p), bearer(p, accessToken)]) {
      const res = await read(client);
      expect(res.status).to.equal(200);
      expect(res.body.data.author).to.deep.equal({
        _id: user._id,
        username,
        name: 'Ada',
        createdAt: user.createdAt,
      });
    }
    const full = await read(secret);
    expect(full.body.data.author).to.include({ plan: 'pro', role: 'admin', bio: 'hi', email: user.email });
    expect(full.body.data.author).not.to.have.any.keys('phone', 'password');
  });
});
