// The tables of `npm run bench` (compare.ts): requests per second, latencies and CPU per request
// of the API, the thin server and the raw driver, with the database server's CPU per request
// beside each; and the database commands each server sends per request (commands.ts).
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, isAbsolute } from 'node:path';
import { format, resolveConfig } from 'prettier';
import { repoPath } from '../../src/lib/paths.js';
import type { Measure } from './load.js';

export interface Row {
  op: string;
  concurrency: number;
  raw?: Measure;
  thin?: Measure;
  api: Measure;
  /** `--before DIR`: the API built from another tree, measured in the same rounds. */
  before?: Measure;
  /** PocketBase's whole process (pocketbase.ts), measured in the same rounds. */
  pocketbase?: Measure;
  /**
   * The thin server held to the API's rate of the same round (autocannon's overall rate): the
   * database's CPU per request at the same pace, since its fixed cost per second is shared by
   * fewer requests at a lower rate.
   */
  thinPaced?: Measure;
}

const f = (n: number, d = 0) => n.toFixed(d);
const ratio = (a: number | undefined, b: number | undefined) => (a !== undefined && b ? f(a / b, 2) : '');
const cpu = (m: Measure | undefined) => (m?.cpuMicros === undefined ? '' : f(m.cpuMicros));
const dbCpu = (m: Measure | undefined) => (m?.dbCpuMicros === undefined ? '' : f(m.dbCpuMicros));

/** The console's line for one row as soon as it is measured. */
export function progressLine(row: Row, gc: boolean): string {
  const { raw, thin, api, before, pocketbase: pb } = row;
  const kb = (m: Measure | undefined) => (m?.gc ? f(m.gc.promotedKb, 1) : '');
  return (
    `${row.op} c=${row.concurrency}: raw ${f(raw?.rps ?? 0)}, thin ${f(thin?.rps ?? 0)}, api ${f(api.rps)}` +
    (before ? `, before ${f(before.rps)}` : '') +
    (pb ? `, pocketbase ${f(pb.rps)}` : '') +
    ` req/s; CPU per request thin ${cpu(thin)}, api ${cpu(api)}` +
    (before ? `, before ${cpu(before)}` : '') +
    (pb ? `, pocketbase ${cpu(pb)}` : '') +
    ` µs; database CPU per request thin ${dbCpu(thin)}, api ${dbCpu(api)}` +
    (before ? `, before ${dbCpu(before)}` : '') +
    ' µs' +
    (gc ? `; promoted per request thin ${kb(thin)}, api ${kb(api)} KB` : '')
  );
}

/** How the run was made (runDescription). */
export interface RunSettings {
  label: string;
  loadAverage: number[];
  engineVersion?: string;
  seconds: number;
  rounds: number;
  withBefore: boolean;
  calibrating: boolean;
  warmupSeconds: number;
  seeded: number;
  /** Whether the thin server was also measured at the API's rate (compare.ts --paced). */
  paced: boolean;
  pocketbase: { version: string } | { missing: string };
}

