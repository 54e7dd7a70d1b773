import { expect } from 'chai';
import type { ApiClient } from '../helpers/client.js';
import { expectNoSecrets, useEndUsersSuite, type Who } from './end-users-shared.js';

type Call = (c: ApiClient, userId: string) => Promise<{ status: number; body: any; text: string }>;

describe('end-user management', () => {
  const s = useEndUsersSuite('end_users');
  const dashPath = (rest = '') => `/api/projects/${s.projectId}/users${rest}`;

  /** Each operation on both APIs: [name, dashboard call, public call]. */
  const operations: [string, Call, Call][] = [
    ['list', (c) => c.get(dashPath()), (c) => c.get('/api/users')],
    ['get', (c, id) => c.get(dashPath(`/${id}`)), (c, id) => c.get(`/api/users/${id}`)],
    [
      'update',
      (c, id) => c.patch(dashPath(`/${id}`), { name: 'Changed' }),
      (c, id) => c.patch(`/api/users/${id}`, { name: 'Changed' }),
    ],
    ['disable', (c, id) => c.post(dashPath(`/${id}/disable`)), (c, id) => c.post(`/api/users/${id}/disable`)],
    ['enable', (c, id) => c.post(dashPath(`/${id}/enable`)), (c, id) => c.post(`/api/users/${id}/enable`)],
    [
      'revoke sessions',
      (c, id) => c.post(dashPath(`/${id}/revoke-sessions`)),
      (c, id) => c.post(`/api/users/${id}/revoke-sessions`),
    ],
    ['delete', (c, id) => c.delete(dashPath(`/${id}`)), (c, id) => c.delete(`/api/users/${id}`)],
  ];
  const readOnly = new Set(['list', 'get']);

  describe('permission table', () => {
    for (const [name, dash, pub] of operations) {
      it(`${name}: dashboard admin${readOnly.has(name) ? ' and member' : ''}, secret key`, async () => {
        const { id } = await s.signup();
        const expected: Record<Who, number> = {
          none: 401,
          other: 404,
          member: readOnly.has(name) ? 200 : 404,
          admin: 200,
        };
        for (const who of ['none', 'other', 'member'] as const) {
          const res = await dash(s.as(who), id);
          expect(res.status, `${who}: ${res.text}`).to.equal(expected[who]);
          if (res.status === 404) expect(res.body.code).to.equal('PROJECT_NOT_FOUND');
        }
        const noKey = await pub(s.apps.public.client, id);
        expect(noKey.status).to.equal(401);
        const publishable = await pub(s.pk, id);
        expect(publishable.status).to.equal(403);
        expect(publishable.body.code).to.equal('SECRET_KEY_REQUIRED');
        const byKey = await pub(s.secret, id);
        expect(byKey.status, byKey.text).to.equal(200);
        expectNoSecrets(byKey.text);
        if (name === 'delete') {
          const again = await s.signup();
          const byAdmin = await dash(s.as('admin'), again.id);
          expect(byAdmin.status, byAdmin.text).to.equal(200);
        } else {
          const byAdmin = await dash(s.as('admin'), id);
          expect(byAdmin.status, byAdmin.text).to.equal(200);
          expectNoSecrets(byAdmin.text);
        }
      });
    }

    it('keeps /api/data/users closed to every key', async () => {
      for (const client of [s.secret, s.pk]) {
        const res = await client.get('/api/data/users');
        expect(res.status).to.equal(403);
        expect(res.body.code).to.equal('USERS_COLLECTION');
      }
    });
  });

  it('answers 400 for a malformed user id and 404 for an unknown one, on every operation', async () => {
    for (const [name, dash, pub] of operations) {
      if (name === 'list') continue;
      for (const client of [s.as('admin')]) {
        const bad = await dash(client, 'nope');
        expect(bad.status, `${name} dashboard`).to.equal(400);
        expect(bad.body).to.include({ code: 'INVALID_USER_ID', message: 'Invalid user ID' });
        const unknown = await dash(client, '65f1c2a4b7e8d90012345678');
        expect(unknown.status, `${name} dashboard`).to.equal(404);
        expect(unknown.body.code).to.equal('USER_NOT_FOUND');
      }
      expect((await pub(s.secret, 'nope')).status, `${name} public`).to.equal(400);
      const unknown = await pub(s.secret, '65f1c2a4b7e8d90012345678');
      expect(unknown.status, `${name} public`).to.equal(404);
      expect(unknown.body.code).to.equal('USER_NOT_FOUND');
    }
  });

  it('refuses dashboard writes from another origin (403) and changes nothing', async () => {
    const { id } = await s.signup({ name: 'Kept' });
    const evil = s.as('admin').with({ origin: 'https://evil.example' });
    for (const [name, dash] of operations) {
      if (readOnly.has(name)) continue;
      const res = await dash(evil, id);
      expect(res.status, name).to.equal(403);
      expect(res.body.code).to.equal('CSRF_ORIGIN_MISMATCH');
    }
    const still = await s.secret.get(`/api/users/${id}`);
    expect(still.body.data).to.include({ name: 'Kept', disabled: false });
  });

  it('lists newest first, searches by email prefix, filters by state and pages', async () => {
    const tag = `zz${Date.now()}`;
    const made = [];
    for (let i = 0; i < 3; i++) made.push(await s.signup({ username: `${tag}${i}` }));
    // Emails are random; give these three a common prefix through the stored documents.
    const users = s.apps.public.deps.db.project(s.projectId).collection('users');
    for (const [i, u] of made.entries()) {
      await users.updateOne({ email: u.email }, { $set: { email: `${tag}-${i}@example.test` } });
    }
    const first = await s.secret.get('/api/users', {
      query: { email: tag.toUpperCase(), limit: 2, total: true },
    });
    expect(first.status).to.equal(200);
    expect(first.body.data.map((u: any) => u.username)).to.deep.equal([`${tag}2`, `${tag}1`]);
    expect(first.body.pagination).to.deep.equal({
      page: 1,
      limit: 2,
      hasMore: true,
      nextCursor: null,
      total: 3,
    });
    const second = await s.as('member').get(dashPath(), { query: { email: tag, limit: 2, page: 2 } });
    expect(second.body.data.map((u: any) => u.username)).to.deep.equal([`${tag}0`]);
    expect(second.body.pagination.hasMore).to.equal(false);
    expect(second.body.data[0]).to.include({ disabled: false, role: 'user' });
    expectNoSecrets(second.text);

    await s.secret.post(`/api/users/${made[1]!.id}/disable`);
    const disabled = await s.secret.get('/api/users', { query: { email: tag, disabled: true } });
    expect(disabled.body.data.map((u: any) => u.username)).to.deep.equal([`${tag}1`]);
    const active = await s.secret.get('/api/users', { query: { email: tag, disabled: false } });
    expect(active.body.data.map((u: any) => u.username)).to.deep.equal([`${tag}2`, `${tag}0`]);
    const regex = await s.secret.get('/api/users', { query: { email: '.*' } });
    expect(regex.body.data).to.deep.equal([], 'the prefix is literal, not a pattern');
    const clamped = await s.secret.get('/api/users', { query: { limit: 5000 } });
    expect(clamped.body.pagination.limit).to.equal(1000);
  });

  it('searches the email and the name for a text anywhere, any case, literally, within the page', async () => {
    const tag = `yy${Date.now()}`;
    const users = s.apps.public.deps.db.project(s.projectId).collection('users');
    const made = [];
    for (const [email, name] of [
      [`enduser-ann-${tag}@example.test`, 'Someone'],
      [`bob-${tag}@example.test`, `Joanna ${tag}`],
      [`carl-${tag}@example.test`, `Carl ${tag}`],
      [`dot.${tag}@example.test`, 'a+b (c)'],
    ]) {
      const u = await s.signup({ username: `${tag}-${made.length}` });
      await users.updateOne({ email: u.email }, { $set: { email, name } });
      made.push(email);
    }
    const search = async (text: string, client = s.secret, path = '/api/users') => {
      const res = await client.get(path, { query: { search: text } });
      expect(res.status, res.text).to.equal(200);
      return res.body.data.map((u: any) => u.email as string);
    };
    // "ann" is in an email (not at its start) and, in another case, in a name.
    const upper = await search('ANN');
    expect(upper).to.include.members([made[0], made[1]]);
    const both = await search(`ann`, s.as('member'), dashPath());
    expect(both.filter((e: string) => e.endsWith(`${tag}@example.test`)).sort()).to.deep.equal(
      [made[0], made[1]].sort(),
    );
    // The text is literal: pattern characters match themselves, not anything.
    expect(await search('.*')).to.deep.equal([]);
    expect(await search('a+b (c)')).to.deep.equal([made[3]]);
    expect(await search(`dot.${tag}`)).to.deep.equal([made[3]]);
    // Within the list's limits: paged, combined with the state filter, a length bound.
    const page = await s.secret.get('/api/users', { query: { search: tag, limit: 2, total: true } });
    expect(page.body.data).to.have.length(2);
    expect(page.body.pagination).to.include({ hasMore: true, total: 4 });
    expect((await s.secret.get('/api/users', { query: { search: 'x'.repeat(101) } })).status).to.equal(400);
  });

  it('answers 400 for a bad page and for a project without a users collection', async () => {
    expect((await s.secret.get('/api/users', { query: { page: 0 } })).status).to.equal(400);
    expect((await s.as('admin').get(dashPath(), { query: { limit: 0 } })).status).to.equal(400);
    const bare = await s.as('admin').post('/api/projects', { name: 'Bare' });
    const res = await s.apps.public.client
      .with({ 'x-api-key': bare.body.data.keys.secret })
      .get('/api/users');
    expect(res.status).to.equal(400);
    expect(res.body.code).to.equal('USERS_COLLECTION_MISSING');
  });

  it('sets fields as the developer, validated by the schema; a taken unique value is a 409', async () => {
    const a = await s.signup({ username: `a${Date.now()}` });
    const b = await s.signup();
    const set = await s.secret.patch(`/api/users/${b.id}`, { role: 'editor', emailVerified: true });
    expect(set.status, set.text).to.equal(200);
    expect(set.body.data).to.include({ role: 'editor', emailVerified: true });
    const byAdmin = await s.as('admin').patch(dashPath(`/${b.id}`), { phone: '+1 555' });
    expect(byAdmin.body.data).to.include({ role: 'editor', phone: '+1 555' });
    const taken = await s.secret.patch(`/api/users/${b.id}`, {
      username: (await s.secret.get(`/api/users/${a.id}`)).body.data.username,
    });
    expect(taken.status).to.equal(409);
    const takenDash = await s.as('admin').patch(dashPath(`/${b.id}`), {
      username: (await s.secret.get(`/api/users/${a.id}`)).body.data.username,
    });
    expect(takenDash.status).to.equal(409);
    for (const body of [
      { age: 3 },
      { role: 5 },
      { email: 'x@example.test' },
      { password: 'x'.repeat(12) },
      { disabled: true },
      { emailVerified: 'yes' },
    ]) {
      const res = await s.secret.patch(`/api/users/${b.id}`, body);
      expect(res.status, JSON.stringify(body)).to.equal(400);
    }
    const refused = await s.as('admin').patch(dashPath(`/${b.id}`), { identities: [] });
    expect(refused.status).to.equal(400);
    expect(refused.body.code).to.equal('FIELD_NOT_ALLOWED');
    const empty = await s.secret.patch(`/api/users/${b.id}`, {});
    expect(empty.status).to.equal(400);
  });
});
