import { expect } from 'chai';
import jwt from 'jsonwebtoken';
import {
  authProject,
  bearer,
  expectNoSecrets,
  keyed,
  newEmail,
  PASSWORD,
  signup,
  useAuthSuite,
} from '../helpers/user-auth.js';
import { decrypt, deriveKey } from '../../src/lib/secrets.js';

describe('/api/userAuth accounts', () => {
  const { app, p } = useAuthSuite('user_auth_accounts');

  describe('POST /api/userAuth/signup', () => {
    it('creates the user, returns tokens and never the password', async () => {
      const email = newEmail('Ada');
      const res = await keyed(p).post('/api/userAuth/signup', {
        email: email.toUpperCase(),
        password: PASSWORD,
        name: 'Ada',
        age: 36,
      });
      expect(res.status).to.equal(201);
      expectNoSecrets(res);
      const { user, accessToken, token, refreshToken, expiresIn } = res.body.data;
      expect(user).to.include({
        email: email.toLowerCase(),
        name: 'Ada',
        age: 36,
        plan: 'free',
        emailVerified: false,
      });
      expect(user._id).to.match(/^[0-9a-f]{24}$/);
      expect(token).to.equal(accessToken);
      expect(expiresIn).to.equal(900);
      expect(refreshToken).to.match(/^rt_/);
      const claims = jwt.decode(accessToken) as jwt.JwtPayload;
      expect(claims).to.include({ sub: user._id, userId: user._id, pid: p.project.id });
      expect(claims.exp! - claims.iat!).to.equal(900);
      const stored = await app.deps.db
        .project(p.project.id)
        .collection('users')
        .findOne({ email: email.toLowerCase() });
      expect(String(stored!.password)).to.match(/^\$argon2id\$/);
    });

    it('refuses a registered email, case-insensitively, with 409', async () => {
      const { email } = await signup(p);
      const res = await keyed(p).post('/api/userAuth/signup', {
        email: email.toUpperCase(),
        password: PASSWORD,
      });
      expect(res.status).to.equal(409);
      expect(res.body.code).to.equal('EMAIL_TAKEN');
    });

    it('answers 409 naming another unique field that is taken', async () => {
      await signup(p, { username: 'taken-name' });
      const res = await keyed(p).post('/api/userAuth/signup', {
        email: newEmail(),
        password: PASSWORD,
        username: 'taken-name',
      });
      expect(res.status).to.equal(409);
      expect(res.body.message).to.include('username');
    });

    const invalid: Array<[string, Record<string, unknown>, string]> = [
      ['a missing password', { email: 'x@example.test' }, 'password is required'],
      ['a malformed email', { email: 'not-an-email', password: PASSWORD }, 'email'],
      ['a password of 7 characters', { email: 'x@example.test', password: 'short77' }, 'password'],
      ['a password of 129 characters', { email: 'x@example.test', password: 'x'.repeat(129) }, 'password'],
      [
        'a field outside the users schema',
        { email: 'x@example.test', password: PASSWORD, shoeSize: 42 },
        'shoeSize',
      ],
      [
        'a custom field of the wrong type',
        { email: 'x@example.test', password: PASSWORD, age: 'old' },
        'age',
      ],
      [
        'emailVerified',
        { email: 'x@example.test', password: PASSWORD, emailVerified: true },
        'emailVerified',
      ],
      [
        'a system field',
        { email: 'x@example.test', password: PASSWORD, createdAt: '2020-01-01' },
        'createdAt',
      ],
      ['an operator key', { email: 'x@example.test', password: PASSWORD, preferences: { $gt: '' } }, '$gt'],
      [
        'a prototype key',
        { email: 'x@example.test', password: PASSWORD, constructor: { a: 1 } },
        'constructor',
      ],
    ];
    for (const [what, body, mention] of invalid) {
      it(`answers 400 for ${what}`, async () => {
        const res = await keyed(p).post('/api/userAuth/signup', body);
        expect(res.status, res.text).to.equal(400);
        expect(res.body.message).to.include(mention);
      });
    }

    it('refuses undeclared fields in a flexible users collection too, and the auth-managed ones', async () => {
      const flexible = await authProject(app, {
        mode: 'flexible',
        fields: [
          { name: 'email', type: 'String' },
          { name: 'password', type: 'String' },
        ],
      });
      const undeclared = await keyed(flexible).post('/api/userAuth/signup', {
        email: newEmail(),
        password: PASSWORD,
        team: 'blue',
      });
      expect(undeclared.status).to.equal(400);
      expect(undeclared.body.code).to.equal('UNDECLARED_FIELD');
      expect(undeclared.body.message).to.include('team');
      const refused = await keyed(flexible).post('/api/userAuth/signup', {
        email: newEmail(),
        password: PASSWORD,
        identities: [],
      });
      expect(refused.status).to.equal(400);
      expect(refused.body.code).to.equal('FIELD_NOT_ALLOWED');
    });
  });

  describe('POST /api/userAuth/signup: the name', () => {
    const base = [
      { name: 'email', type: 'String' as const, required: true, unique: true },
      { name: 'password', type: 'String' as const, required: true },
    ];

    it('is taken as the display name even where a schema users collection does not declare it', async () => {
      const strict = await authProject(app, { mode: 'schema', fields: base });
      const ok = await keyed(strict).post('/api/userAuth/signup', {
        email: newEmail(),
        password: PASSWORD,
        name: 'Grace Hopper',
      });
      expect(ok.status, ok.text).to.equal(201);
      expect(ok.body.data.user.name).to.equal('Grace Hopper');
      const me = await bearer(strict, ok.body.data.accessToken).get('/api/userAuth/me');
      expect(me.body.data.name).to.equal('Grace Hopper');
      // Other undeclared fields are still refused in schema mode.
      const other = await keyed(strict).post('/api/userAuth/signup', {
        email: newEmail(),
        password: PASSWORD,
        name: 'Grace',
        nickname: 'Amazing Grace',
      });
      expect(other.status).to.equal(400);
      expect(other.body.message).to.include('nickname');
    });

    it('must be a string when the schema does not declare it', async () => {
      const flexible = await authProject(app, { mode: 'flexible', fields: base });
      const res = await keyed(flexible).post('/api/userAuth/signup', {
        email: newEmail(),
        password: PASSWORD,
        name: 42,
      });
      expect(res.status).to.equal(400);
      expect(res.body.message).to.equal('Validation failed: name must be a string');
    });

    it('follows the users schema when it declares name with another type', async () => {
      const typed = await authProject(app, {
        mode: 'schema',
        fields: [...base, { name: 'name', type: 'Object', fields: [{ name: 'first', type: 'String' }] }],
      });
      const ok = await keyed(typed).post('/api/userAuth/signup', {
        email: newEmail(),
        password: PASSWORD,
        name: { first: 'Ada' },
      });
      expect(ok.status, ok.text).to.equal(201);
      expect(ok.body.data.user.name).to.deep.equal({ first: 'Ada' });
      const text = await keyed(typed).post('/api/userAuth/signup', {
        email: newEmail(),
        password: PASSWORD,
        name: 'Ada',
      });
      expect(text.status).to.equal(400);
      expect(text.body.message).to.include('name');
    });
  });

  describe('POST /api/userAuth/login', () => {
    it('signs in with any letter case of the email, without the password in the answer', async () => {
      const { email, user } = await signup(p);
      const res = await keyed(p).post('/api/userAuth/login', {
        email: email.toUpperCase(),
        password: PASSWORD,
      });
      expect(res.status).to.equal(200);
      expectNoSecrets(res);
      expect(res.body.data.user._id).to.equal(user._id);
      expect(res.body.data.token).to.equal(res.body.data.accessToken);
      expect(res.body.data.refreshToken).to.match(/^rt_/);
    });

    it('answers the same 401 for a wrong password and an unknown email', async () => {
      const { email } = await signup(p);
      const wrong = await keyed(p).post('/api/userAuth/login', { email, password: 'wrong password' });
      const unknown = await keyed(p).post('/api/userAuth/login', {
        email: newEmail(),
        password: 'wrong password',
      });
      expect(wrong.status).to.equal(401);
      expect(unknown.status).to.equal(401);
      expect(wrong.body.message).to.equal(unknown.body.message);
      expect(wrong.body.code).to.equal(unknown.body.code);
    });

    it('answers 400 for a missing field and for an unknown one', async () => {
      const missing = await keyed(p).post('/api/userAuth/login', { email: 'x@example.test' });
      expect(missing.status).to.equal(400);
      const extra = await keyed(p).post('/api/userAuth/login', {
        email: 'x@example.test',
        password: 'x',
        admin: true,
      });
      expect(extra.status).to.equal(400);
      expect(extra.body.message).to.include('admin');
    });
  });

  describe('GET /api/userAuth/me', () => {
    it('returns the user of the token, without secrets', async () => {
      const { user, accessToken } = await signup(p, { name: 'Me' });
      const res = await bearer(p, accessToken).get('/api/userAuth/me');
      expect(res.status).to.equal(200);
      expectNoSecrets(res);
      expect(res.body.data).to.include({ _id: user._id, name: 'Me' });
    });

    it('answers 401 without a Bearer token, with a malformed one and for a deleted user', async () => {
      expect((await keyed(p).get('/api/userAuth/me')).status).to.equal(401);
      expect((await bearer(p, 'not-a-jwt').get('/api/userAuth/me')).body.code).to.equal('INVALID_TOKEN');
      const { user, accessToken } = await signup(p);
      await app.deps.db
        .project(p.project.id)
        .collection('users')
        .updateOne({ email: user.email }, { $set: { isDeleted: true } });
      const gone = await bearer(p, accessToken).get('/api/userAuth/me');
      expect(gone.status).to.equal(401);
      expect(gone.body.code).to.equal('USER_NOT_FOUND');
    });

    it('answers 401 TOKEN_EXPIRED for an expired access token', async () => {
      const { user } = await signup(p);
      // Signed with the project's own secret, as the service would, but with an exp in the past.
      const sealed = await app.services.repos.projects.jwtSecretEnc(p.project.id);
      const secret = decrypt(deriveKey(app.deps.config.encryptionKey, 'project-jwt-secret'), sealed!);
      const past = Math.floor(Date.now() / 1000) - 60;
      const expired = jwt.sign(
        { userId: user._id, pid: p.project.id, sub: user._id, iat: past - 900, exp: past },
        secret,
        { algorithm: 'HS256' },
      );
      const res = await bearer(p, expired).get('/api/userAuth/me');
      expect(res.status).to.equal(401);
      expect(res.body.code).to.equal('TOKEN_EXPIRED');
    });

    it('refuses a token of project A in project B', async () => {
      const other = await authProject(app);
      const { accessToken } = await signup(p);
      const res = await bearer(other, accessToken).get('/api/userAuth/me');
      expect(res.status).to.equal(401);
      expect(res.body.code).to.equal('INVALID_TOKEN');
    });
  });

  describe('PUT /api/userAuth/update-profile', () => {
    it('sets schema fields (dot paths too) and returns the full user', async () => {
      const { accessToken } = await signup(p, { name: 'Before' });
      const res = await bearer(p, accessToken).put('/api/userAuth/update-profile', {
        name: 'After',
        'preferences.theme': 'dark',
      });
      expect(res.status).to.equal(200);
      expect(res.body.message).to.equal('Updated');
      expectNoSecrets(res);
      expect(res.body.data).to.deep.include({ name: 'After', preferences: { theme: 'dark' } });
      expect((await bearer(p, accessToken).get('/api/userAuth/me')).body.data.name).to.equal('After');
    });

    for (const field of [
      'email',
      'password',
      'emailVerified',
      'identities',
      '_id',
      'updatedAt',
      'isDeleted',
    ]) {
      it(`refuses ${field} with 400`, async () => {
        const { accessToken } = await signup(p);
        const res = await bearer(p, accessToken).put('/api/userAuth/update-profile', { [field]: 'x' });
        expect(res.status).to.equal(400);
        expect(res.body.message).to.include(field);
      });
    }

    it('answers 400 for a wrong type, an unknown field and an empty body', async () => {
      const { accessToken } = await signup(p);
      const client = bearer(p, accessToken);
      expect((await client.put('/api/userAuth/update-profile', { age: 'x' })).status).to.equal(400);
      expect((await client.put('/api/userAuth/update-profile', { nope: 1 })).status).to.equal(400);
      expect((await client.put('/api/userAuth/update-profile', {})).status).to.equal(400);
    });

    it('answers 409 when a unique value belongs to another user', async () => {
      await signup(p, { username: 'first-user' });
      const { accessToken } = await signup(p);
      const res = await bearer(p, accessToken).put('/api/userAuth/update-profile', {
        username: 'first-user',
      });
      expect(res.status).to.equal(409);
      expect(res.body.message).to.include('username');
    });
  });

  describe('GET /api/userAuth/public/{username}', () => {
    it('returns only the public fields', async () => {
      const { user } = await signup(p, {
        username: 'ada-public',
        name: 'Ada',
        avatar: 'https://img.example/a.png',
        bio: 'private bio',
        age: 30,
      });
      const res = await keyed(p).get('/api/userAuth/public/ada-public');
      expect(res.status).to.equal(200);
      expectNoSecrets(res);
      expect(res.body.data).to.have.all.keys('_id', 'username', 'name', 'avatar', 'createdAt');
      expect(res.body.data._id).to.equal(user._id);
      expect(res.text).not.to.include(user.email);
    });

    it('answers 404 for an unknown username', async () => {
      const res = await keyed(p).get('/api/userAuth/public/nobody-here');
      expect(res.status).to.equal(404);
      expect(res.body.code).to.equal('USER_NOT_FOUND');
    });
  });

  describe('user.created event', () => {
    it('is emitted once per sign-up, without the password', async () => {
      const seen: any[] = [];
      app.services.events.on((event) => {
        if (event.projectId === p.project.id) seen.push(event);
      });
      const { user } = await signup(p);
      const event = seen.find((e) => e.documentId === user._id);
      expect(event).to.include({ name: 'user.created', collection: 'users' });
      expect(event.document).not.to.have.property('password');
    });
  });
});
