// Benchmark of the data API on the local test stack (real MongoDB-compatible server; start it
// with `bash scripts/stack.sh start test`): create, read by id, filtered list, cursor pages,
// update and aggregation, with the secret key on a schema collection.
//
//   npx tsx scripts/bench/data.ts [--requests 500] [--concurrency 8]
//
// A bounded loop of HTTP requests to an app started in this process on 127.0.0.1; it stops by
// itself. Prints requests/s and latency percentiles per operation.
import { parseArgs } from 'node:util';
import { startTestApp } from '../../test/helpers/app.js';
import { createCollectionFixture, createProjectFixture } from '../../test/helpers/fixtures.js';

const { values } = parseArgs({
  options: {
    requests: { type: 'string', default: '500' },
    concurrency: { type: 'string', default: '8' },
  },
});
const REQUESTS = Math.min(Number(values.requests), 5000);
const CONCURRENCY = Math.min(Number(values.concurrency), 64);

interface Result {
  name: string;
  requests: number;
  seconds: number;
  latencies: number[];
  errors: number;
}

async function run(name: string, requests: number, send: (i: number) => Promise<number>): Promise<Result> {
  const latencies: number[] = [];
  let next = 0;
  let errors = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < requests) {
        const i = next++;
        const t = performance.now();
        const status = await send(i);
        latencies.push(performance.now() - t);
        if (status >= 300) errors++;
      }
    }),
  );
  return { name, requests, seconds: (performance.now() - started) / 1000, latencies, errors };
}

const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

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
    await run('create', REQUESTS, async (i) => {
      const res = await call('POST', '', { name: `item-${i}`, price: i % 100, tags: ['a', 'b'] });
      ids[i] = res.body.data._id;
      return res.status;
    }),
    await run('get by id', REQUESTS, async (i) => (await call('GET', `/${ids[i]}`)).status),
    await run('list, filter + sort', REQUESTS, async (i) => {
      return (await call('GET', `?price_gte=${i % 50}&price_lt=${(i % 50) + 10}&sort=-price&limit=20`))
        .status;
    }),
    await run('list, cursor page', REQUESTS, async () => {
      const first = await call('GET', '?limit=50&sort=-price');
      return (await call('GET', `?limit=50&sort=-price&cursor=${first.body.pagination!.nextCursor}`)).status;
    }),
    await run('update', REQUESTS, async (i) => (await call('PATCH', `/${ids[i]}`, { price: i })).status),
    await run('aggregate', REQUESTS, async () => {
      const pipeline = [{ $match: { price: { $gte: 10 } } }, { $group: { _id: null, n: { $sum: 1 } } }];
      return (await call('POST', '/aggregate', { pipeline })).status;
    }),
  ];
  console.log(`\n${REQUESTS} requests per operation, concurrency ${CONCURRENCY}, Node ${process.version}\n`);
  console.log('| operation | requests/s | p50 ms | p95 ms | p99 ms | errors |');
  console.log('|---|---|---|---|---|---|');
  for (const r of results) {
    const sorted = [...r.latencies].sort((a, b) => a - b);
    const row = [
      r.name,
      (r.requests / r.seconds).toFixed(1),
      pct(sorted, 50).toFixed(1),
      pct(sorted, 95).toFixed(1),
      pct(sorted, 99).toFixed(1),
      r.errors,
    ];
    console.log(`| ${row.join(' | ')} |`);
  }
} finally {
  if (projectId) await app.deps.db.project(projectId).dropDatabase();
  await app.close();
}
