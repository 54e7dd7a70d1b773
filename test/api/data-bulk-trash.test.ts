// Bulk trash and restore over HTTP (`POST /api/data/{c}/bulk/delete|restore`): an answer per id
// (trashed, restored, not found, another user's, a unique value taken), the 100-id limit driven
// past, the database counter read back, one event per document on the bus and on a live stream.
import { expect } from 'chai';
import { ISO, MISSING_ID, rls, USER_A, USER_B, useDocumentsSuite } from './data-helpers.js';
import { SseStream, streamUrl } from '../helpers/sse.js';

const OTHER_MISSING = 'fedcba9876543210fedcba98';
const ids = (n: number, from = 0) =>
  Array.from({ length: n }, (_, i) => (from + i).toString(16).padStart(24, '0'));

describe('Data API: bulk trash and restore', () => {
  const { s, events, create, usage, storedSize } = useDocumentsSuite('data_bulk_trash');

  describe('POST /api/data/:collectionName/bulk/delete', () => {
    it('trashes the active ids, says per id what happened, with counts and words', async () => {
      const a = await create({ title: 'bulk-a' });
      const b = await create({ title: 'bulk-b' });
      const gone = await create({ title: 'bulk-gone' });
      await s.secret.delete(`/api/data/posts/${gone._id}`);
      const before = await usage();
      const sizes = [await storedSize('posts', a._id), await storedSize('posts', b._id)];
      events.length = 0;

      const res = await s.secret.post('/api/data/posts/bulk/delete', {
        ids: [a._id, MISSING_ID, b._id.toUpperCase(), gone._id, a._id],
      });
      expect(res.status, res.text).to.equal(200);
      expect(res.body.message).to.equal('2 moved to trash, 2 not found');
      const { results, counts } = res.body.data;
      expect(results.map((r: any) => [r.id, r.status])).to.deep.equal([
        [a._id, 'trashed'],
        [MISSING_ID, 'notFound'],
        [b._id, 'trashed'],
        [gone._id, 'notFound'],
      ]);
      expect(results[0].deletedAt).to.match(ISO);
      expect(results[1].message).to.equal('Document not found');
      expect(counts).to.deep.equal({ trashed: 2, restored: 0, notFound: 2, forbidden: 0, conflict: 0 });

      // One event per trashed document, as DELETE emits it.
      expect(events.map((e) => [e.name, e.documentId, e.document]).sort()).to.deep.equal(
        [
          ['document.deleted', a._id, null],
          ['document.deleted', b._id, null],
        ].sort(),
      );
      expect(events.every((e) => e.removed?.isDeleted === true)).to.equal(true);
      // The counter moved by what the two documents now weigh more (their trash marker).
      const after = [await storedSize('posts', a._id), await storedSize('posts', b._id)];
      expect((await usage()) - before).to.equal(after[0]! + after[1]! - sizes[0]! - sizes[1]!);
      const shown = await s.secret.get(`/api/data/posts/${a._id}`, { query: { include_deleted: 'true' } });
      expect(shown.body.data).to.include({ isDeleted: true, deletedAt: results[0].deletedAt });
      expect((await s.secret.get(`/api/data/posts/${b._id}`)).status).to.equal(404);
    });

    it('takes 100 ids and refuses 101, none, a malformed id and a key of its own with a 400 in words', async () => {
      const hundred = await s.secret.post('/api/data/posts/bulk/delete', { ids: ids(100, 1) });
      expect(hundred.status, hundred.text).to.equal(200);
      expect(hundred.body.data.counts.notFound).to.equal(100);
      expect(hundred.body.message).to.equal('100 not found');

      const over = await s.secret.post('/api/data/posts/bulk/delete', { ids: ids(101, 1) });
      expect(over.status).to.equal(400);
      expect(over.body.message).to.equal('Validation failed: ids must hold at most 100 items');
      const none = await s.secret.post('/api/data/posts/bulk/delete', { ids: [] });
      expect(none.status).to.equal(400);
      expect(none.body.message).to.equal('Validation failed: ids must hold at least 1 item');
      const bad = await s.secret.post('/api/data/posts/bulk/delete', { ids: [MISSING_ID, 'xyz'] });
      expect(bad.status).to.equal(400);
      expect(bad.body.message).to.equal('Validation failed: ids.1 must be an object id of 24 hex characters');
      const extra = await s.secret.post('/api/data/posts/bulk/delete', { ids: [MISSING_ID], all: true });
      expect(extra.status).to.equal(400);
    });

    it('answers 401, 403 and 404 as a single delete does', async () => {
      const body = { ids: [MISSING_ID] };
      expect((await s.app.client.post('/api/data/posts/bulk/delete', body)).status).to.equal(401);
      const readOnly = await s.publishable.post('/api/data/posts/bulk/delete', body);
      expect(readOnly.status).to.equal(403);
      expect(readOnly.body.code).to.equal('PUBLISHABLE_KEY_READ_ONLY');
      expect((await s.secret.post('/api/data/users/bulk/delete', body)).status).to.equal(403);
      const unknown = await s.secret.post('/api/data/nothing/bulk/delete', body);
      expect(unknown.status).to.equal(404);
      expect(unknown.body.code).to.equal('COLLECTION_NOT_FOUND');
    });
  });

  describe('POST /api/data/:collectionName/bulk/restore', () => {
    it('restores the trashed ids; active and missing ones are not found; a taken unique value is a conflict', async () => {
      const a = await create({ title: 'back-a', slug: 'bulk-back-a' });
      const b = await create({ title: 'back-b' });
      const active = await create({ title: 'back-active' });
      const taken = await create({ title: 'back-taken', slug: 'bulk-taken' });
      // Two trashed documents with one slug: the first comes back, the second clashes with it.
      const twinOne = await create({ title: 'twin-1', slug: 'bulk-twin' });
      await s.secret.post('/api/data/posts/bulk/delete', { ids: [a._id, b._id, taken._id, twinOne._id] });
      const twinTwo = await create({ title: 'twin-2', slug: 'bulk-twin' });
      await s.secret.delete(`/api/data/posts/${twinTwo._id}`);
      await create({ title: 'squatter', slug: 'bulk-taken' });
      const before = await usage();
      events.length = 0;

      const res = await s.secret.post('/api/data/posts/bulk/restore', {
        ids: [a._id, active._id, b._id, MISSING_ID, taken._id, twinOne._id, twinTwo._id],
      });
      expect(res.status, res.text).to.equal(200);
      expect(res.body.data.results.map((r: any) => [r.id, r.status])).to.deep.equal([
        [a._id, 'restored'],
        [active._id, 'notFound'],
        [b._id, 'restored'],
        [MISSING_ID, 'notFound'],
        [taken._id, 'conflict'],
        [twinOne._id, 'restored'],
        [twinTwo._id, 'conflict'],
      ]);
      const conflict = res.body.data.results[4];
      expect(conflict.message).to.equal(
        'Cannot restore: the value of "slug" is now used by another document',
      );
      expect(res.body.data.results[1].message).to.equal('Document not found in the trash');
      expect(res.body.message).to.equal('3 restored, 2 not found, 2 in conflict');
      expect(events.map((e) => e.name)).to.deep.equal([
        'document.restored',
        'document.restored',
        'document.restored',
      ]);
      expect(events.map((e) => e.documentId).sort()).to.deep.equal([a._id, b._id, twinOne._id].sort());
      expect(events.every((e) => e.document?.isDeleted === false)).to.equal(true);

      for (const id of [a._id, b._id, twinOne._id])
        expect((await s.secret.get(`/api/data/posts/${id}`)).status).to.equal(200);
      for (const id of [taken._id, twinTwo._id]) {
        const still = await s.secret.get(`/api/data/posts/${id}`, { query: { include_deleted: 'true' } });
        expect(still.body.data.isDeleted).to.equal(true);
      }
      // The counter moved by the trash markers the three documents lost, and it is still the
      // size of what is stored (every document of this suite was written through the API).
      expect(await usage()).to.be.below(before);
      expect(await usage()).to.equal(await s.app.services.documents.databaseSize(s.fx.project.id));
    });

    it('answers 400, 401, 403 and 404 as a single restore does', async () => {
      const body = { ids: [MISSING_ID] };
      expect((await s.secret.post('/api/data/posts/bulk/restore', { ids: ids(101) })).status).to.equal(400);
      expect((await s.app.client.post('/api/data/posts/bulk/restore', body)).status).to.equal(401);
      expect((await s.publishable.post('/api/data/posts/bulk/restore', body)).status).to.equal(403);
      expect((await s.secret.post('/api/data/nothing/bulk/restore', body)).status).to.equal(404);
    });
  });

  describe('under RLS with the publishable key', () => {
    before(async () => {
      await s.collection({
        name: 'diaries',
        mode: 'schema',
        fields: [
          { name: 'text', type: 'String' },
          { name: 'userId', type: 'String' },
        ],
        rls: rls('private'),
      });
    });

    it("changes the token user's documents only: another user's is forbidden and stays", async () => {
      const asA = await s.asUser(USER_A);
      const asB = await s.asUser(USER_B);
      const mine = (await asA.post('/api/data/diaries', { text: 'mine' })).body.data;
      const theirs = (await asB.post('/api/data/diaries', { text: 'theirs' })).body.data;

      const res = await asA.post('/api/data/diaries/bulk/delete', {
        ids: [mine._id, theirs._id, OTHER_MISSING],
      });
      expect(res.status, res.text).to.equal(200);
      expect(res.body.data.results.map((r: any) => r.status)).to.deep.equal([
        'trashed',
        'forbidden',
        'notFound',
      ]);
      expect(res.body.data.results[1].message).to.equal('This document belongs to another user');
      expect(res.body.message).to.equal('1 moved to trash, 1 not found, 1 forbidden');
      expect((await asB.get(`/api/data/diaries/${theirs._id}`)).status).to.equal(200);

      await asB.delete(`/api/data/diaries/${theirs._id}`);
      const back = await asA.post('/api/data/diaries/bulk/restore', { ids: [mine._id, theirs._id] });
      expect(back.body.data.results.map((r: any) => r.status)).to.deep.equal(['restored', 'forbidden']);
      expect((await asA.get(`/api/data/diaries/${mine._id}`)).status).to.equal(200);
      const still = await s.secret.get(`/api/data/diaries/${theirs._id}`, {
        query: { include_deleted: 'true' },
      });
      expect(still.body.data.isDeleted).to.equal(true);

      // Without a token the publishable key writes nothing here (401), as for a single delete.
      const anonymous = await s.publishable.post('/api/data/diaries/bulk/delete', { ids: [mine._id] });
      expect(anonymous.status).to.equal(401);
      // The secret key bypasses RLS.
      const secret = await s.secret.post('/api/data/diaries/bulk/restore', { ids: [theirs._id] });
      expect(secret.body.data.counts.restored).to.equal(1);
    });
  });

  describe('realtime', () => {
    it('streams one document.deleted and one document.restored per document', async () => {
      const docs = [await create({ title: 'live-1' }), await create({ title: 'live-2' })];
      const stream = await SseStream.open(streamUrl(s.app.url, 'posts'), { 'x-api-key': s.fx.secretKey });
      try {
        await stream.waitFor(1, ['ready']);
        const list = docs.map((d) => d._id);
        expect((await s.secret.post('/api/data/posts/bulk/delete', { ids: list })).status).to.equal(200);
        expect((await s.secret.post('/api/data/posts/bulk/restore', { ids: list })).status).to.equal(200);
        const got = await stream.waitFor(4, ['document.deleted', 'document.restored']);
        expect(got.map((e) => [e.event, e.data.id]).sort()).to.deep.equal(
          [
            ['document.deleted', list[0]],
            ['document.deleted', list[1]],
            ['document.restored', list[0]],
            ['document.restored', list[1]],
          ].sort(),
        );
        expect(got.slice(0, 2).map((e) => e.event)).to.deep.equal(['document.deleted', 'document.deleted']);
      } finally {
        stream.close();
      }
    });
  });
});
