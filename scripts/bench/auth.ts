// Benchmark of end-user sign-up, login and refresh throughput on the local test stack (real
// MongoDB-compatible server and Redis; start it with `bash scripts/stack.sh start test`). Sign-up
// and login are bounded by argon2id hashing; refresh (no hashing) is the comparison.
//
//   npx tsx scripts/bench/auth.ts [--requests 300] [--concurrency 8]
//
// A bounded loop of HTTP requests to an app started in this process on 127.0.0.1; it stops by
// itself. Prints requests/s and latency percentiles per operation.
import { benchOptions, printTable, run } from './harness.js';
import { startTestApp } from '../../test/helpers/app.js';
import { contextFor, createProjectFixture } from '../../test/helpers/fixtures.js';

const { requests: REQUESTS, concurrency: CONCURRENCY } = benchOptions(300);
const PASSWORD = 'correct horse battery';

const app = await startTestApp('public', 'bench_auth', {
  USER_AUTH_SIGNUPS_PER_HOUR: '1000000000',
  RATE_LIMIT_IP_PER_MINUTE: '0',
  LOG_LEVEL: 'silent',
});
try {
  const fixture = await createProjectFixture(app.services, 'Bench');
  // No request limit should shape the numbers.
  await app.services.repos.projects.setLimits(fixture.project.id, { requestsPerMinute: 1e9 });
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
    await run('sign-up', REQUESTS, CONCURRENCY, async (i) => {
      const res = await post('signup', { email: email(i), password: PASSWORD, name: `User ${i}` });
      refreshTokens[i] = res.body.data.refreshToken;
      return res.status;
    }),
    await run(
      'login',
      REQUESTS,
      CONCURRENCY,
      async (i) => (await post('login', { email: email(i), password: PASSWORD })).status,
    ),
    await run(
      'refresh-token',
      REQUESTS,
      CONCURRENCY,
      async (i) => (await post('refresh-token', { refreshToken: refreshTokens[i] })).status,
    ),
  ];
  printTable(results, REQUESTS, CONCURRENCY);
} finally {
  await app.close();
}
