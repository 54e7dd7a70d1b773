// `npm run soak`: mixed traffic on the public API (its own process, Redis and the test stack's
// database) at concurrency 64 for ten minutes: reads by id, filtered lists, creates, updates, RLS
// reads with a Bearer token and bad ids (malformed: 400, unknown: 404). Fails (exit 1) on any
// unexpected status, socket error or timeout, or when the API process's resident memory grows by
// 10% or more after the warm-up (highest sample of the minute after the warm-up against the
// highest of the last minute). `--csv FILE` writes the resident-memory samples (the curve).
//
//   npm run soak -- [--seconds 600] [--warmup 60] [--concurrency 64] [--csv bench/soak-rss.csv]
//
// Not part of `npm test`: it takes the whole ten minutes and the machine's CPU.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { closeDeps } from '../../src/deps.js';
import { benchProject, createBody, freePort, listQuery, pick, startApi, stop } from './setup.js';
import { httpLoad, type HttpRequest } from './load.js';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '600' },
    warmup: { type: 'string', default: '60' },
    concurrency: { type: 'string', default: '64' },
    csv: { type: 'string' },
  },
});
const SECONDS = Math.max(Number(values.seconds), 10);
const WARMUP = Math.min(Number(values.warmup), SECONDS / 2);
const CONCURRENCY = Number(values.concurrency);
const MAX_GROWTH = 0.1;
const SAMPLE_MS = 5000;

const { deps, services, platformDb, projectDb, secretKey, publishableKey, bearer, ids, ownNotes } =
  await benchProject(2000);
const port = await freePort();
const probeFile = join(tmpdir(), `soak-memory-${process.pid}.jsonl`);
const api = await startApi(platformDb, port, ['--import', './scripts/bench/memory-probe.mjs'], {
  MEMORY_PROBE_FILE: probeFile,
});

/** Resident memory of the API process in MiB (VmRSS of /proc). */
const rssMiB = () => {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${api.pid}/status`, 'utf8'));
  return match ? Number(match[1]) / 1024 : NaN;
};
const samples: { at: number; rss: number }[] = [];
const started = Date.now();
const sampler = setInterval(
  () => samples.push({ at: (Date.now() - started) / 1000, rss: rssMiB() }),
  SAMPLE_MS,
);

const secret = { 'x-api-key': secretKey };
const rls = { 'x-api-key': publishableKey, authorization: `Bearer ${bearer}` };
// A well-formed id that names no document, and one that is not an id at all.
const UNKNOWN_ID = 'f'.repeat(24);
const badId = (i: number) => (i % 2 ? UNKNOWN_ID : `not-an-id-${i % 7}`);
// One mix of ten requests, repeated: 3 reads by id, 2 lists, 1 create, 2 updates, 1 RLS read and
// 1 bad id (the error path allocates too: an ApiError, its log line, the validator's details).
const mix: ((i: number) => HttpRequest & { headers: Record<string, string> })[] = [
  (i) => ({ method: 'GET', path: `/items/${pick(ids, i)}`, headers: secret }),
  (i) => ({ method: 'GET', path: `/items?${listQuery(i)}`, headers: secret }),
  (i) => ({ method: 'GET', path: `/items/${pick(ids, i)}`, headers: secret }),
  (i) => ({
    method: 'PATCH',
    path: `/items/${pick(ids, i)}`,
    body: JSON.stringify({ price: i % 100 }),
    headers: secret,
  }),
  (i) => ({ method: 'GET', path: `/notes/${pick(ownNotes, i)}`, headers: rls }),
  (i) => ({ method: 'GET', path: `/items/${badId(i)}`, headers: secret }),
  (i) => ({ method: 'POST', path: '/items', body: createBody(i), headers: secret }),
  (i) => ({ method: 'GET', path: `/items?${listQuery(i)}`, headers: secret }),
  (i) => ({ method: 'GET', path: `/items/${pick(ids, i)}`, headers: secret }),
  (i) => ({
    method: 'PATCH',
    path: `/items/${pick(ids, i)}`,
    body: JSON.stringify({ tags: ['c'] }),
    headers: secret,
  }),
];

let result;
try {
  result = await httpLoad({
    url: `http://127.0.0.1:${port}/api/data`,
    headers: {},
    connections: CONCURRENCY,
    seconds: SECONDS,
    request: (i) => mix[i % mix.length]!(Math.floor(i / mix.length)),
    // 400 and 404 are the bad ids' answers; their share is checked below.
    expect: (status) => [200, 201, 400, 404].includes(status),
  });
} finally {
  clearInterval(sampler);
  samples.push({ at: (Date.now() - started) / 1000, rss: rssMiB() });
  await stop(api);
  await projectDb.dropDatabase().catch(() => undefined);
  await deps.db.platform.dropDatabase().catch(() => undefined);
  await services.usage.counter.stop().catch(() => undefined);
  await closeDeps(deps);
}

