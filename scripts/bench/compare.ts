// `npm run bench`: the data API side by side with what it is built on, in one run on one database
// server: the raw driver doing the work, the thin reference server (thin-server.ts: Koa and the
// same driver calls, nothing else) and the public API over HTTP (a separate process, as deployed,
// with Redis), for get by id, a filtered and sorted list of 20, create and update, plus an RLS
// read with a Bearer token on the API; then what the request log costs get by id: two more API
// processes, the log on in one and off in the other, measured in turn in many short pairs, the
// change estimated with its 95 % interval (log-cost.ts). Writes bench/RESULTS.md (or --out).
//
//   npm run bench -- [--seconds 5] [--concurrency 16,64] [--rounds 1] [--log-pairs 60] [--log-control] [--gc]
//                    [--calibrate 25,50,100] [--commands 1000] [--before DIR] [--before-env K=V,...]
//                    [--pocketbase on|off] [--paced on|off] [--out bench/RESULTS.md]
//
// Each measure also reads the database server's CPU per request (db-process.ts), and after the
// measures each server's database commands per request are counted on the wire (--commands N
// requests of each kind, 0 to skip; commands.ts). --log-pairs 0 skips the request log's cost.
// --before DIR measures the API built in another work tree (DIR/dist/main.js, e.g. a `git
// worktree` of the commit before a change) in the same rounds, in turn with the others: before
// and after in one run. --before-env KEY=VALUE,... starts that arm with these settings (alone:
// the same build, e.g. REQUEST_LOG_ENABLED=false).
//
// --pocketbase on (the default) measures PocketBase's whole process in the same rounds, seeded like
// the API's project (pocketbase.ts: built once with `go install` at a pinned version; left out,
// with the reason, when Go is missing): the outside yardstick for the API's CPU per request.
//
// With --calibrate the run is a calibration instead (calibrate.ts), written to bench/CALIBRATION.md.
//
// With --gc both servers run with `node --trace-gc-nvp` and the report adds what the garbage
// collector did per request (allocated, promoted, pause and helper-thread time; gc-trace.ts).
//
// With --rounds N every measure is taken N times, raw, thin and API in turn each round, and the
// report shows the median of each column: the ratios then hold up better against other work on
// the machine and the database server's own drift.
//
// scripts/bench.sh starts the test stack when it is not running and loads its environment.
import os from 'node:os';
import { parseArgs } from 'node:util';
import { closeDeps } from '../../src/deps.js';
import { benchProject, pick } from './setup.js';
import { startServers, type Server } from './servers.js';
import { httpLoadWithCpu, loop, median, withDbCpu, type HttpRequest, type Measure } from './load.js';
import { benchOperations, type BenchOperation } from './operations.js';
import { databasePid } from './db-process.js';
import { countCommands } from './command-count.js';
import {
  commandsSection,
  progressLine,
  resultsTable,
  runDescription,
  writeReport,
  type Row,
} from './report.js';
import { gcSection } from './gc-trace.js';
import { calibrate, calibrationSection } from './calibrate.js';
import { logCostLine, logCostSection, requestLogCost, type LogCostResult } from './log-cost.js';
import { POCKETBASE_VERSION, pocketbaseRequest } from './pocketbase.js';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '5' },
    concurrency: { type: 'string', default: '16,64' },
    /** Measures per operation, concurrency and target, taken in turn; the report shows medians. */
    rounds: { type: 'string', default: '1' },
    /** Pairs of 1 s measures of the request log's cost per concurrency (log-cost.ts). */
    'log-pairs': { type: 'string', default: '60' },
    /** The request log on in both processes of its cost: the method's own bias. */
    'log-control': { type: 'boolean', default: false },
    /** Default: bench/RESULTS.md, or bench/CALIBRATION.md with --calibrate. */
    out: { type: 'string', default: '' },
    label: { type: 'string', default: '' },
    /** Only the operations whose name contains one of these words (comma-separated). */
    only: { type: 'string', default: '' },
    /** Writes CPU profiles of the API and thin processes (node --cpu-prof) into api/ and thin/ of this folder. */
    profile: { type: 'string' },
    /** Runs both servers with --trace-gc-nvp and reports the collector's work per request. */
    gc: { type: 'boolean', default: false },
    /** Prices in µs of CPU per request for spinning thin servers: the run is then the calibration (calibrate.ts). */
    calibrate: { type: 'string', default: '' },
    /** Requests of each kind whose database commands are counted (0: none). */
    commands: { type: 'string', default: '1000' },
    /** Another build of the service (its work tree) measured as the `before` arm. */
    before: { type: 'string' },
    /** Settings of the `before` arm (KEY=VALUE, comma-separated); with no --before, the same build so set. */
    'before-env': { type: 'string', default: '' },
    /** PocketBase's whole process measured in the same rounds (pocketbase.ts); `off` leaves it out. */
    pocketbase: { type: 'string', default: 'on' },
    /** The thin server measured again at the API's rate of each round (report.ts, thinPaced); `off` leaves it out. */
    paced: { type: 'string', default: 'on' },
  },
});
const PACED = values.paced !== 'off';
const SECONDS = Math.min(Math.max(Number(values.seconds), 1), 60);
const CONCURRENCY = values.concurrency.split(',').map((c) => Math.min(Math.max(Number(c), 1), 256));
const ROUNDS = Math.min(Math.max(Math.floor(Number(values.rounds)) || 1, 1), 9);
const pairsAsked = Math.floor(Number(values['log-pairs']));
const LOG_PAIRS = pairsAsked === 0 ? 0 : Math.min(Math.max(pairsAsked || 60, 4), 400);
const COMMANDS = Math.min(Math.max(Math.floor(Number(values.commands)) || 0, 0), 100_000);
const LOG_SECONDS = 1;
const SEEDED = 2000;
const WARMUP_SECONDS = 3;

