// The database quota's leases (services/data/quota.ts), under concurrency and one write after another: a burst of creates on one
// project makes far fewer updates of the project's record than writes, `databaseUsed` read through
// the process is the exact stored size, the limit is met at the same byte as with one reservation
// per write, and a stopping process gives back what its open leases hold.
import { expect } from 'chai';
import type { Services } from '../../src/services/index.js';
import { MISSING_ID, rls, startDataSuite, USER_A, USER_B, type DataSuite } from './data-helpers.js';

/** Runs `count` tasks, `concurrency` at a time; their results in order. */
async function burst<T>(count: number, concurrency: number, task: (i: number) => Promise<T>): Promise<T[]> {
  const results: T[] = [];
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const i = next++;
      results[i] = await task(i);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return results;
}

/** Counts the updates of project records the quota makes (reservations and counter moves). */
function countPlatformUpdates(services: Services) {
  const projects = services.repos.projects;
  const reserve = projects.reserveDatabaseBytes;
  const add = projects.addDatabaseUsed;
  const counts = { reservations: 0, moves: 0 };
  projects.reserveDatabaseBytes = (...args) => {
    counts.reservations += 1;
    return reserve(...args);
  };
  projects.addDatabaseUsed = (id, delta) => {
    if (delta !== 0) counts.moves += 1;
    return add(id, delta);
  };
  return {
    counts,
    restore() {
      projects.reserveDatabaseBytes = reserve;
      projects.addDatabaseUsed = add;
    },
  };
}

/** The counter as stored, read around the services (no settle). */
async function storedCounter(s: DataSuite): Promise<number> {
  const { ObjectId } = await import('mongodb');
  const doc = await s.app.deps.db.platform
    .collection('projects')
    .findOne({ _id: new ObjectId(s.fx.project.id) }, { projection: { usage: 1 } });
  return (doc?.usage as { databaseUsed?: number } | undefined)?.databaseUsed ?? 0;
}

const note = (i: number) => ({ text: `note ${String(i).padStart(4, '0')}` });