// Resident memory rises and falls with the garbage collector (a saw tooth of about 100 MiB here),
// so single samples compare a trough with a peak. Compared: the highest sample of the minute after
// the warm-up with the highest sample of the last minute.
const WINDOW_S = 60;
const peak = (list: { rss: number }[]) => Math.max(...list.map((s) => s.rss));
const end = samples[samples.length - 1]!.at;
const afterWarmup = samples.filter((s) => s.at >= WARMUP && s.at < WARMUP + WINDOW_S);
const atEnd = samples.filter((s) => s.at > end - WINDOW_S);
const growth = peak(atEnd) / peak(afterWarmup) - 1;
const failures: string[] = [];
if (result.unexpected > 0)
  failures.push(`${result.unexpected} unexpected answers: ${JSON.stringify(result.statuses)}`);
// One request in ten has a bad id: more 400s and 404s than that means a good request failed.
const errorAnswers = (result.statuses['400'] ?? 0) + (result.statuses['404'] ?? 0);
if (errorAnswers > result.requests / mix.length + CONCURRENCY)
  failures.push(`${errorAnswers} answers 400 or 404, more than the bad ids sent`);
if (!(growth < MAX_GROWTH))
  failures.push(`resident memory grew by ${(growth * 100).toFixed(1)}% after the warm-up`);

console.log(`soak: ${SECONDS} s at concurrency ${CONCURRENCY}, Node ${process.version}`);
console.log(
  `requests: ${result.requests} (${result.rps.toFixed(0)}/s), statuses ${JSON.stringify(result.statuses)}`,
);
console.log(`latency ms: p50 ${result.p50.toFixed(1)}, p99 ${result.p99.toFixed(1)}`);
console.log(
  `API resident memory MiB, highest of a minute: ${peak(afterWarmup).toFixed(1)} after ${WARMUP} s of warm-up, ${peak(atEnd).toFixed(1)} in the last minute (${(growth * 100).toFixed(1)}%, limit ${MAX_GROWTH * 100}%)`,
);
// What the process itself says (memory-probe.mjs): heap in use and reserved, buffers outside it.
const probes = readFileSync(probeFile, 'utf8')
  .split('\n')
  .filter(Boolean)
  .map((line) => JSON.parse(line) as Record<string, number>);
rmSync(probeFile, { force: true });
const mib = (n: number | undefined) => ((n ?? NaN) / 1024 ** 2).toFixed(0);
const probeAt = (p: Record<string, number> | undefined) =>
  p
    ? `heap used ${mib(p.heapUsed)}, heap total ${mib(p.heapTotal)}, external ${mib(p.external)} (array buffers ${mib(p.arrayBuffers)})`
    : 'none';
const warmProbe = probes.find((p) => (p.at! - started) / 1000 >= WARMUP);
console.log(
  `API memory MiB after the warm-up: ${probeAt(warmProbe)}; at the end: ${probeAt(probes[probes.length - 1])}`,
);
console.log(`samples (s: MiB): ${samples.map((s) => `${s.at.toFixed(0)}: ${s.rss.toFixed(0)}`).join(', ')}`);
if (values.csv)
  writeFileSync(
    values.csv,
    `seconds,rss_mib\n${samples.map((s) => `${s.at.toFixed(0)},${s.rss.toFixed(1)}`).join('\n')}\n`,
  );
console.log(failures.length ? `FAILED: ${failures.join('; ')}` : 'passed');
process.exit(failures.length ? 1 : 0);
