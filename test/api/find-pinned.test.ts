// The data API's read of one document by `_id` (src/db/find-pinned.ts), against the test stack's
// database server: what it answers, and which failures it retries as the driver's findOne would.
import { expect } from 'chai';
import { MongoClient, MongoNetworkError, MongoServerError, ObjectId, type Db } from 'mongodb';
import { testEnv } from '../helpers/env.js';
import { findPinned, pinsOneId, retryableRead } from '../../src/db/find-pinned.js';

describe('findPinned: one document by _id as a single-batch find', () => {
  let client: MongoClient;
  let db: Db;
  const id = new ObjectId();

  before(async () => {
    client = await MongoClient.connect(testEnv.MONGODB_URI!);
    db = client.db(`find_pinned_${Date.now()}`);
    await db.collection('items').insertMany([
      { _id: id, name: 'kept', price: 3, isDeleted: false },
      { _id: new ObjectId(), name: 'other', price: 4, isDeleted: true },
    ]);
  });
  after(async () => {
    await db.dropDatabase();
    await client.close();
  });

  it('answers the document, with the projection, or null', async () => {
    expect(await findPinned(db, 'items', { _id: id }, undefined, 5000)).to.deep.equal({
      _id: id,
      name: 'kept',
      price: 3,
      isDeleted: false,
    });
    expect(await findPinned(db, 'items', { _id: id }, { name: 1 }, 5000)).to.deep.equal({
      _id: id,
      name: 'kept',
    });
    expect(await findPinned(db, 'items', { _id: id, isDeleted: true }, undefined, 5000)).to.equal(null);
    expect(await findPinned(db, 'items', { _id: new ObjectId() }, undefined, 5000)).to.equal(null);
    expect(await findPinned(db, 'missing', { _id: id }, undefined, 5000)).to.equal(null);
  });

  it('reports what the server refuses, without a retry', async () => {
    const refused = await findPinned(db, 'items', { _id: id, price: { $nope: 1 } }, undefined, 5000).catch(
      (err: unknown) => err,
    );
    expect(refused).to.be.instanceOf(MongoServerError);
    expect(retryableRead(refused)).to.equal(false);
  });

  it('retries after the failures the driver retries reads after, and only those', () => {
    expect(retryableRead(new MongoNetworkError('connection reset'))).to.equal(true);
    for (const code of [10107, 11602, 189, 91, 13436])
      expect(retryableRead(new MongoServerError({ code, errmsg: 'not primary' })), String(code)).to.equal(
        true,
      );
    for (const code of [2, 11000, 50])
      expect(retryableRead(new MongoServerError({ code, errmsg: 'refused' })), String(code)).to.equal(false);
    expect(retryableRead(new Error('anything else'))).to.equal(false);
  });

  it('is used only for filters that pin one _id', () => {
    expect(pinsOneId({ _id: id, isDeleted: { $ne: true } })).to.equal(true);
    expect(pinsOneId({ $and: [{ owner: { $eq: 'u1' } }, { _id: id }] })).to.equal(true);
    expect(pinsOneId({ _id: { $in: [id] } })).to.equal(false);
    expect(pinsOneId({ name: 'kept' })).to.equal(false);
  });
});
