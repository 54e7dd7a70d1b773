// What a hosted call costs through the pool (IPC to a runner process, a fresh QuickJS runtime, the
// answer back), measured from the caller: the latency of a function that returns its event (the
// shape of a `beforeCreate` that changes nothing) at concurrency 1 and 16, and the calls per
// second of a function that returns a constant (a callable), and how many runners a tenant can
// have replaced in 3 s. No HTTP and no database: the HTTP path's own share is in bench/README.md.
//
//   npx tsx scripts/bench/sandbox.ts [--calls 3000] [--runners 4] [--compiled]
//
// --compiled takes the pool (and so its runners) from dist/ (`npm run build` first), as shipped;
// otherwise both run from src/ under tsx.
import { parseArgs } from 'node:util';
import type { SandboxPool as Pool } from '../../src/sandbox/pool.js';
import type { SandboxJob } from '../../src/sandbox/types.js';

const { values } = parseArgs({
  options: {
    calls: { type: 'string', default: '3000' },
    runners: { type: 'string', default: '4' },
    compiled: { type: 'boolean', default: false },
  },
});
const { SandboxPool } = (await import(
  values.compiled ? '../../dist/sandbox/pool.js' : '../../src/sandbox/pool.js'
)) as { SandboxPool: typeof Pool };
const calls = Number(values.calls);
const runners = Number(values.runners);

const pool = new SandboxPool({
  runners,
  projectRunning: runners,
  projectWaiting: 1000,
  wasmMemoryBytes: 256 * 1024 * 1024,
  rssLimitBytes: 512 * 1024 * 1024,
  stackBytes: 256 * 1024,
  graceMs: 100,
});

const job = (code: string): SandboxJob => ({
  projectId: 'bench',
  code,
  event: {
    operation: 'create',
    collection: 'posts',
    document: { title: 'hello', views: 3, tags: ['a', 'b'] },
  },
  env: { API_KEY: 'not-a-real-secret' },
  limits: {
    deadlineMs: 1000,
    memoryBytes: 32 * 1024 * 1024,
    maxFetches: 5,
    maxDbCalls: 10,
    maxResultBytes: 256 * 1024,
    maxLogBytes: 16 * 1024,
  },
  host: { db: async () => null, fetch: async () => null },
});

async function run(code: string, concurrency: number, n: number) {
  const latencies: number[] = [];
  let next = 0;
  let failed = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next++ < n) {
        const t = performance.now();
        const out = await pool.run(job(code));
        latencies.push(performance.now() - t);
        if (out.status !== 'ok') failed++;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((x, y) => x - y);
  const at = (q: number) =>
    latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))]!.toFixed(2);
  return { p50: at(0.5), p99: at(0.99), perSecond: Math.round(n / seconds), failed };
}

await pool.warm();
const unchanged = 'export default async (event, ctx) => event.document;';
const constant = 'export default async () => ({ ok: true, answer: 42 });';
await run(unchanged, 4, 300); // warm-up: JIT of the runners' glue and the WebAssembly tiers
for (const [name, code, concurrency] of [
  ['returns its event, concurrency 1', unchanged, 1],
  ['returns its event, concurrency 16', unchanged, 16],
  ['returns a constant, concurrency 16', constant, 16],
] as const) {
  const r = await run(code, concurrency, calls);
  console.log(`${name}: p50 ${r.p50} ms, p99 ${r.p99} ms, ${r.perSecond} calls/s, ${r.failed} failed`);
}

// Runners replaced: two clients whose every call runs past a 30 ms deadline, so each call that
// finds a runner retires it (killed, a new process started), for 3 s. The strict figure the unit
// suite (test/unit/sandbox-abuse.test.ts) no longer times, since a busy machine slows process
// starts: at least 10 in 3 s on a quiet one.
{
  const abuse = {
    ...job('export default async () => { while (true) {} }'),
    limits: { ...job('').limits, deadlineMs: 30 },
  };
  const pids = new Set(pool.runnerStates().map((r) => r.pid));
  const first = pids.size;
  const until = Date.now() + 3000;
  await Promise.all(
    [0, 1].map(async () => {
      while (Date.now() < until) {
        await pool.run(abuse);
        for (const r of pool.runnerStates()) pids.add(r.pid);
      }
    }),
  );
  console.log(`runners replaced by a 30 ms while (true) {}, 2 clients: ${pids.size - first} in 3 s`);
}
await pool.close();