const { deps, services, platformDb, projectDb, secretKey, publishableKey, bearer, ids, ownNotes } =
  await benchProject(SEEDED);
const { ops, rawWork, raw } = benchOperations(deps.config.mongodbUri, projectDb.databaseName, ids);

// ---- Servers (servers.ts) ----
const servers = await startServers({
  platformDb,
  projectDb: projectDb.databaseName,
  seeded: SEEDED,
  profile: values.profile,
  gc: values.gc,
  pocketbase: values.pocketbase !== 'off' && !values.calibrate,
  before: values.before,
  beforeEnv: values['before-env'],
});
const { pocketbase, thin, api, before: beforeApi, traces } = servers;
const dbPid = databasePid(deps.config.mongodbUri);
if (dbPid === undefined)
  console.log('database server process not found: its CPU is not reported (BENCH_DB_PID)');
const only = values.only.split(',').filter(Boolean);
const matches = (name: string) => only.length === 0 || only.some((word) => name.includes(word));
/** With --calibrate the run is the calibration alone (calibrate.ts), on a database nothing else has written to. */
const spins = values.calibrate.split(',').filter(Boolean).map(Number);
const wanted = (name: string) => spins.length === 0 && matches(name);

// ---- Measure: per operation and concurrency, raw, thin and API back to back ----
const rows: Row[] = [];
const loadAverage = [os.loadavg()[0]!];
/** One measure of `server` at `path` (below its base URL), with its CPU and the database's. */
const http = async (
  server: Server,
  path: string,
  headers: Record<string, string>,
  c: number,
  seconds: number,
  op: BenchOperation,
  rate?: number,
) => {
  const trace = server === thin ? traces?.thin : server === api ? traces?.api : undefined;
  trace?.mark();
  const measure = await httpLoadWithCpu(
    {
      url: `${server.url}${path}`,
      headers,
      connections: c,
      seconds,
      request: op.http,
      expect: (s) => s === op.expect,
      rate,
    },
    server.child.pid,
    dbPid,
  );
  if (trace) measure.gc = trace.since(measure.requests);
  return measure;
};

const secret = { 'x-api-key': secretKey };
/** PocketBase's records API for the same operation; it answers a create with 200. */
const pbHttp = (c: number, seconds: number, op: BenchOperation) =>
  httpLoadWithCpu(
    {
      url: `${pocketbase!.url}/api/collections/items/records`,
      headers: {},
      connections: c,
      seconds,
      request: (i) => pocketbaseRequest(op.name, i, pocketbase!.ids, pick),
      expect: (s) => s === 200,
    },
    pocketbase!.child.pid,
  );
