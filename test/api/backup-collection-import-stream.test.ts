// The streamed collection import over HTTP: bodies far past the JSON body limit read as they
// arrive with bounded memory, all-or-nothing taking back every row it wrote (count and usage
// counter read back), skip-invalid keeping the rest with the refused rows listed (first 100) and
// counted, the owner rules of row-level security, the quota running out mid-import, the import
// and row limits (413), a client leaving mid-body, and the sweep (worker, next import) of an
// import whose process died.
import { expect } from 'chai';
import { BSON, ObjectId } from 'mongodb';
import { importSweepJob } from '../../src/jobs/import-sweep.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createProjectFixture, type ProjectFixture } from '../helpers/fixtures.js';
import type { ApiClient } from '../helpers/client.js';

const BODY_LIMIT = 64 * 1024;
const IMPORT_LIMIT = 8 * 1024 * 1024;

/**
 * JSON Lines of `n` rows, streamed in chunks of 200 rows, never whole in memory. `pause`, when
 * given, is awaited once `pause.after` rows have been sent, before the rest.
 */
async function* jsonl(
  n: number,
  row: (i: number) => unknown,
  pause?: { after: number; until: () => Promise<void> },
): AsyncGenerator<Uint8Array> {
  let text = '';
  for (let i = 1; i <= n; i++) {
    text += `${typeof row(i) === 'string' ? (row(i) as string) : JSON.stringify(row(i))}\n`;
    if (i % 200 === 0) {
      yield Buffer.from(text);
      text = '';
    }
    if (pause && i === pause.after) await pause.until();
  }
  if (text) yield Buffer.from(text);
}

const pad = 'x'.repeat(150);
const good = (i: number) => ({ name: `row ${i}`, sku: `s${i}`, n: i, pad });