describe('Data API: database quota leases', () => {
  let s: DataSuite;
  beforeEach(async () => {
    // No request limit may shape a burst.
    s = await startDataSuite('quota_leases', { RATE_LIMIT_IP_PER_MINUTE: '0' });
    await s.app.services.repos.projects.setLimits(s.fx.project.id, { requestsPerMinute: 1e9 });
    await s.collection({ name: 'notes', mode: 'flexible', fields: [{ name: 'text', type: 'String' }] });
  });
  afterEach(() => s.close());

  it('a burst of 300 creates at concurrency 16 updates the project record far fewer times, and databaseUsed is then the stored size', async () => {
    const counter = countPlatformUpdates(s.app.services);
    let statuses: number[];
    try {
      statuses = await burst(300, 16, async (i) => (await s.secret.post('/api/data/notes', note(i))).status);
    } finally {
      counter.restore();
    }
    expect(statuses.filter((status) => status === 201)).to.have.length(300);
    const updates = counter.counts.reservations + counter.counts.moves;
    expect(updates, JSON.stringify(counter.counts)).to.be.below(100);
    // Read through the process, as the usage report and the recount do: its leases settle first.
    const used = (await s.app.services.repos.projects.usage(s.fx.project.id)).databaseUsed;
    expect(used).to.equal(await s.app.services.documents.databaseSize(s.fx.project.id));
    expect(s.app.services.quota.held(s.fx.project.id)).to.equal(0);
    expect(await storedCounter(s)).to.equal(used);
  });

  it('near the limit under concurrency, exactly the creates that fit are 201 and the others 403 QUOTA_EXCEEDED', async () => {
    // One document first, to learn the size of each (all notes of the burst have the same size).
    const first = await s.secret.post('/api/data/notes', note(0));
    expect(first.status).to.equal(201);
    const size = await s.app.services.documents.databaseSize(s.fx.project.id);
    const fit = 120;
    await s.app.services.repos.projects.setLimits(s.fx.project.id, { databaseBytes: size * (1 + fit) });
    const results = await burst(200, 16, async (i) => s.secret.post('/api/data/notes', note(i + 1)));
    const created = results.filter((res) => res.status === 201);
    const refused = results.filter((res) => res.status === 403);
    expect(created).to.have.length(fit);
    expect(refused).to.have.length(200 - fit);
    for (const res of refused) expect(res.body.code).to.equal('QUOTA_EXCEEDED');
    const used = (await s.app.services.repos.projects.usage(s.fx.project.id)).databaseUsed;
    const stored = await s.app.services.documents.databaseSize(s.fx.project.id);
    expect(stored).to.equal(size * (1 + fit));
    expect(used).to.equal(stored);
  });

  it('updates under a lease charge their exact difference once settled', async () => {
    const ids = await burst(
      32,
      16,
      async (i) => (await s.secret.post('/api/data/notes', note(i))).body.data._id as string,
    );
    const statuses = await burst(
      200,
      16,
      async (i) =>
        (await s.secret.patch(`/api/data/notes/${ids[i % ids.length]}`, { text: 'y'.repeat(i % 50) })).status,
    );
    expect(statuses.every((status) => status === 200)).to.equal(true);
    const used = (await s.app.services.repos.projects.usage(s.fx.project.id)).databaseUsed;
    expect(used).to.equal(await s.app.services.documents.databaseSize(s.fx.project.id));
  });

  it('updates under concurrency skip the read before the write, with the same answers and errors', async () => {
    const fields = [
      { name: 'text', type: 'String' as const },
      { name: 'userId', type: 'String' as const },
    ];
    await s.collection({ name: 'owned', mode: 'schema', fields, rls: rls('public-read') });
    const [asA, asB] = [await s.asUser(USER_A), await s.asUser(USER_B)];
    const mine = (await asA.post('/api/data/owned', { text: 'mine' })).body.data._id as string;
    const ids = await burst(
      16,
      16,
      async (i) => (await s.secret.post('/api/data/notes', note(i))).body.data._id as string,
    );
    const documents = s.app.services.documents;
    const findOne = documents.findOne;
    let reads = 0;
    documents.findOne = (...args) => {
      reads += 1;
      return findOne(...args);
    };
    const odd: string[] = [];
    try {
      const results = await burst(200, 16, async (i) => {
        // Every tenth request is one the read path used to answer: each must answer as before.
        if (i % 10 === 3) {
          const res = await s.secret.patch(`/api/data/notes/${MISSING_ID}`, { text: 'x' });
          if (res.status !== 404 || res.body.code !== 'DOCUMENT_NOT_FOUND') odd.push(`missing: ${res.text}`);
        } else if (i % 10 === 6) {
          const res = await asB.patch(`/api/data/owned/${mine}`, { text: 'not yours' });
          if (res.status !== 403 || res.body.code !== 'OWNER_MISMATCH') odd.push(`other owner: ${res.text}`);
        } else if (i % 10 === 9) {
          const res = await s.secret.patch(`/api/data/owned/${mine}`, { userId: USER_B });
          if (res.status !== 403 || res.body.code !== 'OWNER_IMMUTABLE') odd.push(`owner field: ${res.text}`);
        }
        const id = ids[i % ids.length]!;
        const text = 'y'.repeat(i % 40);
        const res = await s.secret.patch(`/api/data/notes/${id}`, { text });
        if (res.status !== 200 || res.body.data.text !== text || res.body.data._id !== id)
          odd.push(`update: ${res.text}`);
        return res.body.data;
      });
      expect(odd).to.deep.equal([]);
      // The answer is the document as stored after the update.
      const last = results[results.length - 1];
      expect((await s.secret.get(`/api/data/notes/${last._id}`)).body.data.text).to.be.a('string');
    } finally {
      documents.findOne = findOne;
    }
    // 200 updates and 60 refused ones: reads only for the refused ones and a few lone updates.
    expect(reads).to.be.below(100);
    const mineNow = await asA.patch(`/api/data/owned/${mine}`, { text: 'still mine' });
    expect(mineNow.status).to.equal(200);
    expect(mineNow.body.data).to.include({ text: 'still mine', userId: USER_A });
    const used = (await s.app.services.repos.projects.usage(s.fx.project.id)).databaseUsed;
    expect(used).to.equal(await s.app.services.documents.databaseSize(s.fx.project.id));
  });

  it('300 creates one after another update the project record far fewer times, and databaseUsed is then the stored size', async () => {
    const counter = countPlatformUpdates(s.app.services);
    let statuses: number[];
    try {
      statuses = await burst(300, 1, async (i) => (await s.secret.post('/api/data/notes', note(i))).status);
    } finally {
      counter.restore();
    }
    expect(statuses.filter((status) => status === 201)).to.have.length(300);
    // One reservation per create before; now one per chunk of recent creates and a give-back.
    const updates = counter.counts.reservations + counter.counts.moves;
    expect(updates, JSON.stringify(counter.counts)).to.be.below(100);
    const used = (await s.app.services.repos.projects.usage(s.fx.project.id)).databaseUsed;
    expect(used).to.equal(await s.app.services.documents.databaseSize(s.fx.project.id));
    expect(await storedCounter(s)).to.equal(used);
  });

  it('moves to the trash and restores one after another are charged in batches too, exact once settled', async () => {
    const ids = await burst(
      120,
      16,
      async (i) => (await s.secret.post('/api/data/notes', note(i))).body.data._id as string,
    );
    await s.app.services.repos.projects.usage(s.fx.project.id);
    const counter = countPlatformUpdates(s.app.services);
    try {
      for (const id of ids) expect((await s.secret.delete(`/api/data/notes/${id}`)).status).to.equal(200);
      for (const id of ids.slice(0, 60))
        expect((await s.secret.post(`/api/data/notes/${id}/restore`)).status).to.equal(200);
    } finally {
      counter.restore();
    }
    // 180 writes that each moved the counter on their own before.
    const updates = counter.counts.reservations + counter.counts.moves;
    expect(updates, JSON.stringify(counter.counts)).to.be.below(90);
    const used = (await s.app.services.repos.projects.usage(s.fx.project.id)).databaseUsed;
    expect(used).to.equal(await s.app.services.documents.databaseSize(s.fx.project.id));
    expect(await storedCounter(s)).to.equal(used);
  });

  it('one create after another near the limit: exactly the creates that fit are 201, the next one 403 QUOTA_EXCEEDED', async () => {
    const first = await s.secret.post('/api/data/notes', note(0));
    expect(first.status).to.equal(201);
    const size = await s.app.services.documents.databaseSize(s.fx.project.id);
    const fit = 150;
    await s.app.services.repos.projects.setLimits(s.fx.project.id, { databaseBytes: size * (1 + fit) });
    const statuses = await burst(fit + 20, 1, async (i) => {
      const res = await s.secret.post('/api/data/notes', note(i + 1));
      if (res.status === 403) expect(res.body.code).to.equal('QUOTA_EXCEEDED');
      return res.status;
    });
    expect(statuses.slice(0, fit).every((status) => status === 201)).to.equal(true);
    expect(statuses.slice(fit).every((status) => status === 403)).to.equal(true);
    const used = (await s.app.services.repos.projects.usage(s.fx.project.id)).databaseUsed;
    expect(used).to.equal(size * (1 + fit));
    expect(used).to.equal(await s.app.services.documents.databaseSize(s.fx.project.id));
  });

  it('a process that stops with an open lease gives its unused bytes back', async () => {
    // Caught right after a burst, the lease is open unless it just ended (then burst again).
    let open = false;
    for (let round = 0; round < 5 && !open; round++) {
      const statuses = await burst(
        120,
        16,
        async (i) => (await s.secret.post('/api/data/notes', note(round * 1000 + i))).status,
      );
      expect(statuses.every((status) => status === 201)).to.equal(true);
      const held = s.app.services.quota.held(s.fx.project.id);
      const counted = await storedCounter(s);
      const stored = await s.app.services.documents.databaseSize(s.fx.project.id);
      open = held > 0 && counted === stored + held;
    }
    expect(open, 'an open lease holding bytes after a burst').to.equal(true);
    await s.app.services.quota.stop();
    expect(s.app.services.quota.held(s.fx.project.id)).to.equal(0);
    expect(await storedCounter(s)).to.equal(await s.app.services.documents.databaseSize(s.fx.project.id));
  });
});
