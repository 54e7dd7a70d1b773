import { expect } from 'chai';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createDeveloper, createProjectFixture, type ProjectFixture } from '../helpers/fixtures.js';
import { sha256 } from '../../src/lib/secrets.js';
import { listOperations } from '../../src/http/router.js';
import { loadSpec } from '../../src/app.js';

/** Every fixture developer's password (test/helpers/fixtures.ts). */
const PASSWORD = 'correct horse battery staple';
const inDays = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString();

describe('personal access tokens', () => {
  let app: TestApp;
  let owner: ProjectFixture;
  let second: { id: string };

  const asOwner = () => app.client.with({ cookie: owner.cookie });
  const bearer = (token: string) => app.client.with({ authorization: `Bearer ${token}` });
  async function newToken(body: Record<string, unknown>, cookie = owner.cookie) {
    const res = await app.client
      .with({ cookie })
      .post('/api/user/me/tokens', { password: PASSWORD, ...body });
    expect(res.status, res.text).to.equal(201);
    return res.body.data as { token: string; accessToken: { id: string; prefix: string } };
  }

  before(async () => {
    app = await startTestApp('dashboard', 'access-tokens', { ACCESS_TOKEN_REQUESTS_PER_MINUTE: '30' });
    owner = await createProjectFixture(app.services, 'First');
    const other = await asOwner().post('/api/projects', { name: 'Second' });
    expect(other.status).to.equal(201);
    second = other.body.data.project;
  });
  after(() => app.close());

  it('shows a token once, keeps only its hash and lists it by prefix', async () => {
    const { token, accessToken } = await newToken({ name: 'CI', scope: 'write', expiresAt: inDays(30) });
    expect(token).to.match(/^mbp_[\w-]{43}$/);
    expect(accessToken.prefix).to.equal(token.slice(0, 12));
    const stored = await app.deps.db.platform.collection('accessTokens').findOne({ name: 'CI' });
    expect(stored?.hash).to.equal(sha256(token));
    expect(JSON.stringify(stored)).to.not.include(token);
    const listed = await asOwner().get('/api/user/me/tokens');
    expect(listed.status).to.equal(200);
    expect(JSON.stringify(listed.body)).to.not.include(token);
    expect(listed.body.data.tokens[0]).to.include({ name: 'CI', prefix: token.slice(0, 12), scope: 'write' });
  });

  it('works as a bearer token on the dashboard API and records its last use', async () => {
    const { token, accessToken } = await newToken({ name: 'use', scope: 'write', expiresAt: inDays(1) });
    const projects = await bearer(token).get('/api/projects');
    expect(projects.status).to.equal(200);
    expect(projects.body.data.projects.map((p: { name: string }) => p.name)).to.have.members([
      'First',
      'Second',
    ]);
    const created = await bearer(token).post(`/api/projects/${owner.project.id}/collections`, {
      name: 'orders',
      mode: 'flexible',
      fields: [{ name: 'total', type: 'Number' }],
    });
    expect(created.status, created.text).to.equal(201);
    const listed = await asOwner().get('/api/user/me/tokens');
    const mine = listed.body.data.tokens.find((t: { id: string }) => t.id === accessToken.id);
    expect(mine.lastUsedAt).to.be.a('string');
  });

  it('lets a read token read and refuses every change with 403', async () => {
    const { token } = await newToken({ name: 'read', scope: 'read', expiresAt: inDays(1) });
    expect((await bearer(token).get(`/api/projects/${owner.project.id}`)).status).to.equal(200);
    const write = await bearer(token).patch(`/api/projects/${owner.project.id}`, { name: 'Renamed' });
    expect(write.status).to.equal(403);
    expect(write.body).to.include({ code: 'ACCESS_TOKEN_READ_ONLY' });
    expect((await asOwner().get(`/api/projects/${owner.project.id}`)).body.data.project.name).to.equal(
      'First',
    );
  });

  it('limits a token to its projects: others are not found, not listed, and no project is created', async () => {
    const { token } = await newToken({
      name: 'one project',
      scope: 'write',
      expiresAt: inDays(1),
      projectIds: [owner.project.id],
    });
    expect((await bearer(token).get(`/api/projects/${owner.project.id}`)).status).to.equal(200);
    const other = await bearer(token).get(`/api/projects/${second.id}`);
    expect(other.status).to.equal(404);
    const listed = await bearer(token).get('/api/projects');
    expect(listed.body.data.projects.map((p: { id: string }) => p.id)).to.deep.equal([owner.project.id]);
    const create = await bearer(token).post('/api/projects', { name: 'Third' });
    expect(create.status).to.equal(403);
    expect(create.body).to.include({ code: 'ACCESS_TOKEN_PROJECTS' });
  });

  it('refuses a project list naming a project the developer is not a member of', async () => {
    const stranger = await createProjectFixture(app.services, 'Stranger');
    const res = await asOwner().post('/api/user/me/tokens', {
      password: PASSWORD,
      name: 'bad',
      scope: 'read',
      expiresAt: inDays(1),
      projectIds: [stranger.project.id],
    });
    expect(res.status).to.equal(400);
    expect(res.body.message).to.include(`not a member of project ${stranger.project.id}`);
  });

  it('requires an expiry in the future and at most a year away', async () => {
    for (const [expiresAt, words] of [
      [inDays(-1), 'An access token must expire in the future: choose a later expiresAt'],
      [inDays(400), 'at most one year'],
    ] as const) {
      const res = await asOwner().post('/api/user/me/tokens', {
        password: PASSWORD,
        name: 'x',
        scope: 'read',
        expiresAt,
      });
      expect(res.status).to.equal(400);
      expect(res.body.message).to.include(words);
    }
    const missing = await asOwner().post('/api/user/me/tokens', {
      password: PASSWORD,
      name: 'x',
      scope: 'read',
    });
    expect(missing.status).to.equal(400);
  });

  it('refuses an expired token with its date, a revoked one at once, and a made-up one', async () => {
    const expired = await newToken({ name: 'old', scope: 'read', expiresAt: inDays(1) });
    const past = new Date(Date.now() - 86_400_000);
    await app.deps.db.platform
      .collection('accessTokens')
      .updateOne({ hash: sha256(expired.token) }, { $set: { expiresAt: past } });
    const late = await bearer(expired.token).get('/api/projects');
    expect(late.status).to.equal(401);
    expect(late.body).to.include({ code: 'ACCESS_TOKEN_EXPIRED' });
    expect(late.body.message).to.equal(
      `This access token expired on ${past.toISOString().slice(0, 10)}; create a new one on the Account page`,
    );

    const revoked = await newToken({ name: 'gone', scope: 'read', expiresAt: inDays(1) });
    expect((await bearer(revoked.token).get('/api/projects')).status).to.equal(200);
    expect((await asOwner().delete(`/api/user/me/tokens/${revoked.accessToken.id}`)).status).to.equal(200);
    const after = await bearer(revoked.token).get('/api/projects');
    expect(after.status).to.equal(401);
    expect(after.body).to.include({ code: 'ACCESS_TOKEN_REVOKED' });
    expect((await asOwner().delete(`/api/user/me/tokens/${revoked.accessToken.id}`)).status).to.equal(404);
    expect((await asOwner().delete('/api/user/me/tokens/not-an-id')).status).to.equal(400);

    const made = await bearer('mbp_' + 'A'.repeat(43)).get('/api/projects');
    expect(made.status).to.equal(401);
    expect(made.body).to.include({ code: 'INVALID_ACCESS_TOKEN' });
  });

  it('cannot change the account or manage tokens: those need a session', async () => {
    const { token } = await newToken({ name: 'acct', scope: 'write', expiresAt: inDays(1) });
    const password = await bearer(token).put('/api/user/me/password', {
      currentPassword: owner.password,
      newPassword: 'a brand new passphrase',
    });
    expect(password.status).to.equal(401);
    expect(
      (
        await bearer(token).post('/api/user/me/tokens', {
          password: PASSWORD,
          name: 'y',
          scope: 'write',
          expiresAt: inDays(1),
        })
      ).status,
    ).to.equal(401);
    expect((await bearer(token).get('/api/user/me/tokens')).status).to.equal(401);
    expect((await bearer(token).get('/api/user/me')).status).to.equal(200);
  });

  it("puts a token's requests into the request log of the project they named, never another tenant's", async () => {
    const { token, accessToken } = await newToken({ name: 'logged', scope: 'read', expiresAt: inDays(1) });
    const stranger = await createProjectFixture(app.services, 'Stranger');
    expect((await bearer(token).get(`/api/projects/${owner.project.id}/collections`)).status).to.equal(200);
    expect((await bearer(token).get(`/api/projects/${owner.project.id}/collections/nope`)).status).to.equal(
      404,
    );
    expect((await bearer(token).get(`/api/projects/${stranger.project.id}/collections`)).status).to.equal(
      404,
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
    await app.services.requestLog.flush();
    const mine = await asOwner().get(`/api/projects/${owner.project.id}/request-log`);
    const rows = mine.body.data.entries.filter(
      (e: { accessToken: string | null }) => e.accessToken === accessToken.prefix,
    );
    expect(
      rows.map((e: { method: string; status: number; keyKind: string }) => [e.method, e.status, e.keyKind]),
    ).to.deep.equal([
      ['GET', 404, 'accessToken'],
      ['GET', 200, 'accessToken'],
    ]);
    const theirs = await app.client
      .with({ cookie: stranger.cookie })
      .get(`/api/projects/${stranger.project.id}/request-log`);
    expect(theirs.body.data.entries).to.deep.equal([]);
  });

  it('keeps at most 50 live tokens per account and revokes only with a session', async () => {
    const busy = await createDeveloper(app.services);
    const session = app.client.with({ cookie: busy.cookie });
    let last = { token: '', accessToken: { id: '', prefix: '' } };
    for (let i = 0; i < 50; i++)
      last = await newToken({ name: `t${i}`, scope: 'read', expiresAt: inDays(1) }, busy.cookie);
    const body = { password: PASSWORD, name: 'one more', scope: 'read', expiresAt: inDays(1) };
    const over = await session.post('/api/user/me/tokens', body);
    expect(over.status).to.equal(403);
    expect(over.body).to.include({ code: 'ACCESS_TOKEN_LIMIT' });
    expect((await bearer(last.token).delete(`/api/user/me/tokens/${last.accessToken.id}`)).status).to.equal(
      401,
    );
    expect((await session.delete(`/api/user/me/tokens/${last.accessToken.id}`)).status).to.equal(200);
    expect((await session.post('/api/user/me/tokens', body)).status).to.equal(201);
  });

  it('loses a project at once when its developer is removed from it', async () => {
    const member = await createDeveloper(app.services);
    await app.services.repos.projects.addMember(owner.project.id, member.developer.id, 'member');
    const { token } = await newToken({ name: 'member', scope: 'read', expiresAt: inDays(1) }, member.cookie);
    expect((await bearer(token).get(`/api/projects/${owner.project.id}`)).status).to.equal(200);
    const removed = await asOwner().delete(
      `/api/projects/${owner.project.id}/members/${member.developer.id}`,
    );
    expect(removed.status).to.equal(200);
    expect((await bearer(token).get(`/api/projects/${owner.project.id}`)).status).to.equal(404);
  });

  it('is rate-limited per token: past the limit a 429 with Retry-After, other tokens unaffected', async () => {
    const { token } = await newToken({ name: 'busy', scope: 'read', expiresAt: inDays(1) });
    const { token: calm } = await newToken({ name: 'calm', scope: 'read', expiresAt: inDays(1) });
    const statuses: number[] = [];
    for (let i = 0; i < 31; i++) statuses.push((await bearer(token).get('/api/user/me')).status);
    expect(statuses.slice(0, 30).every((s) => s === 200)).to.equal(true);
    const refused = await bearer(token).get('/api/user/me');
    expect(refused.status).to.equal(429);
    expect(Number(refused.headers.get('retry-after'))).to.be.greaterThan(0);
    expect(refused.body.message).to.include('30 requests per minute for this access token');
    expect((await bearer(calm).get('/api/user/me')).status).to.equal(200);
  });
});

describe('personal access tokens on every operation that takes them', () => {
  let app: TestApp;
  let owner: ProjectFixture;
  const LIMIT = 5;
  // Path parameters only have to reach the route: the token is checked before validation.
  const filled = (path: string) =>
    path.replace(/\{(\w+)\}/g, (_m, name: string) =>
      /Id$/.test(name) ? '65f1c2a4b7e8d90012345678' : 'posts',
    );
  const operations = listOperations(loadSpec('dashboard')).filter((op) =>
    op.security.some((requirement) => 'personalAccessToken' in requirement),
  );

  before(async () => {
    app = await startTestApp('dashboard', 'access-tokens-table', {
      ACCESS_TOKEN_REQUESTS_PER_MINUTE: String(LIMIT),
    });
    owner = await createProjectFixture(app.services);
  });
  after(() => app.close());

  async function tokenOf(scope: 'read' | 'write') {
    const res = await app.client.with({ cookie: owner.cookie }).post('/api/user/me/tokens', {
      password: PASSWORD,
      name: scope,
      scope,
      expiresAt: inDays(1),
    });
    return res.body.data.token as string;
  }

  it('answers 403 to a read-only token on every operation that changes something', async () => {
    let token = '';
    let used = LIMIT;
    for (const op of operations.filter((o) => o.method !== 'get')) {
      if (used === LIMIT) [token, used] = [await tokenOf('read'), 0];
      used++;
      const res = await app.client
        .with({ authorization: `Bearer ${token}` })
        .request(op.method.toUpperCase(), filled(op.path));
      expect(res.status, `${op.operationId}: ${res.text}`).to.equal(403);
      expect(res.body.code, op.operationId).to.equal('ACCESS_TOKEN_READ_ONLY');
    }
  });

  it('answers 429 with Retry-After on every operation once the token has used its minute', async () => {
    const token = await tokenOf('write');
    const client = app.client.with({ authorization: `Bearer ${token}` });
    for (let i = 0; i < LIMIT; i++) expect((await client.get('/api/user/me')).status).to.equal(200);
    for (const op of operations) {
      const res = await client.request(op.method.toUpperCase(), filled(op.path));
      expect(res.status, `${op.operationId}: ${res.text}`).to.equal(429);
      expect(res.headers.get('retry-after'), op.operationId).to.match(/^\d+$/);
    }
  });
});
