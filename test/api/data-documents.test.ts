// Documents over HTTP: create, read and update (PUT and PATCH): envelopes, validation, unique
// values, keys, the database quota counter and the events of every change.
import { expect } from 'chai';
import { ISO, MISSING_ID, OBJECT_ID, useDocumentsSuite } from './data-helpers.js';

describe('Data API: documents', () => {
  const { s, events, create, usage } = useDocumentsSuite('data_docs');

  describe('POST /api/data/:collectionName', () => {
    it('answers 201 with the saved document, its _id, defaults and system fields', async () => {
      const res = await s.secret.post('/api/data/posts', {
        title: 'Hello',
        publishedAt: '2025-03-01T10:00:00Z',
        meta: { views: 1 },
      });
      expect(res.status).to.equal(201);
      expect(res.body).to.include({ success: true, message: 'Created' });
      const doc = res.body.data;
      expect(doc._id).to.match(OBJECT_ID);
      expect(doc).to.include({
        title: 'Hello',
        views: 0,
        published: false,
        isDeleted: false,
        deletedAt: null,
      });
      expect(doc.publishedAt).to.equal('2025-03-01T10:00:00.000Z');
      expect(doc.createdAt).to.match(ISO);
      expect(doc.updatedAt).to.equal(doc.createdAt);
      const stored = await s.app.deps.db
        .project(s.fx.project.id)
        .collection('posts')
        .findOne({ title: 'Hello' });
      expect(stored!.publishedAt).to.be.instanceOf(Date);
      expect(stored!.createdAt).to.be.instanceOf(Date);
    });

    it('refuses a document without a required field: 400 naming the field', async () => {
      const res = await s.secret.post('/api/data/posts', { views: 3 });
      expect(res.status).to.equal(400);
      expect(res.body).to.include({
        success: false,
        data: null,
        message: 'Validation failed: title is required',
      });
    });

    it('refuses a wrong type, an unknown field and a system field', async () => {
      const wrong = await s.secret.post('/api/data/posts', { title: 'x', views: '3' });
      expect(wrong.status).to.equal(400);
      expect(wrong.body.message).to.equal('Validation failed: views must be a Number');
      const unknown = await s.secret.post('/api/data/posts', { title: 'x', nope: 1 });
      expect(unknown.status).to.equal(400);
      expect(unknown.body.message).to.equal('Validation failed: nope is not a field of this collection');
      for (const field of ['isDeleted', 'deletedAt', 'createdAt', 'updatedAt', '_id']) {
        const res = await s.secret.post('/api/data/posts', { title: 'x', [field]: true });
        expect(res.status, field).to.equal(400);
        expect(res.body.code, field).to.equal('SYSTEM_FIELD');
        expect(res.body.message).to.include(field);
      }
    });

    it('refuses a body that is not an object', async () => {
      const res = await s.secret.post('/api/data/posts', [{ title: 'x' }]);
      expect(res.status).to.equal(400);
      expect(res.body.message).to.match(/^Validation failed: /);
    });

    it('stores any JSON in a flexible collection', async () => {
      const body = { text: 42, nested: { deep: [1, { a: 'b' }] }, flag: true, nothing: null };
      const res = await s.secret.post('/api/data/notes', body);
      expect(res.status).to.equal(201);
      expect(res.body.data).to.deep.include(body);
    });

    it('answers 409 naming the field when a unique value is taken', async () => {
      await create({ title: 'first', slug: 'same' });
      const res = await s.secret.post('/api/data/posts', { title: 'second', slug: 'same' });
      expect(res.status).to.equal(409);
      expect(res.body).to.include({ success: false, code: 'DUPLICATE_VALUE' });
      expect(res.body.message).to.include('"slug"');
    });

    it('answers 404 for a collection that is not registered', async () => {
      const res = await s.secret.post('/api/data/nothing', { title: 'x' });
      expect(res.status).to.equal(404);
      expect(res.body).to.include({
        code: 'COLLECTION_NOT_FOUND',
        message: 'Collection "nothing" not found',
      });
    });

    it('answers 401 without a key or with an unknown one', async () => {
      const none = await s.app.client.post('/api/data/posts', { title: 'x' });
      expect(none.status).to.equal(401);
      const wrong = await s.app.client
        .with({ 'x-api-key': 'sk_live_nope' })
        .post('/api/data/posts', { title: 'x' });
      expect(wrong.status).to.equal(401);
    });

    it('moves databaseUsed by the stored size and emits document.created', async () => {
      const before = await usage();
      events.length = 0;
      const doc = await create({ title: 'Sized', tags: ['a', 'b'] });
      const after = await usage();
      expect(after - before).to.be.within(100, 400);
      expect(events.map((e) => e.name)).to.deep.equal(['document.created']);
      expect(events[0]).to.include({ projectId: s.fx.project.id, collection: 'posts', documentId: doc._id });
      expect(events[0]!.document).to.deep.equal(doc);
    });
  });

  describe('GET /api/data/:collectionName/:id', () => {
    it('answers 200 with the document; the publishable key reads', async () => {
      const doc = await create({ title: 'Readable' });
      const res = await s.publishable.get(`/api/data/posts/${doc._id}`);
      expect(res.status).to.equal(200);
      expect(res.body).to.deep.equal({ success: true, data: doc, message: '' });
    });

    it('selects fields and leaves out the metadata with meta=false', async () => {
      const doc = await create({ title: 'Fields', views: 7 });
      const some = await s.publishable.get(`/api/data/posts/${doc._id}`, { query: { fields: 'views' } });
      expect(some.body.data).to.deep.equal({ _id: doc._id, views: 7 });
      const bare = await s.publishable.get(`/api/data/posts/${doc._id}`, { query: { meta: 'false' } });
      expect(bare.body.data).to.not.have.any.keys('isDeleted', 'deletedAt', 'createdAt', 'updatedAt');
      expect(bare.body.data).to.include({ title: 'Fields', views: 7 });
    });

    it('answers 404 for an unknown id and 400 for an id that is not an object id', async () => {
      const missing = await s.publishable.get(`/api/data/posts/${MISSING_ID}`);
      expect(missing.status).to.equal(404);
      expect(missing.body).to.include({ code: 'DOCUMENT_NOT_FOUND', message: 'Document not found' });
      for (const id of ['nope', '123', 'zzzzzzzzzzzzzzzzzzzzzzzz', '0123456789abcdef012345678']) {
        const res = await s.publishable.get(`/api/data/posts/${id}`);
        expect(res.status, id).to.equal(400);
        expect(res.body).to.include({ code: 'INVALID_ID', message: 'Invalid document ID' });
      }
    });

    it('answers 401 without a key', async () => {
      const res = await s.app.client.get(`/api/data/posts/${MISSING_ID}`);
      expect(res.status).to.equal(401);
    });
  });

  for (const method of ['put', 'patch'] as const) {
    describe(`${method.toUpperCase()} /api/data/:collectionName/:id`, () => {
      it('changes only the given fields, nested ones by dot path, and answers the full document', async () => {
        const doc = await create({ title: 'Old', views: 1, meta: { views: 1, lang: 'en' } });
        events.length = 0;
        const res = await s.secret[method](`/api/data/posts/${doc._id}`, { title: 'New', 'meta.views': 5 });
        expect(res.status).to.equal(200);
        expect(res.body).to.include({ success: true, message: 'Updated' });
        const updated = res.body.data;
        expect(updated).to.include({
          _id: doc._id,
          title: 'New',
          views: 1,
          isDeleted: false,
          deletedAt: null,
        });
        expect(updated.meta).to.deep.equal({ views: 5, lang: 'en' });
        expect(updated.createdAt).to.equal(doc.createdAt);
        expect(new Date(updated.updatedAt).getTime()).to.be.at.least(new Date(doc.updatedAt).getTime());
        expect(events.map((e) => e.name)).to.deep.equal(['document.updated']);
        expect(events[0]!.document).to.deep.equal(updated);
      });

      it('validates the changes: 400 for a wrong type, an unknown field, a cleared required field', async () => {
        const doc = await create({ title: 'Strict' });
        const wrong = await s.secret[method](`/api/data/posts/${doc._id}`, { views: 'many' });
        expect(wrong.status).to.equal(400);
        expect(wrong.body.message).to.equal('Validation failed: views must be a Number');
        const unknown = await s.secret[method](`/api/data/posts/${doc._id}`, { 'meta.nope': 1 });
        expect(unknown.status).to.equal(400);
        expect(unknown.body.message).to.equal(
          'Validation failed: meta.nope is not a field of this collection',
        );
        const cleared = await s.secret[method](`/api/data/posts/${doc._id}`, { title: null });
        expect(cleared.status).to.equal(400);
        expect(cleared.body.message).to.equal('Validation failed: title is required');
        const empty = await s.secret[method](`/api/data/posts/${doc._id}`, {});
        expect(empty.status).to.equal(400);
        expect(empty.body.message).to.equal('Validation failed: the body names no field to change');
        const system = await s.secret[method](`/api/data/posts/${doc._id}`, { isDeleted: true });
        expect(system.status).to.equal(400);
        expect(system.body.code).to.equal('SYSTEM_FIELD');
      });

      it('answers 404 for an unknown or trashed document and 400 for a malformed id', async () => {
        const missing = await s.secret[method](`/api/data/posts/${MISSING_ID}`, { title: 'x' });
        expect(missing.status).to.equal(404);
        const doc = await create({ title: 'Trashed' });
        await s.secret.delete(`/api/data/posts/${doc._id}`);
        const trashed = await s.secret[method](`/api/data/posts/${doc._id}`, { title: 'x' });
        expect(trashed.status).to.equal(404);
        const malformed = await s.secret[method]('/api/data/posts/not-an-id', { title: 'x' });
        expect(malformed.status).to.equal(400);
        expect(malformed.body.code).to.equal('INVALID_ID');
      });

      it('answers 409 when the new value of a unique field is taken', async () => {
        await create({ title: 'a', slug: `taken-${method}` });
        const doc = await create({ title: 'b', slug: `free-${method}` });
        const res = await s.secret[method](`/api/data/posts/${doc._id}`, { slug: `taken-${method}` });
        expect(res.status).to.equal(409);
        expect(res.body.message).to.include('"slug"');
      });

      it('answers 401 without a key and 403 with the publishable key (no RLS)', async () => {
        const doc = await create({ title: 'Keys' });
        const none = await s.app.client[method](`/api/data/posts/${doc._id}`, { title: 'x' });
        expect(none.status).to.equal(401);
        const publishable = await s.publishable[method](`/api/data/posts/${doc._id}`, { title: 'x' });
        expect(publishable.status).to.equal(403);
        expect(publishable.body.code).to.equal('PUBLISHABLE_KEY_READ_ONLY');
      });

      it('moves databaseUsed by the size difference', async () => {
        const doc = await create({ title: 'Grow' });
        const before = await usage();
        await s.secret[method](`/api/data/posts/${doc._id}`, { title: 'Grow'.repeat(50) });
        expect((await usage()) - before).to.equal('Grow'.repeat(50).length - 'Grow'.length);
        await s.secret[method](`/api/data/posts/${doc._id}`, { title: 'Grow' });
        expect(await usage()).to.equal(before);
      });
    });
  }
});
