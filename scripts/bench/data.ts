// Benchmark of the data API on the local test stack (real MongoDB-compatible server; start it
// with `bash scripts/stack.sh start test`): create, read by id, filtered list, cursor pages,
// update and aggregation, with the secret key on a schema collection.
//
//   npx tsx scripts/bench/data.ts [--requests 500] [--concurrency 8]
//
// A bounded loop of HTTP requests to an app started in this process on 127.0.0.1; it stops by
// itself. Prints requests/s and latency percentiles per operation.
import { benchOptions, printTable, run } from './harness.js';
import { startTestApp } from '../../test/helpers/app.js';
import { createCollectionFixture, createProjectFixture } from '../../test/helpers/fixtures.js';

const { requests: REQUESTS, concurrency: CONCURRENCY } = benchOptions(500);

const app = await startTestApp('public', 'bench_data', { LOG_LEVEL: 'silent' });
let projectId: string | undefined;
try {
  const fixture = await createProjectFixture(app.services, 'Bench');
  projectId = fixture.project.id;
  // No plan limit should shape the numbers.
  await app.services.repos.projects.setLimits(fixture.project.id, {
    databaseBytes: 1024 ** 4,
    requestsPerMinute: 1e9,
  });
  await createCollectionFixture(app.services, fixture.project.id, {
    name: 'items',
    mode: 'schema',
    fields: [
      { name: 'name', type: 'String', required: true },
      { name: 'price', type: 'Number' },
      { name: 'tags', type: 'Array', items: { type: 'String' } },
    ],
  });
  const headers = { 'content-type': 'application/json', 'x-api-key': fixture.secretKey };
  const call = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${app.url}/api/data/items${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return {
      status: res.status,
      body: (await res.json()) as { data: { _id: string }; pagination?: { nextCursor: string } },
    };
  };
  for (let i = 0; i < 10; i++) await call('POST', '', { name: `warm-${i}`, price: i });

  const ids: string[] = [];
  const results = [
    await run('create', REQUESTS, CONCURRENCY, async (i) => {
      const res = await call('POST', '', { name: `item-${i}`, price: i % 100, tags: ['a', 'b'] });
      ids[i] = res.body.data._id;
      return res.status;
    }),
    await run('get by id', REQUESTS, CONCURRENCY, async (i) => (await call('GET', `/${ids[i]}`)).status),
    await run('list, filter + sort', REQUESTS, CONCURRENCY, async (i) => {
      return (await call('GET', `?price_gte=${i % 50}&price_lt=${(i % 50) + 10}&sort=-price&limit=20`))
        .status;
    }),
    await run('list, cursor page', REQUESTS, CONCURRENCY, async () => {
      const first = await call('GET', '?limit=50&sort=-price');
      return (await call('GET', `?limit=50&sort=-price&cursor=${first.body.pagination!.nextCursor}`)).status;
    }),
    await run(
      'update',
      REQUESTS,
      CONCURRENCY,
      async (i) => (await call('PATCH', `/${ids[i]}`, { price: i })).status,
    ),
    await run('aggregate', REQUESTS, CONCURRENCY, async () => {
      const pipeline = [{ $match: { price: { $gte: 10 } } }, { $group: { _id: null, n: { $sum: 1 } } }];
      return (await call('POST', '/aggregate', { pipeline })).status;
    }),
  ];
  printTable(results, REQUESTS, CONCURRENCY);
} finally {
  if (projectId) await app.deps.db.project(projectId).dropDatabase();
  await app.close();
}
