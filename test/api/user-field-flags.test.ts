import { expect } from 'chai';
import { bearer, keyed, newEmail, PASSWORD, signup, useAuthSuite } from '../helpers/user-auth.js';
import { contextFor } from '../helpers/fixtures.js';
import type { ServiceEvent } from '../../src/services/events.js';
import type { FieldDef } from '../../src/services/types.js';

const FIELDS = [
  { name: 'email', type: 'String', required: true, unique: true },
  { name: 'password', type: 'String', required: true },
  { name: 'name', type: 'String', private: true },
  { name: 'username', type: 'String', unique: true },
  { name: 'bio', type: 'String' },
  { name: 'role', type: 'String', default: 'user', protected: true },
  { name: 'settings', type: 'Object', protected: true, fields: [{ name: 'level', type: 'Number' }] },
  { name: 'phone', type: 'String', private: true },
] as FieldDef[];

describe('protected and private fields of the users collection', () => {
  const { app, p } = useAuthSuite('user_field_flags', { project: { fields: FIELDS } });
  const events: ServiceEvent[] = [];
  const secret = () => keyed(p, p.secretKey);

  before(async () => {
    app.services.events.on((event) => {
      events.push(event);
    });
    await app.services.collections.create(contextFor({ developer: p.developer }), p.project.id, {
      name: 'posts',
      fields: [
        { name: 'title', type: 'String' },
        { name: 'author', type: 'Ref', ref: 'users' },
      ],
    });
  });

  describe('definitions', () => {
    it('keeps the flags on users fields and shows them to the secret key only', async () => {
      const res = await secret().get('/api/schemas/users');
      const byName = Object.fromEntries(res.body.data.collection.fields.map((f: any) => [f.name, f]));
      expect(byName.role).to.include({ protected: true, default: 'user' });
      expect(byName.phone).to.include({ private: true });
      expect(byName.bio).not.to.have.property('protected');
      // The publishable key is in every browser: it does not learn those fields exist.
      const pub = await keyed(p).get('/api/schemas/users');
      const names = pub.body.data.collection.fields.map((f: { name: string }) => f.name);
      expect(names).to.include.members(['email', 'username', 'bio']);
      expect(names.filter((n: string) => ['role', 'settings', 'phone', 'name'].includes(n))).to.deep.equal(
        [],
      );
    });

    it('refuses the flags outside the users collection, on email and password, and protected with required', async () => {
      const cases: [Record<string, unknown>, string][] = [
        [
          { name: 'notes', fields: [{ name: 'secret', type: 'String', private: true }] },
          '"private" is only allowed on fields of the users collection (secret)',
        ],
        [
          { name: 'notes', fields: [{ name: 'owner', type: 'String', protected: true }] },
          '"protected" is only allowed on fields of the users collection (owner)',
        ],
      ];
      for (const [body, message] of cases) {
        const res = await secret().post('/api/schemas', body);
        expect(res.status).to.equal(400);
        expect(res.body.message).to.equal(message);
      }
      const users = (fields: unknown[]) => secret().put('/api/schemas/users', { mode: 'schema', fields });
      const email = await users([
        { name: 'email', type: 'String', required: true, unique: true, private: true },
      ]);
      expect(email.status).to.equal(400);
      expect(email.body.message).to.equal('email is managed by the auth service and cannot be private');
      const required = await users([
        ...FIELDS.filter((f) => f.name !== 'role'),
        { name: 'role', type: 'String', required: true, protected: true },
      ]);
      expect(required.status).to.equal(400);
      expect(required.body.message).to.match(/^Field "role" cannot be both protected and required/);
      expect((await secret().get('/api/schemas/users')).body.data.collection.fields).to.have.length(
        FIELDS.length,
      );
    });
  });

  describe('protected', () => {
    it('refuses a protected field at sign-up, naming it, and applies its default', async () => {
      for (const extra of [{ role: 'admin' }, { settings: { level: 9 } }]) {
        const res = await keyed(p).post('/api/userAuth/signup', {
          email: newEmail(),
          password: PASSWORD,
          ...extra,
        });
        expect(res.status).to.equal(400);
        expect(res.body.code).to.equal('FIELD_PROTECTED');
        expect(res.body.details[0].path).to.equal(`body.${Object.keys(extra)[0]}`);
      }
      const { user } = await signup(p, { bio: 'hi' });
      expect(user).to.include({ role: 'user', bio: 'hi' });
    });

    it('refuses it in update-profile, dot paths included; the secret key sets it', async () => {
      const { user, accessToken } = await signup(p);
      for (const body of [{ role: 'admin' }, { 'settings.level': 9 }, { bio: 'ok', role: 'admin' }]) {
        const res = await bearer(p, accessToken).put('/api/userAuth/update-profile', body);
        expect(res.status, JSON.stringify(body)).to.equal(400);
        expect(res.body.code).to.equal('FIELD_PROTECTED');
        expect(res.body.message).to.include(Object.keys(body).find((k) => k !== 'bio'));
      }
      expect(
        (await bearer(p, accessToken).put('/api/userAuth/update-profile', { bio: 'ok' })).status,
      ).to.equal(200);
      const set = await secret().patch(`/api/users/${user._id}`, { role: 'admin', 'settings.level': 3 });
      expect(set.status, set.text).to.equal(200);
      const me = await bearer(p, accessToken).get('/api/userAuth/me');
      expect(me.body.data).to.include({ role: 'admin', bio: 'ok' });
      expect(me.body.data.settings).to.deep.equal({ level: 3 });
    });
  });

  describe('private', () => {
    it('shows private fields to the user themself and the secret key, and to no one else', async () => {
      const username = `ada${Date.now()}`;
      const ada = await signup(p, { name: 'Ada', phone: '+44 1', username });
      expect(ada.user).to.include({ phone: '+44 1', name: 'Ada' });
      const me = await bearer(p, ada.accessToken).get('/api/userAuth/me');
      expect(me.body.data).to.include({ phone: '+44 1', name: 'Ada' });
      expect((await secret().get(`/api/users/${ada.user._id}`)).body.data).to.include({ phone: '+44 1' });

      const profile = await keyed(p).get(`/api/userAuth/public/${username}`);
      expect(profile.status).to.equal(200);
      expect(profile.body.data).to.deep.equal({
        _id: ada.user._id,
        username,
        createdAt: ada.user.createdAt,
      });

      const post = await secret().post('/api/data/posts', { title: 't', author: ada.user._id });
      for (const client of [keyed(p), secret()]) {
        const res = await client.get(`/api/data/posts/${post.body.data._id}`, {
          query: { populate: 'author' },
        });
        expect(res.status).to.equal(200);
        expect(res.body.data.author).to.include({ _id: ada.user._id, username });
        expect(res.body.data.author).not.to.have.any.keys('phone', 'name', 'password');
      }
      // The protected role is the developer's business: the publishable key sees the public profile.
      const populated = (client: ReturnType<typeof keyed>) =>
        client.get(`/api/data/posts/${post.body.data._id}`, { query: { populate: 'author' } });
      expect((await populated(keyed(p))).body.data.author).not.to.have.property('role');
      expect((await populated(secret())).body.data.author).to.include({ role: 'user' });

      const created = events.find((e) => e.name === 'user.created' && e.documentId === ada.user._id);
      expect(created?.document).to.include({ username });
      expect(created?.document).not.to.have.any.keys('phone', 'name');
    });
  });
});
