// Bulk create and the database quota over HTTP: all documents validated before any is written,
// all or nothing on a unique clash, and 403 QUOTA_EXCEEDED for writes over the plan's size.
import { expect } from 'chai';
import { OBJECT_ID, useDocumentsSuite } from './data-helpers.js';

describe('Data API: bulk create and quota', () => {
  const { s, events, create, usage } = useDocumentsSuite('data_bulk');

  describe('POST /api/data/:collectionName/bulk', () => {
    it('creates every document: 201 with the array in order', async () => {
      events.length = 0;
      const res = await s.secret.post('/api/data/posts/bulk', {
        documents: [{ title: 'one' }, { title: 'two', views: 2 }],
      });
      expect(res.status).to.equal(201);
      expect(res.body.data.map((d: any) => [d.title, d.views])).to.deep.equal([
        ['one', 0],
        ['two', 2],
      ]);
      expect(res.body.data[0]._id).to.match(OBJECT_ID);
      expect(events.filter((e) => e.name === 'document.created')).to.have.length(2);
    });

    it('validates all documents before writing any: 400 naming the document', async () => {
      const res = await s.secret.post('/api/data/posts/bulk', {
        documents: [{ title: 'bulk-ok-1' }, { title: 'bulk-ok-2' }, { views: 1 }],
      });
      expect(res.status).to.equal(400);
      expect(res.body.message).to.equal('Validation failed: documents.2.title is required');
      const written = await s.secret.get('/api/data/posts', { query: { title_regex: '^bulk-ok' } });
      expect(written.body.data).to.deep.equal([]);
    });

    it('refuses more than 100 documents and an empty list', async () => {
      const many = Array.from({ length: 101 }, (_, i) => ({ title: `t${i}` }));
      expect((await s.secret.post('/api/data/posts/bulk', { documents: many })).status).to.equal(400);
      expect((await s.secret.post('/api/data/posts/bulk', { documents: [] })).status).to.equal(400);
      const extra = await s.secret.post('/api/data/posts/bulk', { documents: [{ title: 'x' }], more: 1 });
      expect(extra.status).to.equal(400);
      expect(extra.body.message).to.equal('Validation failed: more is not allowed');
    });

    it('answers 409 for a unique value repeated in the batch or taken, and writes nothing', async () => {
      const inBatch = await s.secret.post('/api/data/posts/bulk', {
        documents: [
          { title: 'x', slug: 'dup-1' },
          { title: 'y', slug: 'dup-1' },
        ],
      });
      expect(inBatch.status).to.equal(409);
      expect(inBatch.body.message).to.equal('Duplicate value for "slug": documents 0 and 1 share it');

      await create({ title: 'owner of slug', slug: 'dup-2' });
      const taken = await s.secret.post('/api/data/posts/bulk', {
        documents: [
          { title: 'bulk-409-a', slug: 'dup-3' },
          { title: 'bulk-409-b', slug: 'dup-2' },
          { title: 'bulk-409-c' },
        ],
      });
      expect(taken.status).to.equal(409);
      expect(taken.body.message).to.include('"slug"');
      const written = await s.secret.get('/api/data/posts', { query: { title_regex: '^bulk-409' } });
      expect(written.body.data).to.deep.equal([]);
    });

    it('answers 401, 403 and 404 like a single create', async () => {
      const body = { documents: [{ title: 'x' }] };
      expect((await s.app.client.post('/api/data/posts/bulk', body)).status).to.equal(401);
      expect((await s.publishable.post('/api/data/posts/bulk', body)).status).to.equal(403);
      expect((await s.secret.post('/api/data/nothing/bulk', body)).status).to.equal(404);
    });
  });

  describe('the database quota', () => {
    it('refuses a write over the plan size with 403 QUOTA_EXCEEDED and writes nothing', async () => {
      const used = await usage();
      await s.app.services.repos.projects.setLimits(s.fx.project.id, { databaseBytes: used + 150 });
      try {
        const small = await s.secret.post('/api/data/notes', { text: 'fits' });
        expect(small.status).to.equal(201);
        const big = await s.secret.post('/api/data/notes', { text: 'x'.repeat(500) });
        expect(big.status).to.equal(403);
        expect(big.body.code).to.equal('QUOTA_EXCEEDED');
        expect(big.body.message).to.match(/^Database quota exceeded/);
        const bulk = await s.secret.post('/api/data/notes/bulk', {
          documents: [{ text: 'x'.repeat(100) }, { text: 'y'.repeat(100) }],
        });
        expect(bulk.status).to.equal(403);
        const grow = await s.secret.patch(`/api/data/notes/${small.body.data._id}`, {
          text: 'x'.repeat(500),
        });
        expect(grow.status).to.equal(403);
        const shrink = await s.secret.patch(`/api/data/notes/${small.body.data._id}`, { text: '' });
        expect(shrink.status).to.equal(200);
        const left = await s.secret.get('/api/data/notes', { query: { text_regex: '^x{100}' } });
        expect(left.body.data).to.deep.equal([]);
      } finally {
        await s.app.services.repos.projects.setLimits(s.fx.project.id, {});
      }
    });
  });
});
