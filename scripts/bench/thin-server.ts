// The thin reference server of `npm run bench`: Koa, @koa/router and koa-body, the same driver
// calls the data API makes for the measured operations and the same JSON envelope, and nothing
// else (no keys, rate limits, validation, quotas, events or logs). What the API costs above it is
// the price of those features.
//
//   MONGODB_URI=... THIN_DB=p_<id> THIN_COLLECTION=items THIN_PORT=0 node --import tsx thin-server.ts
//
// THIN_SPIN_US=n makes it spin n microseconds of CPU before each request (`npm run bench --
// --calibrate`, calibrate.ts); without it the server has no such step.
//
// Prints `listening <port>` once ready.
import Koa from 'koa';
import Router from '@koa/router';
import { koaBody } from 'koa-body';
import { MongoClient, ObjectId } from 'mongodb';

const client = await MongoClient.connect(process.env.MONGODB_URI!);
const db = client.db(process.env.THIN_DB!);
const collection = process.env.THIN_COLLECTION ?? 'items';
const items = db.collection(collection);
const TIME_LIMIT_MS = 10_000;
const ACTIVE = { $ne: true };

const router = new Router();
const ok = (ctx: Koa.Context, data: unknown, status = 200, message = '') => {
  ctx.status = status;
  ctx.body = { success: true, data, message };
};

router.get('/items/:id', async (ctx) => {
  // The API's read of one document (src/db/find-pinned.ts): one `find` command of a single batch.
  const reply = (await db.command({
    find: collection,
    filter: { _id: new ObjectId(ctx.params.id), isDeleted: ACTIVE },
    limit: 1,
    singleBatch: true,
    maxTimeMS: TIME_LIMIT_MS,
  })) as { cursor: { firstBatch: unknown[] } };
  const doc = reply.cursor.firstBatch[0];
  if (!doc) ctx.throw(404);
  ok(ctx, doc);
});

router.get('/items', async (ctx) => {
  const limit = Number(ctx.query.limit ?? 20);
  const rows = await items
    .find(
      { price: { $gte: Number(ctx.query.price_gte), $lt: Number(ctx.query.price_lt) }, isDeleted: ACTIVE },
      // The API's own sort: `_id` last makes the order total, as its cursor paging needs.
      { sort: { price: -1, _id: 1 }, limit: limit + 1, maxTimeMS: TIME_LIMIT_MS },
    )
    .toArray();
  const hasMore = rows.length > limit;
  ctx.body = {
    success: true,
    data: hasMore ? rows.slice(0, limit) : rows,
    message: '',
    pagination: { page: 1, limit, hasMore, nextCursor: null },
  };
});

router.post('/items', async (ctx) => {
  const now = new Date();
  const doc = {
    _id: new ObjectId(),
    ...(ctx.request.body as object),
    isDeleted: false,
    deletedAt: null,
    createdAt: now,
    updatedAt: now,
  };
  await items.insertOne(doc);
  ok(ctx, doc, 201);
});

router.patch('/items/:id', async (ctx) => {
  const doc = await items.findOneAndUpdate(
    { _id: new ObjectId(ctx.params.id), isDeleted: ACTIVE },
    { $set: { ...(ctx.request.body as object), updatedAt: new Date() } },
    { returnDocument: 'after', maxTimeMS: TIME_LIMIT_MS },
  );
  if (!doc) ctx.throw(404);
  ok(ctx, doc, 200, 'Updated');
});

const app = new Koa();
const SPIN_US = Number(process.env.THIN_SPIN_US ?? 0);
if (SPIN_US > 0) {
  app.use((_ctx, next) => {
    const until = performance.now() + SPIN_US / 1000;
    while (performance.now() < until);
    return next();
  });
}
app.use(koaBody({ json: true, multipart: false, urlencoded: false, text: false }));
app.use(router.routes());
const server = app.listen(Number(process.env.THIN_PORT ?? 0), '127.0.0.1', () => {
  const address = server.address();
  console.log(`listening ${typeof address === 'object' && address ? address.port : ''}`);
});
process.on('SIGTERM', () => {
  server.close();
  void client.close().then(() => process.exit(0));
});
