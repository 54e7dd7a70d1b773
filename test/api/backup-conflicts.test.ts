// A restore of an edited archive reports, by collection and row, what it could not bring back as
// it was instead of failing bare: a row a unique index refuses (not written) and Refs to a
// document that is not there (nested in an array too), in a bounded list with the full count;
// the same into a new project and over the archive's own project.
import { expect } from 'chai';
import { ObjectId, BSON } from 'mongodb';
import { Readable } from 'node:stream';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createProjectFixture, type ProjectFixture } from '../helpers/fixtures.js';
import type { ApiClient } from '../helpers/client.js';
import { backupRunner } from '../../src/jobs/backup-runner.js';
import { readArchive } from '../../src/services/backups/archive-reader.js';
import { writeArchive, type PartSource } from '../../src/services/backups/archive.js';

const MISSING_REFS = 120;

describe('backups: unique and Ref conflicts of a restore, by collection and row', () => {
  let app: TestApp;
  let fx: ProjectFixture;
  let dash: ApiClient;
  let backupId: string;
  const lost = new ObjectId().toHexString();

  before(async () => {
    app = await startTestApp('dashboard', 'backup_conflicts');
    fx = await createProjectFixture(app.services, 'Edited');
    await app.services.repos.developers.setPlan(fx.developer.id, 'pro');
    dash = app.client.with({ cookie: fx.cookie });
    const base = `/api/projects/${fx.project.id}`;
    const authors = await dash.post(`${base}/collections`, {
      name: 'authors',
      fields: [{ name: 'name', type: 'String', required: true, unique: true }],
    });
    expect(authors.status, authors.text).to.equal(201);
    const posts = await dash.post(`${base}/collections`, {
      name: 'posts',
      fields: [
        { name: 'title', type: 'String', required: true },
        { name: 'author', type: 'Ref', ref: 'authors' },
        { name: 'coauthors', type: 'Array', items: { type: 'Ref', ref: 'authors' } },
      ],
    });
    expect(posts.status, posts.text).to.equal(201);
    const ids: string[] = [];
    for (const name of ['Ada', 'Grace']) {
      const res = await dash.post(`${base}/data/authors`, { name });
      expect(res.status, res.text).to.equal(201);
      ids.push(res.body.data._id);
    }
    for (let i = 0; i < 3; i++) {
      const res = await dash.post(`${base}/data/posts`, {
        title: `Post ${i}`,
        author: ids[i % 2],
        coauthors: [ids[0]],
      });
      expect(res.status, res.text).to.equal(201);
    }
    const created = await dash.post(`${base}/backups`, { includeUsers: false });
    expect(created.status).to.equal(202);
    backupId = created.body.data.backup.id;
    await backupRunner(app.deps, app.services).drain();

    // The archive as someone edited it: a second author of the same name, and posts whose Refs
    // point at an author that is in no archive.
    const jobs = app.deps.db.platform.collection('backup_jobs');
    const key = (await jobs.findOne({ _id: new ObjectId(backupId) }))!.key as string;
    const store = app.services.backups.archives;
    const parts = new Map<string, string[]>();
    const manifest = await readArchive((await store.open(key))!.stream, {
      manifest: () => undefined,
      async part(part, lines) {
        const kept: string[] = [];
        for await (const line of lines) kept.push(line);
        parts.set(part.name, kept);
      },
      async file() {
        throw new Error('no files here');
      },
    });
    const ejson = (doc: object) => BSON.EJSON.stringify(doc, { relaxed: false });
    const ada = BSON.EJSON.parse(parts.get('data/authors.jsonl')![0]!, { relaxed: false });
    parts.get('data/authors.jsonl')!.push(ejson({ ...ada, _id: new ObjectId() }));
    const post = BSON.EJSON.parse(parts.get('data/posts.jsonl')![0]!, { relaxed: false });
    const edited = parts.get('data/posts.jsonl')!;
    edited.push(ejson({ ...post, _id: new ObjectId(), coauthors: [ids[1], lost] }));
    for (let i = 0; i < MISSING_REFS; i++) edited.push(ejson({ ...post, _id: new ObjectId(), author: lost }));
    const written = await writeArchive(
      { project: manifest.project, createdAt: manifest.createdAt, includesUsers: false },
      (async function* (): AsyncGenerator<PartSource> {
        for (const { name } of manifest.parts) {
          const lines = parts.get(name)!;
          yield {
            name,
            lines: Readable.from(
              lines.map((line) => ({
                line,
                bsonBytes: BSON.calculateObjectSize(BSON.EJSON.parse(line, { relaxed: false })),
              })),
            ),
          };
        }
      })(),
    );
    try {
      await store.put(key, written.file, written.size);
    } finally {
      await written.cleanup();
    }
    await jobs.updateOne(
      { _id: new ObjectId(backupId) },
      { $set: { sha256: written.sha256, size: written.size } },
    );
  });
  after(() => app?.close());

  const expectConflicts = (restore: any) => {
    expect(restore.state, restore.error).to.equal('done');
    // Row 3 of authors (the copy of Ada); row 4 of posts (its second coauthor); then rows 5...
    expect(restore.conflicts.total).to.equal(1 + 1 + MISSING_REFS);
    expect(restore.conflicts.items).to.have.length(100);
    const [unique, nested, first] = restore.conflicts.items;
    expect(unique).to.deep.include({ collection: 'authors', row: 3, field: 'name' });
    expect(unique.reason).to.match(/another row has the same name, which must be unique.*not restored/);
    expect(nested).to.deep.include({ collection: 'posts', row: 4, field: 'coauthors.1' });
    expect(nested.reason).to.equal(`refers to ${lost} in authors, which is not in the restored project`);
    expect(first).to.deep.include({ collection: 'posts', row: 5, field: 'author' });
    expect(restore.conflicts.items.at(-1)).to.deep.include({ collection: 'posts', row: 102 });
  };

  it('into a new project: the job is done and lists them; the refused row is not written', async () => {
    const res = await dash.post(`/api/projects/${fx.project.id}/backups/${backupId}/restore`, {
      name: 'Copy',
    });
    expect(res.status, res.text).to.equal(202);
    expect(res.body.data.restore.conflicts).to.deep.equal({ total: 0, items: [] });
    const target = res.body.data.project.id;
    await backupRunner(app.deps, app.services).drain();
    const restore = await dash.get(`/api/projects/${target}/restores/${res.body.data.restore.id}`);
    expect(restore.status).to.equal(200);
    expectConflicts(restore.body.data.restore);
    const db = app.deps.db.project(target);
    expect(await db.collection('authors').countDocuments()).to.equal(2);
    expect(await db.collection('posts').countDocuments()).to.equal(3 + 1 + MISSING_REFS);
    expect(await app.deps.db.platform.collection('restore_refs').countDocuments()).to.equal(0);
    const backup = (await dash.get(`/api/projects/${fx.project.id}/backups/${backupId}`)).body.data.backup;
    expect(backup.conflicts).to.equal(null);
  });

  it('over its own project: the same report', async () => {
    const res = await dash.post(`/api/projects/${fx.project.id}/backups/${backupId}/restore`, {
      target: 'same',
      confirm: 'Edited',
    });
    expect(res.status, res.text).to.equal(202);
    await backupRunner(app.deps, app.services).drain();
    const restore = await dash.get(`/api/projects/${fx.project.id}/restores/${res.body.data.restore.id}`);
    expectConflicts(restore.body.data.restore);
    expect(await app.deps.db.project(fx.project.id).collection('authors').countDocuments()).to.equal(2);
  });
});
