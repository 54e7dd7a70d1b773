// The trash over HTTP: delete to the trash, include_deleted, restore (404, 409), and the worker's
// purge of documents trashed more than 30 days ago, which gives their size back to the quota.
import { expect } from 'chai';
import { ISO, MISSING_ID, useDocumentsSuite } from './data-helpers.js';
import { trashPurgeJob } from '../../src/jobs/trash-purge.js';

describe('Data API: trash, restore and purge', () => {
  const { s, events, create, usage } = useDocumentsSuite('data_trash');

  describe('DELETE and restore', () => {
    it('moves a document to the trash: 200 { id, deletedAt }, gone from reads, visible with include_deleted', async () => {
      const doc = await create({ title: 'Bin me' });
      const before = await usage();
      events.length = 0;
      const res = await s.secret.delete(`/api/data/posts/${doc._id}`);
      expect(res.status).to.equal(200);
      expect(res.body).to.include({ success: true, message: 'Deleted' });
      expect(res.body.data.id).to.equal(doc._id);
      expect(res.body.data.deletedAt).to.match(ISO);
      expect(await usage()).to.equal(before); // reclaimed only by the purge
      expect(events.map((e) => [e.name, e.documentId, e.document])).to.deep.equal([
        ['document.deleted', doc._id, null],
      ]);

      expect((await s.publishable.get(`/api/data/posts/${doc._id}`)).status).to.equal(404);
      const list = await s.publishable.get('/api/data/posts', { query: { title: 'Bin me' } });
      expect(list.body.data).to.deep.equal([]);
      const shown = await s.publishable.get(`/api/data/posts/${doc._id}`, {
        query: { include_deleted: 'true' },
      });
      expect(shown.status).to.equal(200);
      expect(shown.body.data).to.include({ isDeleted: true, deletedAt: res.body.data.deletedAt });
      const listed = await s.publishable.get('/api/data/posts', {
        query: { title: 'Bin me', include_deleted: 'true' },
      });
      expect(listed.body.data.map((d: any) => d._id)).to.deep.equal([doc._id]);

      const again = await s.secret.delete(`/api/data/posts/${doc._id}`);
      expect(again.status).to.equal(404);
    });

    it('answers 400, 401, 403 and 404 as a write does', async () => {
      const doc = await create({ title: 'Keep' });
      expect((await s.secret.delete('/api/data/posts/xyz')).status).to.equal(400);
      expect((await s.app.client.delete(`/api/data/posts/${doc._id}`)).status).to.equal(401);
      expect((await s.publishable.delete(`/api/data/posts/${doc._id}`)).status).to.equal(403);
      expect((await s.secret.delete(`/api/data/posts/${MISSING_ID}`)).status).to.equal(404);
      expect((await s.secret.delete(`/api/data/nothing/${doc._id}`)).status).to.equal(404);
    });

    it('restores a trashed document: 200 Restored, active again, document.restored', async () => {
      const doc = await create({ title: 'Back' });
      await s.secret.delete(`/api/data/posts/${doc._id}`);
      events.length = 0;
      const res = await s.secret.post(`/api/data/posts/${doc._id}/restore`);
      expect(res.status).to.equal(200);
      expect(res.body).to.include({ success: true, message: 'Restored' });
      expect(res.body.data).to.include({ _id: doc._id, title: 'Back', isDeleted: false, deletedAt: null });
      expect(events.map((e) => e.name)).to.deep.equal(['document.restored']);
      expect((await s.publishable.get(`/api/data/posts/${doc._id}`)).status).to.equal(200);
    });

    it('answers 404 when the document is not in the trash, 400 for a malformed id, 401/403 by key', async () => {
      const doc = await create({ title: 'Active' });
      const active = await s.secret.post(`/api/data/posts/${doc._id}/restore`);
      expect(active.status).to.equal(404);
      expect(active.body.message).to.equal('Document not found in the trash');
      expect((await s.secret.post(`/api/data/posts/${MISSING_ID}/restore`)).status).to.equal(404);
      expect((await s.secret.post('/api/data/posts/1/restore')).status).to.equal(400);
      expect((await s.app.client.post(`/api/data/posts/${doc._id}/restore`)).status).to.equal(401);
      expect((await s.publishable.post(`/api/data/posts/${doc._id}/restore`)).status).to.equal(403);
    });

    it('answers 409 when a unique value of the document is now used by an active one', async () => {
      // The fixture's collection has no index for `code`: the restore checks the values itself,
      // so the answer is the same whether or not the index ignores trashed documents.
      await s.collection({
        name: 'coupons',
        mode: 'schema',
        fields: [{ name: 'code', type: 'String', unique: true }],
      });
      const first = (await s.secret.post('/api/data/coupons', { code: 'WELCOME' })).body.data;
      await s.secret.delete(`/api/data/coupons/${first._id}`);
      await s.secret.post('/api/data/coupons', { code: 'WELCOME' });
      const res = await s.secret.post(`/api/data/coupons/${first._id}/restore`);
      expect(res.status).to.equal(409);
      expect(res.body.message).to.equal(
        'Cannot restore: the value of "code" is now used by another document',
      );
      const still = await s.secret.get(`/api/data/coupons/${first._id}`, {
        query: { include_deleted: 'true' },
      });
      expect(still.body.data.isDeleted).to.equal(true);
    });
  });

  describe('the trash purge job', () => {
    it('removes documents trashed more than 30 days ago and gives their size back', async () => {
      const old = await create({ title: 'Old trash' });
      const recent = await create({ title: 'Recent trash' });
      await s.secret.delete(`/api/data/posts/${old._id}`);
      await s.secret.delete(`/api/data/posts/${recent._id}`);
      const posts = s.app.deps.db.project(s.fx.project.id).collection('posts');
      const { ObjectId } = await import('mongodb');
      await posts.updateOne(
        { _id: new ObjectId(old._id) },
        { $set: { deletedAt: new Date(Date.now() - 31 * 864e5) } },
      );
      await posts.updateOne(
        { _id: new ObjectId(recent._id) },
        { $set: { deletedAt: new Date(Date.now() - 29 * 864e5) } },
      );
      const before = await usage();

      const report = await trashPurgeJob(s.app.deps, s.app.services).purge();
      expect(report.removed).to.equal(1);
      expect(await posts.countDocuments({ _id: new ObjectId(old._id) })).to.equal(0);
      expect(await posts.countDocuments({ _id: new ObjectId(recent._id) })).to.equal(1);
      expect(before - (await usage()))
        .to.equal(report.bytes)
        .and.to.be.greaterThan(50);

      const again = await trashPurgeJob(s.app.deps, s.app.services).purge();
      expect(again.removed).to.equal(0);
    });

    it('is one of the worker jobs', async () => {
      const { workerJobs } = await import('../../src/jobs/worker.js');
      expect(workerJobs(s.app.deps, s.app.services).map((job) => job.name)).to.include('trash-purge');
    });
  });
});