/** The report's title and how the run was made: machine, load, engine, what each column reads. */
export function runDescription(o: RunSettings): string[] {
  const cpus = os.cpus();
  return [
    `# Benchmark results${o.label ? `: ${o.label}` : ''}`,
    '',
    `Written by \`npm run bench\` (scripts/bench/compare.ts) on ${new Date().toISOString()}.`,
    '',
    `- Machine: ${cpus.length} × ${cpus[0]?.model ?? 'unknown CPU'}, ${f(os.totalmem() / 1024 ** 3, 1)} GiB memory, ${os.type()} ${os.release()}`,
    `- Load average (1 min) at start and end: ${o.loadAverage.map((l) => f(l, 2)).join(' / ')} (other work on the machine shows here)`,
    `- Node ${process.version}; database engine: ${process.env.STACK_ENGINE ?? 'mongo-java-server'} (reports version ${o.engineVersion ?? '?'}), Redis for the API's cache`,
    `- ${o.seconds} s per measure${o.rounds > 1 ? `, ${o.rounds} rounds (raw, then thin, API${o.withBefore ? ' and before' : ''} in turn, the order turning each round), the median of each column` : ''} after ${o.calibrating ? `a ${o.warmupSeconds} s warm-up of every server per operation` : `a first round of every read and a ${o.warmupSeconds} s warm-up per operation (both servers, concurrency 16, ${o.warmupSeconds} s each)`}; ${o.seeded} documents seeded; load generator autocannon (keep-alive), raw driver in a closed loop`,
    '- API: the public role as `npm start` runs it (compiled, `node dist/main.js public`, log level info, output discarded), secret key unless noted;',
    '  thin: scripts/bench/thin-server.ts in its own process; the RLS read is compared with get by id of the others;',
    "- CPU µs / req: the server process's user and system CPU time during the measure divided by the requests it answered",
    '  (from /proc); the database server, Redis and the load generator are not in it. What the API spends above the thin',
    '  server is the price of its features; the rest of a request is waiting for the database.',
    "- DB CPU µs / req: the database server's process (found by its port, db-process.ts), the same way, during each",
    '  measure: what each request made the database do, background writes included.',
    ...(o.paced
      ? [
          "- thin at API rate: in each round, the thin server again, held to that round's API rate (autocannon's overall rate), for",
          "  the database's CPU per request at the same pace (its own cost per second is shared by fewer requests at a lower rate).",
        ]
      : []),
    ...('version' in o.pocketbase
      ? [
          `- PocketBase: ${o.pocketbase.version}'s examples/base (scripts/bench/pocketbase.ts), its own process and SQLite data folder, seeded`,
          '  with the same records, public rules; its CPU per request is the whole process (HTTP and SQLite); measured in turn with the others.',
        ]
      : [`- PocketBase: not measured (${o.pocketbase.missing})`]),
    '',
  ];
}

/** The main table: one row per operation and concurrency. */
export function resultsTable(rows: Row[]): string[] {
  const withBefore = rows.some((r) => r.before);
  const beforeHead = withBefore
    ? ' before req/s | before / thin | before CPU µs / req | before DB CPU µs / req |'
    : '';
  const beforeCells = (r: Row) =>
    withBefore
      ? [f(r.before?.rps ?? 0), ratio(r.before?.rps, r.thin?.rps), cpu(r.before), dbCpu(r.before)]
      : [];
  const withPaced = rows.some((r) => r.thinPaced);
  const pacedHead = withPaced ? ' thin at API rate: req/s, DB CPU µs / req | API / paced thin DB CPU |' : '';
  const pacedCells = (r: Row) =>
    withPaced
      ? [
          r.thinPaced ? `${f(r.thinPaced.rps)}, ${dbCpu(r.thinPaced)}` : '',
          ratio(r.api.dbCpuMicros, r.thinPaced?.dbCpuMicros),
        ]
      : [];
  const withPb = rows.some((r) => r.pocketbase);
  const pbHead = withPb
    ? ' PocketBase req/s | API / PocketBase | PocketBase p50 / p99 ms | PocketBase CPU µs / req | API / PocketBase CPU |'
    : '';
  const pbCells = (r: Row) =>
    withPb
      ? [
          r.pocketbase ? f(r.pocketbase.rps) : '',
          ratio(r.api.rps, r.pocketbase?.rps),
          r.pocketbase ? `${f(r.pocketbase.p50, 1)} / ${f(r.pocketbase.p99, 1)}` : '',
          cpu(r.pocketbase),
          ratio(r.api.cpuMicros, r.pocketbase?.cpuMicros),
        ]
      : [];
  return [
    `| operation | conc. | raw req/s | thin req/s | API req/s | API / thin | API / raw | raw p50 / p99 ms | thin p50 / p99 ms | API p50 / p99 ms | API p99 / thin p99 | thin CPU µs / req | API CPU µs / req | API / thin CPU | DB CPU µs / req raw / thin / API | API / thin DB CPU |${pacedHead}${beforeHead}${pbHead} unexpected (API) |`,
    `|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|${withPaced ? '---|---|' : ''}${withBefore ? '---|---|---|---|' : ''}${withPb ? '---|---|---|---|---|' : ''}---|`,
    ...rows
      .map((r) =>
        [
          r.op,
          r.concurrency,
          f(r.raw?.rps ?? 0),
          f(r.thin?.rps ?? 0),
          f(r.api.rps),
          ratio(r.api.rps, r.thin?.rps),
          ratio(r.api.rps, r.raw?.rps),
          r.raw ? `${f(r.raw.p50, 1)} / ${f(r.raw.p99, 1)}` : '',
          r.thin ? `${f(r.thin.p50, 1)} / ${f(r.thin.p99, 1)}` : '',
          `${f(r.api.p50, 1)} / ${f(r.api.p99, 1)}`,
          ratio(r.api.p99, r.thin?.p99),
          cpu(r.thin),
          cpu(r.api),
          ratio(r.api.cpuMicros, r.thin?.cpuMicros),
          `${dbCpu(r.raw)} / ${dbCpu(r.thin)} / ${dbCpu(r.api)}`,
          ratio(r.api.dbCpuMicros, r.thin?.dbCpuMicros),
          ...pacedCells(r),
          ...beforeCells(r),
          ...pbCells(r),
          r.api.unexpected,
        ].join(' | '),
      )
      .map((line) => `| ${line} |`),
    '',
  ];
}

