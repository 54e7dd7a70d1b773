import { setTimeout as sleep } from 'node:timers/promises';
import { expect } from 'chai';
import { PASSWORD, useEndUsersSuite } from './end-users-shared.js';
import { rebase, upload } from './storage-shared.js';

describe('end-user management: disable, sign out, delete', () => {
  const s = useEndUsersSuite('end_users_life');
  const login = (email: string, password = PASSWORD) => s.pk.post('/api/userAuth/login', { email, password });
  const refresh = (refreshToken: string) => s.pk.post('/api/userAuth/refresh-token', { refreshToken });

  it('disables a user: no login, no refresh, access tokens refused at once; enable lets them in again', async () => {
    const u = await s.signup();
    const second = (await login(u.email)).body.data;
    expect((await s.bearer(u.accessToken).get('/api/userAuth/me')).status).to.equal(200);

    const disabled = await s.as('admin').post(`/api/projects/${s.projectId}/users/${u.id}/disable`);
    expect(disabled.status).to.equal(200);
    expect(disabled.body.data).to.include({ disabled: true });
    expect(disabled.body.data.disabledAt).to.be.a('string');

    for (const token of [u.accessToken, second.accessToken]) {
      const me = await s.bearer(token).get('/api/userAuth/me');
      expect(me.status).to.equal(401);
      expect(me.body.code).to.equal('TOKEN_REVOKED');
      const write = await s.bearer(token).post('/api/data/notes', { text: 'x' });
      expect(write.status).to.equal(401);
    }
    for (const token of [u.refreshToken, second.refreshToken]) {
      expect((await refresh(token)).status).to.equal(401);
    }
    const right = await login(u.email);
    const wrong = await login(u.email, 'wrong password!');
    expect(wrong.status).to.equal(401, 'a wrong password does not tell the account is disabled');
    expect([right.status, right.body.code, right.body.message]).to.deep.equal(
      [wrong.status, wrong.body.code, wrong.body.message],
      'nor does the right one',
    );

    const enabled = await s.secret.post(`/api/users/${u.id}/enable`);
    expect(enabled.body.data.disabled).to.equal(false);
    expect(enabled.body.data).not.to.have.property('disabledAt');
    await sleep(1100); // tokens of the second the user was disabled in stay void
    const back = await login(u.email);
    expect(back.status).to.equal(200);
    expect((await s.bearer(back.body.data.accessToken).get('/api/userAuth/me')).status).to.equal(200);
    expect((await s.bearer(u.accessToken).get('/api/userAuth/me')).status).to.equal(401);
  });

  it('refuses the refresh of a user disabled while a session was being opened', async () => {
    const u = await s.signup();
    // A login that read the user just before the disable still creates a family: the refresh
    // checks the user itself.
    await s.apps.public.deps.db
      .project(s.projectId)
      .collection('users')
      .updateOne({ email: u.email }, { $set: { disabled: true } });
    const res = await refresh(u.refreshToken);
    expect(res.status).to.equal(403);
    expect(res.body.code).to.equal('USER_DISABLED');
    await s.secret.post(`/api/users/${u.id}/enable`);
    expect((await refresh(u.refreshToken)).status).to.equal(401, 'the refused token was spent');
  });

  it('revokes every session of a user; they may log in again', async () => {
    const u = await s.signup();
    const other = (await login(u.email)).body.data;
    const third = (await login(u.email)).body.data;
    const res = await s.secret.post(`/api/users/${u.id}/revoke-sessions`);
    expect(res.status).to.equal(200);
    expect(res.body.data).to.deep.equal({ revokedSessions: 3 });
    for (const t of [u, other, third]) {
      expect((await refresh(t.refreshToken)).status).to.equal(401);
      expect((await s.bearer(t.accessToken).get('/api/userAuth/me')).body.code).to.equal('TOKEN_REVOKED');
    }
    await sleep(1100);
    const back = await login(u.email);
    expect((await s.bearer(back.body.data.accessToken).get('/api/userAuth/me')).status).to.equal(200);
  });

  it('deletes a user and keeps their documents unless asked to erase them', async () => {
    const u = await s.signup();
    const note = await s.bearer(u.accessToken).post('/api/data/notes', { text: 'mine' });
    expect(note.status).to.equal(201);
    const res = await s.as('admin').delete(`/api/projects/${s.projectId}/users/${u.id}`);
    expect(res.status).to.equal(200);
    expect(res.body.data.id).to.equal(u.id);
    expect(res.body.data).not.to.have.property('erased');
    expect((await s.secret.get(`/api/data/notes/${note.body.data._id}`)).status).to.equal(200);
    expect((await login(u.email)).status).to.equal(401);
    expect((await refresh(u.refreshToken)).status).to.equal(401);
    expect((await s.bearer(u.accessToken).post('/api/data/notes', { text: 'x' })).status).to.equal(401);
    expect((await s.secret.get(`/api/users/${u.id}`)).status).to.equal(404);
  });

  it('erases a user with the documents and files they own, and gives the quota back', async () => {
    await s.as('admin').patch(`/api/projects/${s.projectId}/storage`, { endUserUploads: true });
    const u = await s.signup();
    const keep = await s.signup();
    const mine = s.bearer(u.accessToken);
    for (const text of ['a', 'b'])
      expect((await mine.post('/api/data/notes', { text })).status).to.equal(201);
    const trashed = await mine.post('/api/data/notes', { text: 'c' });
    await mine.delete(`/api/data/notes/${trashed.body.data._id}`);
    const theirs = await s.bearer(keep.accessToken).post('/api/data/notes', { text: 'kept' });
    const open = await s.secret.post('/api/data/open', { userId: u.id });
    const file = await upload(
      { client: mine, url: (x) => rebase(x, s.apps.public.url) },
      Buffer.from('hey'),
      'text/plain',
      'a.txt',
    );
    expect(
      (await mine.post('/api/storage/upload-confirm', { filePath: file.filePath, size: 3 })).status,
    ).to.equal(200);
    const project = () => s.apps.public.services.repos.projects.findById(s.projectId);
    const before = (await project())!.usage;

    const res = await s.secret.delete(`/api/users/${u.id}`, undefined, { query: { documents: true } });
    expect(res.status, res.text).to.equal(200);
    expect(res.body.data.erased).to.deep.equal({ documents: { notes: 3 }, files: 1 });

    const notes = s.apps.public.deps.db.project(s.projectId).collection('notes');
    expect(await notes.countDocuments({ userId: u.id })).to.equal(0);
    expect((await s.secret.get(`/api/data/notes/${theirs.body.data._id}`)).status).to.equal(200);
    expect((await s.secret.get(`/api/data/open/${open.body.data._id}`)).status).to.equal(
      200,
      'no RLS, not owned',
    );
    expect((await s.apps.public.client.get(`/files/${file.filePath}`)).status).to.equal(404);
    const after = (await project())!.usage;
    expect(after.storageUsed).to.equal(before.storageUsed - 3);
    expect(after.databaseUsed).to.be.below(before.databaseUsed);
    const platform = s.apps.public.deps.db.platform;
    expect(await platform.collection('user_refresh_tokens').countDocuments({ userId: u.id })).to.equal(0);
    expect(await platform.collection('user_auth_codes').countDocuments({ email: u.email })).to.equal(0);
    expect(await platform.collection('files').countDocuments({ ownerUserId: u.id })).to.equal(0);
    expect(
      await s.apps.public.deps.db.project(s.projectId).collection('users').countDocuments({ email: u.email }),
    ).to.equal(0);
  });
});
