import { expect } from 'chai';
import { contextFor } from '../helpers/fixtures.js';
import {
  authProject,
  expectNoSecrets,
  keyed,
  newEmail,
  PASSWORD,
  signup,
  useAuthSuite,
  type AuthProject,
} from '../helpers/user-auth.js';

/** Every operation with a valid request, for the precondition tables. */
const OPERATIONS: Array<{ method: 'GET' | 'POST' | 'PUT'; path: string; body?: unknown; bearer?: boolean }> =
  [
    { method: 'POST', path: '/api/userAuth/signup', body: { email: 'a@example.test', password: PASSWORD } },
    { method: 'POST', path: '/api/userAuth/login', body: { email: 'a@example.test', password: PASSWORD } },
    { method: 'POST', path: '/api/userAuth/refresh-token', body: { refreshToken: 'rt_x' } },
    { method: 'POST', path: '/api/userAuth/logout', body: { refreshToken: 'rt_x' } },
    { method: 'GET', path: '/api/userAuth/me', bearer: true },
    { method: 'PUT', path: '/api/userAuth/update-profile', body: { name: 'X' }, bearer: true },
    {
      method: 'PUT',
      path: '/api/userAuth/change-password',
      body: { currentPassword: PASSWORD, newPassword: 'another passphrase' },
      bearer: true,
    },
    { method: 'POST', path: '/api/userAuth/verify-email', body: { email: 'a@example.test', otp: '123456' } },
    { method: 'POST', path: '/api/userAuth/resend-verification-otp', body: { email: 'a@example.test' } },
    { method: 'POST', path: '/api/userAuth/request-password-reset', body: { email: 'a@example.test' } },
    {
      method: 'POST',
      path: '/api/userAuth/reset-password',
      body: { email: 'a@example.test', otp: '123456', newPassword: 'another passphrase' },
    },
    { method: 'GET', path: '/api/userAuth/public/ada' },
    { method: 'GET', path: '/api/userAuth/social/github/start' },
    { method: 'POST', path: '/api/userAuth/social/exchange', body: { code: 'abc' } },
  ];

describe('/api/userAuth preconditions and the users collection', () => {
  const { app, p } = useAuthSuite('user_auth_guards');

  describe('preconditions', () => {
    async function call(project: AuthProject, op: (typeof OPERATIONS)[number], key = project.publishableKey) {
      const headers: Record<string, string> = { 'x-api-key': key };
      if (op.bearer)
        headers.authorization = `Bearer ${(await app.services.tokens.issue(project.project.id, '665f1c2e9b1e8a0012345678')).accessToken}`;
      return app.client.request(op.method, op.path, { body: op.body, headers });
    }

    it('answers 403 END_USER_AUTH_DISABLED on every operation when end-user auth is off', async () => {
      const off = await authProject(app, { settings: { endUserAuth: false } });
      for (const op of OPERATIONS) {
        const res = await call(off, op);
        expect(res.status, `${op.method} ${op.path}: ${res.text}`).to.equal(403);
        expect(res.body.code).to.equal('END_USER_AUTH_DISABLED');
      }
    });

    it('answers 400 USERS_COLLECTION_MISSING on every operation without a users collection', async () => {
      const bare = await authProject(app, { fields: null });
      for (const op of OPERATIONS) {
        const res = await call(bare, op);
        expect(res.status, `${op.method} ${op.path}: ${res.text}`).to.equal(400);
        expect(res.body.code).to.equal('USERS_COLLECTION_MISSING');
        expect(res.body.message).to.include('users collection with email and password');
      }
    });

    it('answers 401 on every operation with an unknown API key', async () => {
      for (const op of OPERATIONS) {
        const res = await app.client.request(op.method, op.path, {
          body: op.body,
          headers: { 'x-api-key': 'pk_live_unknown' },
        });
        expect(res.status, `${op.method} ${op.path}`).to.equal(401);
      }
    });

    it('accepts the secret key as well', async () => {
      const res = await keyed(p, p.secretKey).post('/api/userAuth/signup', {
        email: newEmail(),
        password: PASSWORD,
      });
      expect(res.status).to.equal(201);
    });
  });

  describe('users through the data API', () => {
    it('blocks /api/data/users* with 403', async () => {
      const { user } = await signup(p);
      const client = keyed(p, p.secretKey);
      for (const res of [
        await client.get('/api/data/users'),
        await client.get(`/api/data/users/${user._id}`),
        await client.post('/api/data/users', { email: newEmail(), password: PASSWORD }),
        await client.post('/api/data/users/aggregate', { pipeline: [] }),
      ]) {
        expect(res.status, res.text).to.equal(403);
        expectNoSecrets(res);
      }
    });

    it('never shows the password hash through populate or a $lookup', async () => {
      const { user } = await signup(p, { name: 'Author' });
      await app.services.collections.create(contextFor({ developer: p.developer }), p.project.id, {
        name: 'posts',
        mode: 'schema',
        fields: [
          { name: 'title', type: 'String' },
          { name: 'author', type: 'Ref', ref: 'users' },
        ],
      });
      const client = keyed(p, p.secretKey);
      expect((await client.post('/api/data/posts', { title: 'Hello', author: user._id })).status).to.equal(
        201,
      );
      const populated = await client.get('/api/data/posts', { query: { populate: 'author' } });
      expect(populated.status, populated.text).to.equal(200);
      expect(populated.body.data[0].author).to.include({ _id: user._id, name: 'Author' });
      expectNoSecrets(populated);
      const lookup = await client.post('/api/data/posts/aggregate', {
        pipeline: [{ $lookup: { from: 'users', localField: 'author', foreignField: '_id', as: 'a' } }],
      });
      expect(lookup.status).to.equal(400);
      expectNoSecrets(lookup);
    });
  });
});
