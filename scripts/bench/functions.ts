// Benchmark of hosted functions over HTTP on the local test stack: the public role in a process of
// its own (compiled, `node dist/main.js public`, as `npm start` runs it; `--tsx` runs src/main.ts
// under tsx instead), a project with a plain collection, the same collection with a hosted
// `beforeCreate` that returns the document unchanged, and a hosted callable that returns a
// constant. Prints the p50 and p99 of creates on each collection at concurrency 16 (their
// difference is what the hook adds), the callable's requests per second, and the CPU time per
// request of the API process and of its runner processes. `public` (not run unless listed in
// --only) calls a public callable with the publishable key from one address, charged to the
// per-caller budget (functionInvocationsPerCallerPerDay, set by --caller-budget; 9007199254740991
// is no budget, no charge), to compare the charge's cost. With --commands the API reaches the
// database through a counting proxy (commands.ts), and each measure prints the database commands
// it sent per request, background writes included (the invocation log's batches among them);
// the proxy's copying slows every request, so such a run's timings are not compared with others.
//
//   npm run build && npx tsx scripts/bench/functions.ts [--seconds 5] [--rounds 3] [--tsx]
//                                                       [--log-level info] [--profile dir] [--only hooked]
//                                                       [--entry other/dist/main.js]
//                                                       [--only public --caller-budget 1000000000]
//                                                       [--commands]
//
// Load the test stack's environment first (`set -a; . ./.env.test; set +a`). SANDBOX_* settings
// of the bench's own environment reach the API process.
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { parseArgs } from 'node:util';
import { randomBytes } from 'node:crypto';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/lib/logger.js';
import { closeDeps, createDeps } from '../../src/deps.js';
import { createServices } from '../../src/services/index.js';
import { createCollectionFixture, createProjectFixture } from '../../test/helpers/fixtures.js';
import { cpuMillis, httpLoad, median, type Measure } from './load.js';
import { freePort, start, stop, up } from './setup.js';
import { commandProxy } from './commands.js';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '5' },
    /** Measures of each, alternated (plain, hooked, callable); the report shows medians. */
    rounds: { type: 'string', default: '3' },
    /** src/main.ts under tsx rather than the compiled dist/main.js. */
    tsx: { type: 'boolean', default: false },
    /** Another compiled entry point (a build of an earlier commit, to compare). */
    entry: { type: 'string', default: 'dist/main.js' },
    /** The API's log level (its output is discarded either way). */
    'log-level': { type: 'string', default: 'info' },
    /** Writes a CPU profile of the API process (node --cpu-prof) into this folder. */
    profile: { type: 'string' },
    /** Only the measures whose name (plain, hooked, callable) is listed, comma-separated. */
    only: { type: 'string', default: 'plain,hooked,callable' },
    /** The project's functionInvocationsPerCallerPerDay for `public`. */
    'caller-budget': { type: 'string', default: '1000000000' },
    /** Prints each measure's database commands per request, counted on the wire. */
    commands: { type: 'boolean', default: false },
  },
});
const SECONDS = Math.min(Math.max(Number(values.seconds), 1), 60);
const ROUNDS = Math.min(Math.max(Math.floor(Number(values.rounds)) || 1, 1), 9);
const CONCURRENCY = 16;
const loadBefore = os.loadavg()[0]!;

const platformDb = `bench_fn_${randomBytes(4).toString('hex')}`;
const deps = await createDeps(
  loadConfig({ ...process.env, PLATFORM_DB: platformDb }),
  createLogger('silent'),
);
const services = createServices(deps);
const fx = await createProjectFixture(services, 'Bench');
await services.repos.projects.setLimits(fx.project.id, {
  databaseBytes: 1024 ** 4,
  requestsPerMinute: 1e9,
  functionConcurrency: 10_000,
  functionsPerProject: 50,
  functionInvocationsPerMonth: 1e9,
  functionInvocationsPerCallerPerDay: Number(values['caller-budget']),
});
for (const name of ['plain', 'hooked']) await createCollectionFixture(services, fx.project.id, { name });

const proxy = values.commands ? await commandProxy(deps.config.mongodbUri) : undefined;
const port = await freePort();
const env = { LOG_LEVEL: values['log-level'] };
const nodeFlags = values.profile ? ['--cpu-prof', `--cpu-prof-dir=${values.profile}`] : [];
const api = await start(
  values.tsx ? 'src/main.ts' : values.entry,
  ['public'],
  {
    PLATFORM_DB: platformDb,
    PUBLIC_PORT: String(port),
    RATE_LIMIT_IP_PER_MINUTE: '1000000000',
    ...env,
    ...(proxy ? { MONGODB_URI: proxy.uri } : {}),
  },
  up(`http://127.0.0.1:${port}/api/health`),
  nodeFlags,
);
const url = `http://127.0.0.1:${port}`;

/**
 * The runner processes descend from the API (the spawner it forked starts them, or the API itself
 * in builds before the spawner); their CPU counts with the hosted calls (the spawner's too).
 */