describe('backups: streamed collection import', function () {
  this.timeout(180_000);
  let app: TestApp;
  let fx: ProjectFixture;
  let dash: ApiClient;
  let n = 0;
  const created = new Map<string, number>();

  const url = (name: string) => `/api/projects/${fx.project.id}/collections/${name}/import`;
  const db = () => app.deps.db.project(fx.project.id);
  const count = (name: string) => db().collection(name).countDocuments({});
  const storedBytes = async (name: string) =>
    (await db().collection(name).find({}).toArray()).reduce((sum, d) => sum + BSON.calculateObjectSize(d), 0);
  const used = async () => (await app.services.repos.projects.usage(fx.project.id)).databaseUsed;
  const send = (name: string, body: AsyncIterable<Uint8Array>, query = {}, type = 'application/x-ndjson') =>
    dash.request('POST', url(name), { rawBody: body, headers: { 'content-type': type }, query });
  /** A new collection of the project, with a required, a unique and a number field. */
  async function collection(extra: Record<string, unknown> = {}) {
    const name = `c${++n}`;
    const res = await dash.post(`/api/projects/${fx.project.id}/collections`, {
      name,
      mode: 'schema',
      fields: [
        { name: 'name', type: 'String', required: true },
        { name: 'sku', type: 'String', unique: true },
        { name: 'n', type: 'Number' },
        { name: 'pad', type: 'String' },
        { name: 'userId', type: 'String' },
      ],
      ...extra,
    });
    expect(res.status, res.text).to.equal(201);
    return name;
  }

  before(async () => {
    app = await startTestApp('dashboard', 'backup_import_stream', {
      BODY_LIMIT_BYTES: String(BODY_LIMIT),
      IMPORT_MAX_BYTES: String(IMPORT_LIMIT),
    });
    fx = await createProjectFixture(app.services, 'Stream');
    dash = app.client.with({ cookie: fx.cookie });
    await app.services.repos.projects.setLimits(fx.project.id, { collectionsPerProject: 50 });
    app.services.events.on((event) => {
      if (event.name === 'document.created' && event.projectId === fx.project.id)
        created.set(event.collection, (created.get(event.collection) ?? 0) + 1);
    });
  });
  after(() => app?.close());

  it('streams 30,000 rows, far past the JSON body limit, storing rows before the body ends', async () => {
    const name = await collection();
    const rows = 30_000;
    const bytes = rows * (JSON.stringify(good(rows)).length + 1);
    expect(bytes)
      .to.be.above(60 * BODY_LIMIT)
      .and.below(IMPORT_LIMIT);
    // Streaming shown by order, not by a memory reading: the client holds back the last 27,000
    // rows until the service has stored rows of the first 3,000. A service that read the whole
    // body before writing would never store them, and the wait below would fail.
    let storedEarly = 0;
    const firstRowsStored = async () => {
      const deadline = Date.now() + 30_000;
      while ((storedEarly = await count(name)) === 0) {
        if (Date.now() > deadline) throw new Error('no row stored before the body ended');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    };
    global.gc?.();
    const before = process.memoryUsage().rss;
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
    const started = Date.now();
    const res = await send(name, jsonl(rows, good, { after: 3000, until: firstRowsStored }));
    clearInterval(sampler);
    expect(res.status, res.text).to.equal(200);
    expect(res.body.data).to.deep.equal({ imported: rows, rejected: [], rejectedRows: 0 });
    expect(storedEarly, 'rows stored while the body was still arriving').to.be.within(1, 3000);
    // For the record only: RSS on a shared test process is not a measure to assert on.
    console.log(
      `      ${(bytes / 1024 / 1024).toFixed(1)} MB in ${Date.now() - started} ms, ` +
        `${storedEarly} rows stored before the body ended, peak RSS +${((peak - before) / 1024 / 1024).toFixed(0)} MB`,
    );
    expect(await count(name)).to.equal(rows);
    expect(
      await db()
        .collection(name)
        .countDocuments({ _importJob: { $exists: true } }),
    ).to.equal(0);
    expect(created.get(name)).to.equal(rows);
    // The stored rows are read back as the data API shows them: no import tag.
    const one = await dash.get(`/api/projects/${fx.project.id}/collections/${name}/export`);
    expect(one.text.split('\n')[0]).to.not.include('_importJob');
  });

  it('all-or-nothing: one bad row in the middle leaves nothing written, usage unchanged, the rest unread', async () => {
    const name = await collection();
    const before = await used();
    const res = await send(
      name,
      jsonl(3000, (i) => (i === 1700 ? { sku: 'no name' } : i === 2500 ? 'not json' : good(i))),
    );
    expect(res.status, res.text).to.equal(400);
    expect(res.body.code).to.equal('VALIDATION_FAILED');
    expect(res.body.message).to.equal(
      'Row 1700 is invalid; nothing was imported (the rows after it were not read)',
    );
    // Row 2500 is not JSON, but the import stopped reading before it.
    expect(res.body.details).to.deep.equal([{ path: 'row 1700: name', message: 'name is required' }]);
    expect(await count(name)).to.equal(0);
    expect(await used()).to.equal(before);
    expect(created.get(name) ?? 0).to.equal(0);
    expect(await app.deps.db.platform.collection('import_jobs').countDocuments({})).to.equal(0);
  });

  it('all-or-nothing: a unique clash after 1,000 written rows is a 409 and takes them back', async () => {
    const name = await collection();
    const before = await used();
    const res = await send(
      name,
      jsonl(1200, (i) => (i === 1100 ? { ...good(i), sku: 's3' } : good(i))),
    );
    expect(res.status, res.text).to.equal(409);
    expect(res.body.code).to.equal('DUPLICATE_VALUE');
    expect(res.body.details).to.deep.equal([
      { path: 'row 1100: sku', message: 'sku must be unique: another document has this value' },
    ]);
    expect(await count(name)).to.equal(0);
    expect(await used()).to.equal(before);
  });

  it('skip-invalid keeps the valid rows and lists the first 100 problems of the refused ones', async () => {
    const name = await collection();
    const before = await used();
    const res = await send(
      name,
      jsonl(1200, (i) => (i % 8 === 0 ? { ...good(i), n: 'eight' } : good(i))),
      { mode: 'skip-invalid' },
    );
    expect(res.status, res.text).to.equal(200);
    expect(res.body.data.imported).to.equal(1050);
    expect(res.body.data.rejectedRows).to.equal(150);
    expect(res.body.data.rejected).to.have.length(100);
    expect(res.body.data.rejected[0]).to.deep.include({ row: 8, field: 'n' });
    expect(res.body.data.rejected[99].row).to.equal(800);
    expect(await count(name)).to.equal(1050);
    expect(created.get(name)).to.equal(1050);
    // The usage counter moved by what is stored, exactly (the mark's bytes given back).
    expect(await used()).to.equal(before + (await storedBytes(name)));
  });

  it("refuses a row that carries an import's mark itself", async () => {
    const name = await collection();
    const res = await send(
      name,
      jsonl(1, () => ({ name: 'forged', _importJob: 'someone-else' })),
      {
        mode: 'skip-invalid',
      },
    );
    expect(res.status, res.text).to.equal(200);
    expect(res.body.data.imported).to.equal(0);
    expect(res.body.data.rejected[0]).to.deep.include({ row: 1, field: '_importJob' });
  });

  it('streams CSV too, rows numbered as a spreadsheet shows them', async () => {
    const name = await collection();
    async function* csv() {
      yield Buffer.from('name,sku,n\r\nAda,a1,1\r\n"Multi');
      yield Buffer.from('\nline, ""quoted""",a2,2\r\n,a3,3\r\n');
    }
    const res = await send(name, csv(), { mode: 'skip-invalid' }, 'text/csv');
    expect(res.status, res.text).to.equal(200);
    expect(res.body.data).to.deep.equal({
      imported: 2,
      rejected: [{ row: 4, field: 'name', reason: 'name is required' }],
      rejectedRows: 1,
    });
    const names = (await db().collection(name).find({}).sort({ n: 1 }).toArray()).map((d) => d.name);
    expect(names).to.deep.equal(['Ada', 'Multi\nline, "quoted"']);
  });

  describe('row-level security', () => {
    let name: string;
    const ada = new ObjectId().toHexString();
    const gone = new ObjectId().toHexString();
    const stranger = new ObjectId().toHexString();
    before(async () => {
      name = await collection({ rls: { enabled: true, mode: 'public-read', ownerField: 'userId' } });
      const now = new Date();
      const user = (id: string, email: string, isDeleted: boolean) => ({
        _id: new ObjectId(id),
        email,
        isDeleted,
        deletedAt: isDeleted ? now : null,
        createdAt: now,
        updatedAt: now,
      });
      // End users as the auth service stores them, straight into the project's database.
      await db()
        .collection('users')
        .insertMany([user(ada, 'ada@example.com', false), user(gone, 'gone@example.com', true)]);
    });

    it('refuses rows without an owner or whose owner is no end user, naming them', async () => {
      const rows = [
        { name: 'mine', userId: ada },
        { name: 'nobody' },
        { name: 'stranger', userId: stranger },
        { name: 'deleted', userId: gone },
        { name: 'number', userId: 7 },
      ];
      const res = await send(
        name,
        jsonl(rows.length, (i) => rows[i - 1]),
        { mode: 'skip-invalid' },
      );
      expect(res.status, res.text).to.equal(200);
      expect(res.body.data.imported).to.equal(1);
      expect(res.body.data.rejected).to.have.deep.members([
        { row: 2, field: 'userId', reason: 'owner field userId is missing' },
        { row: 3, field: 'userId', reason: `no end user ${stranger}` },
        { row: 4, field: 'userId', reason: `no end user ${gone}` },
        { row: 5, field: 'userId', reason: 'userId must be a String' },
      ]);
      const atomic = await send(
        name,
        jsonl(2, (i) => (i === 1 ? { name: 'ok', userId: ada } : { name: 'x' })),
      );
      expect(atomic.status).to.equal(400);
      expect(atomic.body.details).to.deep.equal([
        { path: 'row 2: userId', message: 'owner field userId is missing' },
      ]);
      expect(await count(name)).to.equal(1);
    });

    it('gives the default owner to rows without one; an unknown default owner is a 400', async () => {
      const res = await send(
        name,
        jsonl(2, (i) => (i === 1 ? { name: 'defaulted' } : { name: 'own', userId: ada })),
        { owner: ada },
      );
      expect(res.status, res.text).to.equal(200);
      expect(res.body.data.imported).to.equal(2);
      const doc = await db().collection(name).findOne({ name: 'defaulted' });
      expect(doc?.userId).to.equal(ada);

      // The JSON form takes it in the body.
      const json = await dash.post(url(name), { format: 'jsonl', content: '{"name":"json"}', owner: ada });
      expect(json.status, json.text).to.equal(200);
      expect((await db().collection(name).findOne({ name: 'json' }))?.userId).to.equal(ada);

      const unknown = await send(
        name,
        jsonl(1, () => ({ name: 'x' })),
        { owner: stranger },
      );
      expect(unknown.status).to.equal(400);
      expect(unknown.body.message).to.equal(`owner: no end user ${stranger} in this project`);
      const plain = await collection();
      const noRls = await send(
        plain,
        jsonl(1, () => ({ name: 'x' })),
        { owner: ada },
      );
      expect(noRls.status).to.equal(400);
      expect(noRls.body.message).to.match(/row-level security/);
    });
  });

  it('stops where the database quota runs out, naming the row', async () => {
    const rowBytes = 300; // a stored row is about 260 bytes
    await app.services.repos.projects.setLimits(fx.project.id, {
      databaseBytes: (await used()) + 700 * rowBytes,
    });
    try {
      const atomic = await collection();
      const before = await used();
      const res = await send(atomic, jsonl(1500, good));
      expect(res.status, res.text).to.equal(403);
      expect(res.body.code).to.equal('QUOTA_EXCEEDED');
      const row = Number(/\(at row (\d+)\); nothing was imported$/.exec(res.body.message)?.[1]);
      expect(row).to.be.within(500, 900);
      expect(await count(atomic)).to.equal(0);
      expect(await used()).to.equal(before);

      const skip = await collection();
      const kept = await send(skip, jsonl(1500, good), { mode: 'skip-invalid' });
      expect(kept.status, kept.text).to.equal(403);
      const [, at, written] = /\(at row (\d+)\); the (\d+) rows written before it are kept$/.exec(
        kept.body.message,
      )!;
      expect(Number(written)).to.equal(Number(at) - 1);
      expect(await count(skip)).to.equal(Number(written));
      expect(created.get(skip)).to.equal(Number(written));
    } finally {
      await app.services.repos.projects.setLimits(fx.project.id, { collectionsPerProject: 50 });
    }
  });

  it('refuses (413) an import past the import limit, and a row longer than the JSON body limit', async () => {
    const name = await collection();
    const before = await used();
    // skip-invalid reads past the refused first row, to the limit.
    const big = await send(
      name,
      jsonl(IMPORT_LIMIT / 200, (i) => (i === 1 ? {} : good(i))),
      { mode: 'skip-invalid' },
    );
    expect(big.status).to.equal(413);
    expect(big.body.message).to.equal(`The import is larger than the import limit of ${IMPORT_LIMIT} bytes`);
    // 1,200 rows written (two batches and more) before the long row: all taken back.
    const long = await send(
      name,
      jsonl(1300, (i) => (i === 1201 ? { ...good(i), pad: 'y'.repeat(BODY_LIMIT) } : good(i))),
      { mode: 'skip-invalid' },
    );
    expect(long.status).to.equal(413);
    expect(long.body.message).to.equal(
      `Row 1201 is longer than the largest row an import takes (${BODY_LIMIT} bytes)`,
    );
    expect(await count(name)).to.equal(0);
    expect(await used()).to.equal(before);
  });

  it('a client that goes away mid-body leaves nothing written', async () => {
    const name = await collection();
    const before = await used();
    async function* cut() {
      yield* jsonl(1200, good); // two batches of 500 written, and more
      await new Promise((resolve) => setTimeout(resolve, 300));
      throw new Error('the client goes away');
    }
    let failed = false;
    await send(name, cut()).catch(() => (failed = true));
    expect(failed).to.equal(true);
    const jobs = app.deps.db.platform.collection('import_jobs');
    for (let i = 0; i < 100 && (await jobs.countDocuments({})) > 0; i++)
      await new Promise((resolve) => setTimeout(resolve, 50));
    expect(await jobs.countDocuments({})).to.equal(0);
    expect(await count(name)).to.equal(0);
    expect(await used()).to.equal(before);
  });

  describe('an import whose process died', () => {
    const jobs = () => app.deps.db.platform.collection('import_jobs');
    const long = new Date(Date.now() - 10 * 60_000);
    /** What a process killed mid-import leaves: its job record, no longer beating, and its rows
     * (marked with its id) charged to the quota. Returns their stored bytes. */
    async function leftBehind(collectionName: string, state: 'running' | 'committing') {
      const id = `${collectionName}-job`;
      await jobs().insertOne({
        _id: id as never,
        projectId: fx.project.id,
        collection: collectionName,
        state,
        startedAt: long,
        heartbeatAt: long,
      });
      const rows = Array.from({ length: 600 }, (_, i) => ({
        _id: new ObjectId(),
        ...good(i),
        isDeleted: false,
        _importJob: id,
      }));
      await db().collection(collectionName).insertMany(rows);
      const bytes = rows.reduce((sum, row) => sum + BSON.calculateObjectSize(row), 0);
      await app.services.repos.projects.addDatabaseUsed(fx.project.id, bytes);
      return bytes;
    }

    it('is swept by the worker: rows removed and their bytes given back, or kept if it was keeping', async () => {
      const dead = await collection();
      const keeping = await collection();
      const before = await used();
      await leftBehind(dead, 'running');
      const kept = await leftBehind(keeping, 'committing');
      // A live import (beating) is left alone.
      await jobs().insertOne({
        _id: 'live' as never,
        projectId: fx.project.id,
        collection: dead,
        state: 'running',
        startedAt: new Date(),
        heartbeatAt: new Date(),
      });
      await importSweepJob(app.deps, app.services).run();
      expect(await count(dead)).to.equal(0);
      expect(await count(keeping)).to.equal(600);
      expect(
        await db()
          .collection(keeping)
          .countDocuments({ _importJob: { $exists: true } }),
      ).to.equal(0);
      expect(created.get(keeping)).to.equal(600);
      // The kept rows are charged as stored (their mark gone).
      expect(kept).to.be.above(await storedBytes(keeping));
      expect(await used()).to.equal(before + (await storedBytes(keeping)));
      expect((await jobs().find({}).toArray()).map((j) => j._id)).to.deep.equal(['live']);
      await jobs().deleteOne({ _id: 'live' as never });
    });

    it('goes with its project when the project is deleted', async () => {
      const doomed = await createProjectFixture(app.services, 'Doomed');
      await jobs().insertOne({
        _id: 'doomed' as never,
        projectId: doomed.project.id,
        collection: 'gone',
        state: 'running',
        startedAt: long,
        heartbeatAt: long,
      });
      const res = await app.client
        .with({ cookie: doomed.cookie })
        .delete(`/api/projects/${doomed.project.id}`);
      expect(res.status, res.text).to.equal(200);
      expect(await jobs().countDocuments({ projectId: doomed.project.id })).to.equal(0);
    });

    it('is swept by the next import into the project', async () => {
      const dead = await collection();
      const before = await used();
      await leftBehind(dead, 'running');
      const other = await collection();
      const res = await send(other, jsonl(1, good));
      expect(res.status, res.text).to.equal(200);
      expect(await count(dead)).to.equal(0);
      expect(await jobs().countDocuments({})).to.equal(0);
      const oneRow = (await db().collection(other).find({}).toArray()).map((d) =>
        BSON.calculateObjectSize(d),
      );
      expect(await used()).to.equal(before + oneRow[0]!);
    });
  });
});
