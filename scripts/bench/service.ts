// `npm run bench:service`: the data service's own cost, without HTTP: CPU time of this process
// per call of services.data.get and services.data.create next to the driver call each makes (a
// single-batch find command, insertOne), `--concurrency` calls in flight, the median of five
// rounds. What the service adds above the driver is the price of its checks (definition, owner
// rules, schema, size and quota, events, wire form); `npm run bench` measures the whole request
// over HTTP.
//
//   npm run bench:service -- [--calls 3000] [--concurrency 16]
import { parseArgs } from 'node:util';
import { ObjectId } from 'mongodb';
import { closeDeps } from '../../src/deps.js';
import { findPinned } from '../../src/db/find-pinned.js';
import { contextFor } from '../../test/helpers/fixtures.js';
import { benchProject, pick } from './setup.js';

const { values } = parseArgs({
  options: {
    calls: { type: 'string', default: '3000' },
    concurrency: { type: 'string', default: '16' },
  },
});
const CALLS = Math.max(Number(values.calls), 100);
const CONCURRENCY = Math.min(Math.max(Number(values.concurrency), 1), 256);
const ROUNDS = 5;

const { deps, services, projectDb, secretKey, ids } = await benchProject(2000);
const items = projectDb.collection('items');
const { project, kind } = await services.projects.resolveApiKey(secretKey);
const ctx = contextFor({ project, keyKind: kind });

/** `calls` calls of `work`, CONCURRENCY in flight. */
async function run(calls: number, work: (i: number) => Promise<unknown>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < calls) await work(next++);
    }),
  );
}

/** CPU µs per call of this process: the median of ROUNDS rounds after a warm-up. */
async function cpuPerCall(work: (i: number) => Promise<unknown>): Promise<number> {
  await run(CALLS / 2, work);
  const rounds: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const before = process.cpuUsage();
    await run(CALLS, work);
    const used = process.cpuUsage(before);
    rounds.push((used.user + used.system) / CALLS);
  }
  return rounds.sort((a, b) => a - b)[ROUNDS >> 1]!;
}

const ACTIVE = { $ne: true };
const now = new Date();
const pairs: [string, (i: number) => Promise<unknown>, (i: number) => Promise<unknown>][] = [
  [
    'get by id',
    // The driver call the service makes for it (src/db/find-pinned.ts), as the thin server does.
    (i) =>
      findPinned(
        projectDb,
        'items',
        { _id: new ObjectId(pick(ids, i)), isDeleted: ACTIVE },
        undefined,
        10_000,
      ),
    (i) => services.data.get(ctx, 'items', pick(ids, i), {}),
  ],
  [
    'create',
    (i) =>
      items.insertOne({
        name: `raw-${i}`,
        price: i % 100,
        tags: ['a', 'b'],
        isDeleted: false,
        deletedAt: null,
        createdAt: now,
        updatedAt: now,
      }),
    (i) => services.data.create(ctx, 'items', { name: `svc-${i}`, price: i % 100, tags: ['a', 'b'] }),
  ],
];

console.log(
  `${CALLS} calls per round, ${CONCURRENCY} in flight, median of ${ROUNDS} rounds; CPU µs per call`,
);
console.log('operation  | driver | service | service - driver');
for (const [name, driver, service] of pairs) {
  const raw = await cpuPerCall(driver);
  const ours = await cpuPerCall(service);
  console.log(
    `${name.padEnd(10)} | ${raw.toFixed(0).padStart(6)} | ${ours.toFixed(0).padStart(7)} | ${(ours - raw).toFixed(0).padStart(6)}`,
  );
}

await projectDb.dropDatabase().catch(() => undefined);
await deps.db.platform.dropDatabase().catch(() => undefined);
await closeDeps(deps);
