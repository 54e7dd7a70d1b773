// Benchmark of hosted functions over HTTP on the local test stack: one public process (a child
// process, so that the client does not share its event loop) with a project that has a plain
// collection, the same collection with a hosted `beforeCreate` that returns the document
// unchanged, and a hosted callable that returns a constant. Prints the p50 and p99 of creates on
// each collection at concurrency 16 (their difference is what the hook adds) and the callable's
// requests per second.
//
//   npx tsx scripts/bench/functions.ts [--requests 2000] [--seconds 5]
import { fork, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

interface Served {
  url: string;
  secretKey: string;
}

/** The child: a public app on the test stack, a project with the collections and functions. */
async function serve(): Promise<void> {
  const { startTestApp } = await import('../../test/helpers/app.js');
  const { createCollectionFixture, createProjectFixture } = await import('../../test/helpers/fixtures.js');
  // SANDBOX_* settings of the bench's own environment reach the app (runners, per-project share).
  const sandbox = Object.fromEntries(Object.entries(process.env).filter(([k]) => k.startsWith('SANDBOX_')));
  const app = await startTestApp('public', 'bench_functions', {
    LOG_LEVEL: 'silent',
    RATE_LIMIT_IP_PER_MINUTE: '0',
    ...sandbox,
  });
  const fx = await createProjectFixture(app.services, 'Bench');
  await app.services.repos.projects.setLimits(fx.project.id, {
    databaseBytes: 1024 ** 4,
    requestsPerMinute: 1e9,
    functionConcurrency: 10_000,
    functionsPerProject: 50,
  });
  for (const name of ['plain', 'hooked'])
    await createCollectionFixture(app.services, fx.project.id, { name });
  const create = async (body: unknown) => {
    const res = await fetch(`${app.url}/api/functions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': fx.secretKey },
      body: JSON.stringify(body),
    });
    if (res.status !== 201) throw new Error(`createFunction answered ${res.status}: ${await res.text()}`);
  };
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
  process.send!({ url: app.url, secretKey: fx.secretKey } satisfies Served);
  process.on('message', async () => {
    await app.deps.db
      .project(fx.project.id)
      .dropDatabase()
      .catch(() => undefined);
    await app.close();
    process.exit(0);
  });
}

async function bench(): Promise<void> {
  const { values } = parseArgs({
    options: { requests: { type: 'string', default: '2000' }, seconds: { type: 'string', default: '5' } },
  });
  const child: ChildProcess = fork(fileURLToPath(import.meta.url), ['--serve'], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const served = await new Promise<Served>((resolve, reject) => {
    child.once('message', (m) => resolve(m as Served));
    child.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
  });
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const post = (path: string, body: unknown) =>
    new Promise<number>((resolve, reject) => {
      const data = JSON.stringify(body);
      const req = http.request(
        `${served.url}${path}`,
        {
          method: 'POST',
          agent,
          headers: {
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(data),
            'x-api-key': served.secretKey,
          },
        },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        },
      );
      req.on('error', reject);
      req.end(data);
    });

  /** `n` requests (or until `untilMs`) at concurrency 16: latencies sorted, failures, requests per second. */
  async function load(path: string, n: number, untilMs = Infinity) {
    const times: number[] = [];
    let sent = 0;
    let failed = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (sent < n && performance.now() - started < untilMs) {
          sent++;
          const t = performance.now();
          const status = await post(path, { title: 'hello', views: 3 });
          times.push(performance.now() - t);
          if (status >= 300) failed++;
        }
      }),
    );
    times.sort((a, b) => a - b);
    const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))]!;
    return {
      p50: at(0.5),
      p99: at(0.99),
      failed,
      perSecond: times.length / ((performance.now() - started) / 1000),
    };
  }

  try {
    const n = Number(values.requests);
    await load('/api/data/plain', 300);
    await load('/api/data/hooked', 300);
    // Interleaved halves, so that a change in the machine's load falls on both sides alike.
    const plain = [await load('/api/data/plain', n / 2), await load('/api/data/plain', n / 2)];
    const hooked = [await load('/api/data/hooked', n / 2), await load('/api/data/hooked', n / 2)];
    const p50 = (rs: { p50: number }[]) => rs.reduce((s, r) => s + r.p50, 0) / rs.length;
    const p99 = (rs: { p99: number }[]) => rs.reduce((s, r) => s + r.p99, 0) / rs.length;
    console.log(`create, no hook: p50 ${p50(plain).toFixed(2)} ms, p99 ${p99(plain).toFixed(2)} ms`);
    console.log(
      `create, hosted beforeCreate (unchanged): p50 ${p50(hooked).toFixed(2)} ms, p99 ${p99(hooked).toFixed(2)} ms`,
    );
    console.log(`the hook adds at p50: ${(p50(hooked) - p50(plain)).toFixed(2)} ms (concurrency 16)`);
    const seconds = Number(values.seconds);
    await load('/api/functions/constant', 500);
    const callable = await load('/api/functions/constant', Infinity, seconds * 1000);
    console.log(
      `callable returning a constant: ${Math.round(callable.perSecond)} requests/s over ${seconds} s, p50 ${callable.p50.toFixed(2)} ms, ${callable.failed} failed`,
    );
    const failed = [...plain, ...hooked].reduce((s, r) => s + r.failed, 0);
    if (failed) console.log(`${failed} creates failed`);
  } finally {
    child.send('stop');
    await new Promise((r) => child.once('exit', r));
  }
}

if (process.argv.includes('--serve')) await serve();
else await bench();
