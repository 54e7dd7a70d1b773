// The trash over HTTP: delete to the trash, include_deleted, restore (404, 409), and the worker's
// purge of documents trashed more than 30 days ago, which gives their size back to the quota.
import { expect } from 'chai';
import { ISO, MISSING_ID, useDocumentsSuite } from './data-helpers.js';
import { trashPurgeJob } from '../../src/jobs/trash-purge.js';

describe('Data API: trash, restore and purge', () => {
  const { s, events, create, usage, storedSize } = useDocumentsSuite('data_trash');

  describe('DELETE and restore', () => {
    it('moves a document to the trash: 200 { id, deletedAt }, gone from reads, visible with include_deleted', async () => {
      const doc = await create({ title: 'Bin me' });
      const before = await usage();
      const sizeBefore = await storedSize('posts', doc._id);
      events.length = 0;
      const res = await s.secret.delete(`/api/data/posts/${doc._id}`);
      expect(res.status).to.equal(200);
      expect(res.body).to.include({ success: true, message: 'Deleted' });
      expect(res.body.data.id).to.equal(doc._id);
      expect(res.body.data.deletedAt).to.match(ISO);
      // Not reclaimed before the purge; the counter follows what the trashed document now weighs.
      expect((await usage()) - before).to.equal((await storedSize('posts', doc._id)) - sizeBefore);
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
      expect(shown.body.data).to.have.all.keys(Object.keys(doc)); // no internal bookkeeping shown
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
      const before = await usage();
      await s.secret.delete(`/api/data/posts/${doc._id}`);
      events.length = 0;
      const res = await s.secret.post(`/api/data/posts/${doc._id}/restore`);
      expect(res.status).to.equal(200);
      expect(res.body).to.include({ success: true, message: 'Restored' });
      expect(res.body.data).to.include({ _id: doc._id, title: 'Back', isDeleted: false, deletedAt: null });
      expect(events.map((e) => e.name)).to.deep.equal(['document.restored']);
      expect((await s.publishable.get(`/api/data/posts/${doc._id}`)).status).to.equal(200);
      expect(await usage()).to.equal(before);
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

  describe('unique values of trashed documents', () => {
    const post = (slug: string, title = 'Unique') => s.secret.post('/api/data/posts', { title, slug });

    it('are free again: delete, then create with the same value is a 201; include_deleted shows both', async () => {
      const first = (await post('same-slug', 'First')).body.data;
      expect((await post('same-slug', 'Clash')).status).to.equal(409);
      expect((await s.secret.delete(`/api/data/posts/${first._id}`)).status).to.equal(200);

      const second = await post('same-slug', 'Second');
      expect(second.status, second.text).to.equal(201);
      const listed = await s.secret.get('/api/data/posts', {
        query: { slug: 'same-slug', include_deleted: 'true', sort: '_id' },
      });
      expect(listed.body.data.map((d: any) => [d.title, d.slug, d.isDeleted])).to.deep.equal([
        ['First', 'same-slug', true],
        ['Second', 'same-slug', false],
      ]);
      const trashed = await s.secret.get(`/api/data/posts/${first._id}`, {
        query: { include_deleted: 'true' },
      });
      expect(trashed.body.data).to.include({ slug: 'same-slug', isDeleted: true });
      const aggregated = await s.secret.post(
        '/api/data/posts/aggregate',
        { pipeline: [{ $match: { slug: 'same-slug' } }, { $sort: { _id: 1 } }] },
        { query: { include_deleted: 'true' } },
      );
      expect(aggregated.body.data.map((d: any) => d.slug)).to.deep.equal(['same-slug', 'same-slug']);
      expect(aggregated.body.data[0]).to.have.all.keys(Object.keys(first));
      const counted = await s.secret.get('/api/data/posts', {
        query: { slug: 'same-slug', count: 'true' },
      });
      expect(counted.body.data).to.deep.equal({ count: 1 });
    });

    it('restore is a 409 naming the field while the value is taken, a 200 with the value back once free', async () => {
      const first = (await post('back-slug', 'First')).body.data;
      await s.secret.delete(`/api/data/posts/${first._id}`);
      const second = (await post('back-slug', 'Second')).body.data;

      const refused = await s.secret.post(`/api/data/posts/${first._id}/restore`);
      expect(refused.status).to.equal(409);
      expect(refused.body.message).to.equal(
        'Cannot restore: the value of "slug" is now used by another document',
      );
      expect(refused.body.details).to.deep.equal([{ path: 'slug', message: 'slug must be unique' }]);

      await s.secret.delete(`/api/data/posts/${second._id}`);
      const restored = await s.secret.post(`/api/data/posts/${first._id}/restore`);
      expect(restored.status).to.equal(200);
      expect(restored.body.data).to.include({ _id: first._id, slug: 'back-slug', isDeleted: false });
      expect(Object.keys(restored.body.data).sort()).to.deep.equal(Object.keys(first).sort());
      // The restored document holds the value again.
      expect((await post('back-slug', 'Third')).status).to.equal(409);
    });

    it('a trashed document that is deleted twice over (delete, re-create, delete) does not clash', async () => {
      const a = (await post('twice', 'A')).body.data;
      await s.secret.delete(`/api/data/posts/${a._id}`);
      const b = (await post('twice', 'B')).body.data;
      expect((await s.secret.delete(`/api/data/posts/${b._id}`)).status).to.equal(200);
      expect((await post('twice', 'C')).status).to.equal(201);
    });

    it('the internal trash marker cannot be written, filtered or sorted by', async () => {
      const body = await s.secret.post('/api/data/notes', { text: 'x', _trashId: 'y' });
      expect(body.status).to.equal(400);
      expect(body.body.code).to.equal('SYSTEM_FIELD');
      const filter = await s.secret.get('/api/data/notes', { query: { _trashId_exists: 'true' } });
      expect(filter.status).to.equal(400);
      const sort = await s.secret.get('/api/data/notes', { query: { sort: '_trashId' } });
      expect(sort.status).to.equal(400);
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