// What the request log costs, first: the creates and updates measured later grow the collection
// and the database server's heap, and its pauses then move a 1 s measure's rate by 20 % and more
// (a run that measured it last read an interval of -24 % to +30 % on the rate).
const getById = ops[0]!;
const logCost: LogCostResult[] =
  wanted(getById.name) && LOG_PAIRS > 0
    ? await requestLogCost({
        platformDb,
        headers: secret,
        path: '/items',
        request: getById.http,
        concurrency: CONCURRENCY,
        pairs: LOG_PAIRS,
        seconds: LOG_SECONDS,
        warmupSeconds: WARMUP_SECONDS,
        control: values['log-control'],
      })
    : [];
for (const result of logCost) console.log(logCostLine(result));
const rls = {
  name: 'RLS read (Bearer)',
  http: (i: number): HttpRequest => ({ method: 'GET', path: `/${pick(ownNotes, i)}` }),
  expect: 200,
};
const rlsHeaders = { 'x-api-key': publishableKey, authorization: `Bearer ${bearer}` };
// One round of every read before any measure: the API's shared code (key, limits, cache,
// validation, logging) is compiled by then, so the first operation measured is not charged with
// it (it read up to 40% higher in CPU per request than the same operation measured later).
// Writes are left out: their documents would make the lists measured next scan more.
// The commands per request first, on the seeded collection: after the creates measured below,
// a list scans ten times more documents and the count of lists takes minutes.
const commandCounts = spins.length
  ? []
  : await countCommands({
      ops: ops.filter((op) => wanted(op.name) && op.name !== 'update'),
      mongodbUri: deps.config.mongodbUri,
      platformDb,
      projectDb: projectDb.databaseName,
      headers: secret,
      concurrency: CONCURRENCY[0]!,
      requests: COMMANDS,
    });
// The count's creates (`new-…`, 2 × (200 + --commands) documents) are removed again: left in
// place, they doubled the collection that every list measured next scans, and so the database's
// CPU per list (5 577 µs against 2 075 in a run without the count).
await projectDb.collection('items').deleteMany({ name: { $regex: '^new-' } });
for (const op of ops.filter((o) => wanted(o.name) && o.http(0).method === 'GET')) {
  await http(thin, '', {}, 16, WARMUP_SECONDS, op);
  await http(api, '/items', secret, 16, WARMUP_SECONDS, op);
  if (beforeApi) await http(beforeApi, '/items', secret, 16, WARMUP_SECONDS, op);
  if (pocketbase) await pbHttp(16, WARMUP_SECONDS, op);
}
if (wanted(rls.name)) await http(api, '/notes', rlsHeaders, 16, WARMUP_SECONDS, rls);
for (const op of ops.filter((o) => wanted(o.name))) {
  // Warm-up of both servers (connections, JIT) before the first measure of each operation: the
  // optimising compiler's threads count in a process's CPU time, and the API has more code to
  // compile, so a short warm-up showed mostly that in the first operation's CPU per request.
  await http(thin, '', {}, 16, WARMUP_SECONDS, op);
  await http(api, '/items', secret, 16, WARMUP_SECONDS, op);
  if (beforeApi) await http(beforeApi, '/items', secret, 16, WARMUP_SECONDS, op);
  if (pocketbase) await pbHttp(16, WARMUP_SECONDS, op);
  for (const c of CONCURRENCY) {
    const taken: Record<'raw' | 'thin' | 'thinPaced' | 'api' | 'before' | 'pocketbase', Measure[]> = {
      raw: [],
      thin: [],
      thinPaced: [],
      api: [],
      before: [],
      pocketbase: [],
    };
    for (let round = 0; round < ROUNDS; round++) {
      taken.raw.push(await withDbCpu(dbPid, () => loop(c, SECONDS, rawWork[op.name]!)));
      // The servers in turn, starting one later each round: none is always measured right after the raw loop.
      const arms: (() => Promise<void>)[] = [
        async () => void taken.thin.push(await http(thin, '', {}, c, SECONDS, op)),
        async () => void taken.api.push(await http(api, '/items', secret, c, SECONDS, op)),
        ...(beforeApi
          ? [async () => void taken.before.push(await http(beforeApi, '/items', secret, c, SECONDS, op))]
          : []),
        ...(pocketbase ? [async () => void taken.pocketbase.push(await pbHttp(c, SECONDS, op))] : []),
      ];
      for (let arm = 0; arm < arms.length; arm++) await arms[(arm + round) % arms.length]!();
      // The thin server again at this round's API rate, when that is below its own: the database's
      // CPU per request compared at the same pace (--paced off leaves it out).
      const apiRate = taken.api.at(-1)!.rps;
      if (PACED && apiRate < taken.thin.at(-1)!.rps * 0.95)
        taken.thinPaced.push(await http(thin, '', {}, c, SECONDS, op, apiRate));
    }
    const [rawMeasure, thinMeasure, apiMeasure] = [median(taken.raw), median(taken.thin), median(taken.api)];
    const beforeMeasure = beforeApi ? median(taken.before) : undefined;
    const pbMeasure = pocketbase ? median(taken.pocketbase) : undefined;
    const pacedMeasure = taken.thinPaced.length ? median(taken.thinPaced) : undefined;
    const row: Row = {
      op: op.name,
      concurrency: c,
      raw: rawMeasure,
      thin: thinMeasure,
      api: apiMeasure,
      before: beforeMeasure,
      pocketbase: pbMeasure,
      thinPaced: pacedMeasure,
    };
    rows.push(row);
    console.log(progressLine(row, values.gc));
  }
}
if (wanted(rls.name)) await http(api, '/notes', rlsHeaders, 16, WARMUP_SECONDS, rls);
for (const c of wanted(rls.name) ? CONCURRENCY : []) {
  const taken: Measure[] = [];
  for (let round = 0; round < ROUNDS; round++)
    taken.push(await http(api, '/notes', rlsHeaders, c, SECONDS, rls));
  const measure = median(taken);
  const byId = rows.find((r) => r.op === 'get by id' && r.concurrency === c);
  rows.push({ op: rls.name, concurrency: c, raw: byId?.raw, thin: byId?.thin, api: measure });
  console.log(
    `${rls.name} c=${c}: api ${measure.rps.toFixed(0)} req/s; CPU per request ${measure.cpuMicros?.toFixed(0) ?? ''} µs`,
  );
}
const calibration = spins.length
  ? await calibrate({
      spins,
      rounds: ROUNDS,
      seconds: SECONDS,
      concurrency: CONCURRENCY[0]!,
      warmupSeconds: WARMUP_SECONDS,
      thinEnv: { THIN_DB: projectDb.databaseName, THIN_COLLECTION: 'items' },
      thin: { name: 'thin', url: thin.url, pid: thin.child.pid, headers: {} },
      api: { name: 'API', url: `${api.url}/items`, pid: api.child.pid, headers: secret },
      // The operations whose ratio is the servers' CPU (lists and updates wait on the database).
      ops: ops.filter((op) => (op.name === 'get by id' || op.name === 'create') && matches(op.name)),
    })
  : undefined;
