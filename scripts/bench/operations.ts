// The operations `npm run bench` measures (compare.ts): each as an HTTP request, the same for the
// thin server and the API (the API's path is under /api/data/items, the thin server's under
// /items), and as the raw driver's own work on the same collection, for the closed loop that
// shows what the database alone serves.
import { MongoClient, ObjectId } from 'mongodb';
import { findPinned } from '../../src/db/find-pinned.js';
import type { HttpRequest } from './load.js';
import { createBody, listQuery, pick } from './setup.js';

export interface BenchOperation {
  name: string;
  /** The i-th request, its path relative to the collection. */
  http: (i: number) => HttpRequest;
  /** The status every answer should have. */
  expect: number;
}

/** `ids`: the seeded documents' ids; the raw client's connection is closed by the caller. */
export function benchOperations(mongodbUri: string, databaseName: string, ids: string[]) {
  const ops: BenchOperation[] = [
    { name: 'get by id', http: (i) => ({ method: 'GET', path: `/${pick(ids, i)}` }), expect: 200 },
    {
      name: 'list 20, filter + sort',
      http: (i) => ({ method: 'GET', path: `?${listQuery(i)}` }),
      expect: 200,
    },
    { name: 'create', http: (i) => ({ method: 'POST', path: '', body: createBody(i) }), expect: 201 },
    {
      name: 'update',
      http: (i) => ({ method: 'PATCH', path: `/${pick(ids, i)}`, body: JSON.stringify({ price: i % 100 }) }),
      expect: 200,
    },
  ];

  const raw = new MongoClient(mongodbUri);
  const rawDb = raw.db(databaseName);
  const items = rawDb.collection('items');
  const ACTIVE = { $ne: true };
  const system = { isDeleted: false, deletedAt: null, createdAt: new Date(), updatedAt: new Date() };
  const rawWork: Record<string, (i: number) => Promise<unknown>> = {
    // The API's own read of one document by `_id`: one `find` command of a single batch.
    'get by id': (i) =>
      findPinned(rawDb, 'items', { _id: new ObjectId(pick(ids, i)), isDeleted: ACTIVE }, undefined, 10_000),
    'list 20, filter + sort': (i) =>
      items
        .find(
          { price: { $gte: i % 50, $lt: (i % 50) + 30 }, isDeleted: ACTIVE },
          { sort: { price: -1, _id: 1 }, limit: 21 },
        )
        .toArray(),
    create: (i) => items.insertOne({ name: `raw-${i}`, price: i % 100, tags: ['a', 'b'], ...system }),
    update: (i) =>
      items.findOneAndUpdate(
        { _id: new ObjectId(pick(ids, i)), isDeleted: ACTIVE },
        { $set: { price: i % 100, updatedAt: new Date() } },
        { returnDocument: 'after' },
      ),
  };
  return { ops, rawWork, raw };
}