export interface CommandCount {
  op: string;
  requests: number;
  /** Per request, by `command collection`, largest first. */
  thin: { name: string; count: number }[];
  api: { name: string; count: number }[];
}

const listed = (counts: { name: string; count: number }[]) =>
  counts.map((c) => `${c.name} ${f(c.count, 3)}`).join(', ') || 'none';
const total = (counts: { name: string; count: number }[]) => counts.reduce((sum, c) => sum + c.count, 0);

/** The commands section: what each server sent the database per request, counted on the wire. */
export function commandsSection(counts: CommandCount[], concurrency: number): string[] {
  if (counts.length === 0) return [];
  return [
    '## Database commands per request',
    '',
    `Counted on the wire (scripts/bench/commands.ts: a proxy between each server and the database counts every command, the driver's heartbeats left out) over ${counts[0]!.requests} requests of each kind at concurrency ${concurrency}, after 200 of the same kind, before the measures; the API's background writes (request log, quota, usage) are in its counts. The list the API may send is bench/COMMANDS.md.`,
    '',
    '| operation | thin commands / req | API commands / req | thin | API |',
    '|---|---|---|---|---|',
    ...counts.map(
      (c) =>
        `| ${c.op} | ${f(total(c.thin), 3)} | ${f(total(c.api), 3)} | ${listed(c.thin)} | ${listed(c.api)} |`,
    ),
    '',
  ];
}

/** One line per operation for the console. */
export const commandsLine = (c: CommandCount) =>
  `${c.op}: commands per request thin ${f(total(c.thin), 3)} (${listed(c.thin)}), api ${f(total(c.api), 3)} (${listed(c.api)})`;

/** Writes the report to `out` (relative to the repository), formatted as every file of it is, and prints it. */
export async function writeReport(lines: string[], out: string): Promise<void> {
  const outFile = isAbsolute(out) ? out : repoPath(out);
  mkdirSync(dirname(outFile), { recursive: true });
  // Formatted like every other file of the repository, so that it can be committed as written.
  const text = await format(lines.join('\n'), { ...(await resolveConfig(outFile)), filepath: outFile });
  writeFileSync(outFile, text);
  console.log(`\n${lines.join('\n')}\nwritten to ${out}`);
}