loadAverage.push(os.loadavg()[0]!);

// ---- Report ----
const buildInfo = (await raw
  .db('admin')
  .command({ buildInfo: 1 })
  .catch(() => ({}))) as { version?: string };
await servers.stopAll();
await raw.close();
await projectDb.dropDatabase().catch(() => undefined);
await deps.db.platform.dropDatabase().catch(() => undefined);
await services.usage.counter.stop().catch(() => undefined);
await closeDeps(deps);

const lines = [
  ...runDescription({
    label: values.label,
    loadAverage,
    engineVersion: buildInfo.version,
    seconds: SECONDS,
    rounds: ROUNDS,
    withBefore: !!beforeApi,
    calibrating: spins.length > 0,
    warmupSeconds: WARMUP_SECONDS,
    seeded: SEEDED,
    paced: rows.some((r) => r.thinPaced),
    pocketbase: pocketbase ? { version: POCKETBASE_VERSION } : { missing: servers.pocketbaseMissing ?? '' },
  }),
  ...(rows.length ? resultsTable(rows) : []),
  ...commandsSection(commandCounts, CONCURRENCY[0]!),
  ...logCostSection(logCost, { seconds: LOG_SECONDS, control: values['log-control'] }),
  ...(values.gc ? gcSection(rows) : []),
  ...(calibration ? calibrationSection(calibration, CONCURRENCY[0]!, ROUNDS) : []),
];
const out = values.out || (spins.length ? 'bench/CALIBRATION.md' : 'bench/RESULTS.md');
await writeReport(lines, out);
const unexpected = rows.reduce((n, r) => n + r.api.unexpected + (r.thin?.unexpected ?? 0), 0);
process.exit(unexpected > 0 ? 1 : 0);
