// Benchmark of end-user sign-up, login and refresh throughput on the local test stack (real
// MongoDB-compatible server and Redis; start it with `bash scripts/stack.sh start test`). Sign-up
// and login are bounded by argon2id hashing; refresh (no hashing) is the comparison.
//
//   npx tsx scripts/bench/auth.ts [--requests 300] [--concurrency 8]
//
// A bounded loop of HTTP requests to an app started in this process on 127.0.0.1; it stops by
// itself. Prints requests/s and latency percentiles per operation.
import { parseArgs } from 'node:util';
import { startTestApp } from '../../test/helpers/app.js';
import { contextFor, createProjectFixture } from '../../test/helpers/fixtures.js';

const { values } = parseArgs({
  options: {
    requests: { type: 'string', default: '300' },
    concurrency: { type: 'string', default: '8' },
  },
});
const REQUESTS = Math.min(Number(values.requests), 5000);
const CONCURRENCY = Math.min(Number(values.concurrency), 64);
const PASSWORD = 'correct horse battery';

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

const app = await startTestApp('public', 'bench_auth', {
  USER_AUTH_SIGNUPS_PER_HOUR: '1000000000',
  LOG_LEVEL: 'silent',
});
try {
  const fixture = await createProjectFixture(app.services, 'Bench');
  await app.services.collections.create(contextFor({ developer: fixture.developer }), fixture.project.id, {
    name: 'users',
    mode: 'schema',
    fields: [
      { name: 'email', type: 'String', required: true, unique: true },
      { name: 'password', type: 'String', required: true },
      { name: 'name', type: 'String' },
    ],
  });
  const headers = { 'content-type': 'application/json', 'x-api-key': fixture.publishableKey };
  const post = async (path: string, body: unknown) => {
    const res = await fetch(`${app.url}/api/userAuth/${path}`, {
      method: 'POST',
      headers,
      body: JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as { data: { refreshToken: string } } };
  };
  const email = (i: number) => `bench-${i}@example.test`;
  // Warm-up: connections, index creation, the JIT.
  for (let i = 0; i < 10; i++) await post('signup', { email: `warm-${i}@example.test`, password: PASSWORD });

  const refreshTokens: string[] = [];
  const results = [
    await run('sign-up', REQUESTS, async (i) => {
      const res = await post('signup', { email: email(i), password: PASSWORD, name: `User ${i}` });
      refreshTokens[i] = res.body.data.refreshToken;
      return res.status;
    }),
    await run(
      'login',
      REQUESTS,
      async (i) => (await post('login', { email: email(i), password: PASSWORD })).status,
    ),
    await run(
      'refresh-token',
      REQUESTS,
      async (i) => (await post('refresh-token', { refreshToken: refreshTokens[i] })).status,
    ),
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
  await app.close();
}