function descendantPids(pid: number): number[] {
  let children: number[];
  try {
    children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
  return children.flatMap((child) => [child, ...descendantPids(child)]);
}
const cpu = () => {
  const own = cpuMillis(api.pid) ?? 0;
  const runners = descendantPids(api.pid!).reduce((sum, pid) => sum + (cpuMillis(pid) ?? 0), 0);
  return { own, runners };
};

async function create(body: unknown) {
  const res = await fetch(`${url}/api/functions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': fx.secretKey },
    body: JSON.stringify(body),
  });
  if (res.status !== 201) throw new Error(`createFunction answered ${res.status}: ${await res.text()}`);
}

type Row = Measure & { runnerMicros?: number };

async function measure(path: string, seconds: number, key = fx.secretKey): Promise<Row> {
  const before = cpu();
  proxy?.reset();
  const body = JSON.stringify({ title: 'hello', views: 3 });
  const m: Row = await httpLoad({
    url: `${url}${path}`,
    headers: { 'x-api-key': key },
    connections: CONCURRENCY,
    seconds,
    request: () => ({ method: 'POST', path: '', body }),
    expect: (status) => status < 300,
  });
  const after = cpu();
  if (proxy && m.requests > 0) {
    const counts = [...proxy.counts()].sort((a, b) => b[1] - a[1]);
    const each = counts.map(([command, n]) => `${command} ${(n / m.requests).toFixed(4)}`);
    console.log(`${path}: ${m.requests} requests; database commands per request: ${each.join(', ')}`);
  }
  // autocannon stops with requests in flight: let them end, so that they do not count against
  // the project's share of the runners in the next measure.
  await new Promise((r) => setTimeout(r, 500));
  if (m.requests > 0) {
    m.cpuMicros = ((after.own - before.own) * 1000) / m.requests;
    m.runnerMicros = ((after.runners - before.runners) * 1000) / m.requests;
  }
  return m;
}

try {
  await create({
    name: 'unchanged',
    trigger: { type: 'beforeCreate', collection: 'hooked' },
    runtime: {
      type: 'javascript',
      code: 'export default async (event) => ({ document: event.documents[0] })',
    },
  });
  await create({
    name: 'constant',
    trigger: { type: 'callable', access: 'secret' },
    runtime: { type: 'javascript', code: 'export default async () => ({ answer: 42 })' },
  });
  await create({
    name: 'constant-public',
    trigger: { type: 'callable', access: 'public' },
    runtime: { type: 'javascript', code: 'export default async () => ({ answer: 42 })' },
  });
  const only = values.only.split(',');
  const paths = Object.entries({
    plain: '/api/data/plain',
    hooked: '/api/data/hooked',
    callable: '/api/functions/constant',
    public: '/api/functions/constant-public',
  }).filter(([name]) => only.includes(name));
  const keyOf = (name: string) => (name === 'public' ? fx.publishableKey : fx.secretKey);
  for (const [name, path] of paths) await measure(path, 2, keyOf(name));
  const rows: Record<string, Row[]> = {};
  // Alternated, so that a change in the machine's load falls on every side alike.
  for (let round = 0; round < ROUNDS; round++)
    for (const [name, path] of paths) (rows[name] ??= []).push(await measure(path, SECONDS, keyOf(name)));
  const result = (name: string) =>
    rows[name] && {
      ...median(rows[name]),
      runnerMicros: rows[name].map((m) => m.runnerMicros ?? 0).sort((a, b) => a - b)[rows[name].length >> 1],
    };
  const [plain, hooked, callable, publicCall] = ['plain', 'hooked', 'callable', 'public'].map(result);
  const line = (name: string, m: NonNullable<typeof plain>) =>
    `${name}: p50 ${m.p50.toFixed(2)} ms, p99 ${m.p99.toFixed(2)} ms, ${Math.round(m.rps)} requests/s, ` +
    `CPU per request ${Math.round(m.cpuMicros ?? 0)} µs API + ${Math.round(m.runnerMicros ?? 0)} µs runners` +
    (m.unexpected ? `, ${m.unexpected} unexpected (${JSON.stringify(m.statuses)})` : '');
  console.log(
    `${values.tsx ? 'tsx' : values.entry}, log level ${values['log-level']}, ${ROUNDS} x ${SECONDS} s each, ` +
      `concurrency ${CONCURRENCY}, load average ${loadBefore.toFixed(2)} before, ${os.loadavg()[0]!.toFixed(2)} after`,
  );
  if (plain) console.log(line('create, no hook', plain));
  if (hooked) console.log(line('create, hosted beforeCreate (unchanged)', hooked));
  if (plain && hooked) console.log(`the hook adds at p50: ${(hooked.p50 - plain.p50).toFixed(2)} ms`);
  if (callable) console.log(line('callable returning a constant', callable));
  if (publicCall)
    console.log(
      line(`public callable, publishable key, caller budget ${values['caller-budget']}`, publicCall),
    );
} finally {
  await stop(api);
  await proxy?.close();
  await deps.db
    .project(fx.project.id)
    .dropDatabase()
    .catch(() => undefined);
  await deps.db.platform.dropDatabase().catch(() => undefined);
  await services.quota.stop();
  await services.requestLog.close();
  await services.hosted.close();
  await closeDeps(deps);
}
