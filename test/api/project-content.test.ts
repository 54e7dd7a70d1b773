// The dashboard's own document and file endpoints (/api/projects/{id}/data/... and /files...):
// project members read and write with their session cookie, with the secret key's rights, through
// the data and storage services; everyone else gets the dashboard's usual 401/404.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { startTestApps } from '../helpers/app.js';
import {
  contextFor,
  createDeveloper,
  createProjectFixture,
  POST_FIELDS,
  type ProjectFixture,
} from '../helpers/fixtures.js';
import type { ApiClient } from '../helpers/client.js';
import { bytes, putBytes, rebase } from './storage-shared.js';

describe('dashboard: a project’s documents and files (members, session cookie)', () => {
  let apps: Awaited<ReturnType<typeof startTestApps>>;
  let dir: string;
  let fx: ProjectFixture;
  let admin: ApiClient;
  let member: ApiClient;
  let stranger: ApiClient;
  let anonymous: ApiClient;
  let base: string;
  let files: string;

  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'baas-content-'));
    apps = await startTestApps('project_content', { S3_BUCKET: '', STORAGE_DIR: dir });
    const services = apps.dashboard.services;
    fx = await createProjectFixture(services);
    const other = await createDeveloper(services);
    await services.members.add(fx.project, other.developer.email, 'member');
    const outsider = await createDeveloper(services);
    anonymous = apps.dashboard.client;
    admin = anonymous.with({ cookie: fx.cookie });
    member = anonymous.with({ cookie: other.cookie });
    stranger = anonymous.with({ cookie: outsider.cookie });
    await services.collections.create(contextFor({ developer: fx.developer }), fx.project.id, {
      name: 'posts',
      mode: 'schema',
      fields: POST_FIELDS,
    });
    await services.collections.create(contextFor({ developer: fx.developer }), fx.project.id, {
      name: 'users',
      mode: 'schema',
      fields: [{ name: 'name', type: 'String' }],
    });
    base = `/api/projects/${fx.project.id}/data`;
    files = `/api/projects/${fx.project.id}/files`;
  });
  after(async () => {
    await apps?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  describe('documents', () => {
    let id: string;

    it('a member adds, reads, lists and changes documents; defaults and validation are the data API’s', async () => {
      const created = await member.post(`${base}/posts`, { title: 'Hello', slug: 'hello' });
      expect(created.status, created.text).to.equal(201);
      expect(created.body.data).to.include({ title: 'Hello', views: 0, isDeleted: false });
      id = created.body.data._id;

      const read = await member.get(`${base}/posts/${id}`);
      expect(read.status).to.equal(200);
      expect(read.body.data.title).to.equal('Hello');

      await admin.post(`${base}/posts`, { title: 'Second', slug: 'second', views: 5 });
      const list = await admin.get(`${base}/posts`, { query: { sort: '-views', views_gte: 0, total: true } });
      expect(list.status).to.equal(200);
      expect(list.body.data.map((d: any) => d.title)).to.deep.equal(['Second', 'Hello']);
      expect(list.body.pagination).to.include({ total: 2, hasMore: false });
      const count = await admin.get(`${base}/posts`, { query: { count: true } });
      expect(count.body.data).to.deep.equal({ count: 2 });

      const changed = await member.patch(`${base}/posts/${id}`, { views: 3 });
      expect(changed.status).to.equal(200);
      expect(changed.body).to.include({ message: 'Updated' });
      expect(changed.body.data).to.include({ title: 'Hello', views: 3 });
    });

    it('answers the data API’s 400s naming the field, and 409 for a taken unique value', async () => {
      const wrongType = await admin.post(`${base}/posts`, { title: 5 });
      expect(wrongType.status).to.equal(400);
      expect(wrongType.body.message).to.match(/title/);
      const missing = await admin.patch(`${base}/posts/${id}`, { views: 'many' });
      expect(missing.status).to.equal(400);
      expect(missing.body.message).to.match(/views/);
      const badFilter = await admin.get(`${base}/posts`, { query: { nope_gt: 1 } });
      expect(badFilter.status).to.equal(400);
      const badId = await admin.get(`${base}/posts/not-an-id`);
      expect(badId.status).to.equal(400);
      expect((await admin.delete(`${base}/posts/not-an-id`)).status).to.equal(400);
      expect((await admin.post(`${base}/posts/not-an-id/restore`)).status).to.equal(400);

      const taken = await admin.post(`${base}/posts`, { title: 'Copy', slug: 'hello' });
      expect(taken.status).to.equal(409);
      const takenOnUpdate = await admin.patch(`${base}/posts/${id}`, { slug: 'second' });
      expect(takenOnUpdate.status).to.equal(409);
    });

    it('moves a document to the trash, lists the trash and restores it (409 when its unique value is taken)', async () => {
      const trashed = await member.delete(`${base}/posts/${id}`);
      expect(trashed.status).to.equal(200);
      expect(trashed.body.data.id).to.equal(id);
      expect((await admin.get(`${base}/posts/${id}`)).status).to.equal(404);
      const seen = await admin.get(`${base}/posts/${id}`, { query: { include_deleted: true } });
      expect(seen.status).to.equal(200);
      expect(seen.body.data.isDeleted).to.equal(true);

      const trash = await admin.get(`${base}/posts`, { query: { trash: true } });
      expect(trash.body.data.map((d: any) => d._id)).to.deep.equal([id]);
      const active = await admin.get(`${base}/posts`);
      expect(active.body.data.map((d: any) => d.title)).to.deep.equal(['Second']);

      const again = await admin.delete(`${base}/posts/${id}`);
      expect(again.status).to.equal(404);

      const squatter = await admin.post(`${base}/posts`, { title: 'Squatter', slug: 'hello' });
      const blocked = await admin.post(`${base}/posts/${id}/restore`);
      expect(blocked.status).to.equal(409);
      await admin.delete(`${base}/posts/${squatter.body.data._id}`);

      const restored = await member.post(`${base}/posts/${id}/restore`);
      expect(restored.status, restored.text).to.equal(200);
      expect(restored.body.data).to.include({ _id: id, isDeleted: false });
      expect((await admin.post(`${base}/posts/${id}/restore`)).status).to.equal(404);
    });

    it('moves many documents to the trash and back in one request each, saying per id what happened', async () => {
      const made: string[] = [];
      for (const title of ['Bulk 1', 'Bulk 2', 'Bulk 3'])
        made.push((await admin.post(`${base}/posts`, { title })).body.data._id);
      const missing = '65f1c2a4b7e8d90012345670';
      const trashed = await member.post(`${base}/posts/bulk/delete`, { ids: [...made, missing] });
      expect(trashed.status, trashed.text).to.equal(200);
      expect(trashed.body.message).to.equal('3 moved to trash, 1 not found');
      expect(trashed.body.data.results.map((r: any) => r.status)).to.deep.equal([
        'trashed',
        'trashed',
        'trashed',
        'notFound',
      ]);
      const trash = await admin.get(`${base}/posts`, { query: { trash: true } });
      expect(trash.body.data.map((d: any) => d._id)).to.include.members(made);

      const restored = await admin.post(`${base}/posts/bulk/restore`, { ids: [made[0], made[1], missing] });
      expect(restored.status).to.equal(200);
      expect(restored.body.message).to.equal('2 restored, 1 not found');
      expect(restored.body.data.counts).to.deep.equal({
        trashed: 0,
        restored: 2,
        notFound: 1,
        forbidden: 0,
        conflict: 0,
      });
      expect((await admin.get(`${base}/posts/${made[0]}`)).status).to.equal(200);
      expect((await admin.get(`${base}/posts/${made[2]}`)).status).to.equal(404);

      const tooMany = Array.from({ length: 101 }, (_, i) => (i + 1).toString(16).padStart(24, '0'));
      const over = await admin.post(`${base}/posts/bulk/delete`, { ids: tooMany });
      expect(over.status).to.equal(400);
      expect(over.body.message).to.equal('Validation failed: ids must hold at most 100 items');
      expect((await admin.post(`${base}/posts/bulk/restore`, { ids: tooMany })).status).to.equal(400);
      const body = { ids: [missing] };
      expect((await anonymous.post(`${base}/posts/bulk/delete`, body)).status).to.equal(401);
      expect((await anonymous.post(`${base}/posts/bulk/restore`, body)).status).to.equal(401);
      expect((await admin.post(`${base}/users/bulk/delete`, body)).status).to.equal(403);
      expect((await admin.post(`${base}/users/bulk/restore`, body)).status).to.equal(403);
      expect((await admin.post(`${base}/nothing/bulk/delete`, body)).status).to.equal(404);
      expect((await stranger.post(`${base}/posts/bulk/restore`, body)).status).to.equal(404);
    });

    it('keeps the users collection out (403) and answers 404 for unknown collections, documents and non-members', async () => {
      const usersList = await admin.get(`${base}/users`);
      expect(usersList.status).to.equal(403);
      expect(usersList.body.code).to.equal('USERS_COLLECTION');
      expect((await admin.post(`${base}/users`, { name: 'x' })).status).to.equal(403);
      const someId = '65f1c2a4b7e8d90012345670';
      expect((await admin.get(`${base}/users/${someId}`)).status).to.equal(403);
      expect((await admin.patch(`${base}/users/${someId}`, { name: 'y' })).status).to.equal(403);
      expect((await admin.delete(`${base}/users/${someId}`)).status).to.equal(403);
      expect((await admin.post(`${base}/users/${someId}/restore`)).status).to.equal(403);

      expect((await admin.get(`${base}/nothing`)).status).to.equal(404);
      expect((await admin.post(`${base}/nothing`, { a: 1 })).status).to.equal(404);
      expect((await admin.get(`${base}/posts/${someId}`)).status).to.equal(404);
      expect((await admin.patch(`${base}/posts/${someId}`, { views: 1 })).status).to.equal(404);
      const strangers = await stranger.get(`${base}/posts`);
      expect(strangers.status).to.equal(404);
      expect(strangers.body.message).to.equal('Project not found or access denied');
    });

    it('needs a session (401) and refuses cookie writes from another site (403)', async () => {
      const someId = '65f1c2a4b7e8d90012345670';
      expect((await anonymous.get(`${base}/posts`)).status).to.equal(401);
      expect((await anonymous.post(`${base}/posts`, { title: 'x' })).status).to.equal(401);
      expect((await anonymous.get(`${base}/posts/${someId}`)).status).to.equal(401);
      expect((await anonymous.patch(`${base}/posts/${someId}`, { views: 1 })).status).to.equal(401);
      expect((await anonymous.delete(`${base}/posts/${someId}`)).status).to.equal(401);
      expect((await anonymous.post(`${base}/posts/${someId}/restore`)).status).to.equal(401);
      const evil = admin.with({ origin: 'https://evil.example' });
      const forged = await evil.post(`${base}/posts`, { title: 'forged' });
      expect(forged.status).to.equal(403);
      expect(forged.body.code).to.equal('CSRF_ORIGIN_MISMATCH');
    });
  });

  describe('files', () => {
    const content = bytes(2048);
    let filePath: string;

    it('uploads through the presigned flow: request, PUT, confirm (409 before the bytes), list', async () => {
      const ticket = await member.post(`${files}/upload-request`, {
        filename: 'logo.png',
        contentType: 'image/png',
        size: content.length,
      });
      expect(ticket.status, ticket.text).to.equal(200);
      filePath = ticket.body.data.filePath;
      expect(filePath.startsWith(`${fx.project.id}/`)).to.equal(true);

      const early = await member.post(`${files}/upload-confirm`, { filePath, size: content.length });
      expect(early.status).to.equal(409);
      expect(early.body.code).to.equal('UPLOAD_NOT_READY');

      const put = await putBytes(rebase(ticket.body.data.signedUrl, apps.public.url), content, 'image/png');
      expect(put.status).to.equal(200);
      const confirmed = await member.post(`${files}/upload-confirm`, { filePath, size: content.length });
      expect(confirmed.status, confirmed.text).to.equal(200);
      expect(confirmed.body.data).to.include({ path: filePath, size: content.length });

      const list = await member.get(files);
      expect(list.status).to.equal(200);
      expect(list.body.data).to.have.length(1);
      expect(list.body.data[0]).to.include({
        path: filePath,
        filename: 'logo.png',
        contentType: 'image/png',
      });
      expect(list.body.pagination).to.deep.equal({ limit: 50, hasMore: false, nextCursor: null });
    });

    it('pages the file list by cursor (400 for a cursor it did not issue)', async () => {
      const second = await admin.post(`${files}/upload-request`, {
        filename: 'b.txt',
        contentType: 'text/plain',
        size: 3,
      });
      await putBytes(rebase(second.body.data.signedUrl, apps.public.url), Buffer.from('abc'), 'text/plain');
      await admin.post(`${files}/upload-confirm`, { filePath: second.body.data.filePath, size: 3 });
      const first = await admin.get(files, { query: { limit: 1 } });
      expect(first.body.data[0].filename).to.equal('b.txt');
      expect(first.body.pagination.hasMore).to.equal(true);
      const next = await admin.get(files, { query: { limit: 1, cursor: first.body.pagination.nextCursor } });
      expect(next.body.data[0].filename).to.equal('logo.png');
      expect(next.body.pagination.hasMore).to.equal(false);
      const bad = await admin.get(files, { query: { cursor: 'nope' } });
      expect(bad.status).to.equal(400);
      await admin.delete(files, { path: second.body.data.filePath });
    });

    it('answers 400, 401, 403, 404 and 413 as the storage API does', async () => {
      const invalid = await admin.post(`${files}/upload-request`, { filename: 'x' });
      expect(invalid.status).to.equal(400);
      const tooBig = await admin.post(`${files}/upload-request`, {
        filename: 'big.bin',
        contentType: 'application/octet-stream',
        size: 11 * 1024 * 1024,
      });
      expect(tooBig.status).to.equal(413);
      expect((await admin.post(`${files}/upload-confirm`, { filePath: 'bad', size: 1 })).status).to.equal(
        400,
      );
      expect((await admin.delete(files, { path: 'bad' })).status).to.equal(400);
      const unknown = `${fx.project.id}/00000000-0000-0000-0000-000000000000_x.bin`;
      expect((await admin.post(`${files}/upload-confirm`, { filePath: unknown, size: 1 })).status).to.equal(
        404,
      );
      expect((await admin.delete(files, { path: unknown })).status).to.equal(404);
      expect((await stranger.get(files)).status).to.equal(404);
      expect(
        (
          await stranger.post(`${files}/upload-request`, {
            filename: 'a',
            contentType: 'text/plain',
            size: 1,
          })
        ).status,
      ).to.equal(404);

      expect((await anonymous.get(files)).status).to.equal(401);
      expect(
        (
          await anonymous.post(`${files}/upload-request`, {
            filename: 'a',
            contentType: 'text/plain',
            size: 1,
          })
        ).status,
      ).to.equal(401);
      expect((await anonymous.post(`${files}/upload-confirm`, { filePath, size: 1 })).status).to.equal(401);
      expect((await anonymous.delete(files, { path: filePath })).status).to.equal(401);

      const evil = admin.with({ origin: 'https://evil.example' });
      const forged = [
        await evil.post(`${files}/upload-request`, { filename: 'a', contentType: 'text/plain', size: 1 }),
        await evil.post(`${files}/upload-confirm`, { filePath, size: 1 }),
        await evil.delete(files, { path: filePath }),
      ];
      expect(forged.map((r) => r.status)).to.deep.equal([403, 403, 403]);
    });

    it('deletes a file permanently (404 the second time) and gives its bytes back', async () => {
      const before = (await apps.dashboard.services.repos.projects.findById(fx.project.id))!.usage
        .storageUsed;
      const removed = await member.delete(files, { path: filePath });
      expect(removed.status).to.equal(200);
      expect(removed.body.message).to.equal('File deleted successfully');
      expect((await member.delete(files, { path: filePath })).status).to.equal(404);
      const after = (await apps.dashboard.services.repos.projects.findById(fx.project.id))!.usage.storageUsed;
      expect(before - after).to.equal(content.length);
      expect((await member.get(files)).body.data).to.deep.equal([]);
    });
  });
});
