// `npm run bench -- --calibrate 25,50,100`: what a fixed price per request does to the ratio on
// this machine. The thin server is started once more per price with THIN_SPIN_US (it spins that
// many microseconds of CPU before each request and does nothing else differently), and each
// operation is measured on it in turn with the plain thin server and the API. A spinning row is
// the ratio a server reaches whose features cost exactly that much CPU per request above the thin
// server: the scale the API's own ratio is read against.
import type { ChildProcess } from 'node:child_process';
import { freePort, start, stop, up } from './setup.js';
import { httpLoadWithCpu, median, type HttpRequest, type Measure } from './load.js';

export interface CalibrationRow {
  op: string;
  server: string;
  measure: Measure;
}

export interface CalibratedOp {
  name: string;
  http: (i: number) => HttpRequest;
  expect: number;
}

/** A server measured in the rotation. */
export interface RunningServer {
  name: string;
  url: string;
  pid: number | undefined;
  headers: Record<string, string>;
}

export interface CalibrationOptions {
  spins: number[];
  rounds: number;
  seconds: number;
  concurrency: number;
  warmupSeconds: number;
  /** The thin server's environment (database and collection). */
  thinEnv: Record<string, string>;
  /** The plain thin server (the ratios are taken to it) and the API, both running. */
  thin: RunningServer;
  api: RunningServer;
  ops: CalibratedOp[];
}

/**
 * Per operation, a row per server (the running ones and a thin server per price): the medians of
 * `rounds` measures taken in turn, so that the database's drift falls on every server alike.
 */
export async function calibrate(options: CalibrationOptions): Promise<CalibrationRow[]> {
  const spinning: (RunningServer & { child: ChildProcess })[] = [];
  try {
    for (const spinMicros of options.spins) {
      const port = await freePort();
      const child = await start(
        'scripts/bench/thin-server.ts',
        [],
        { ...options.thinEnv, THIN_PORT: String(port), THIN_SPIN_US: String(spinMicros) },
        up(`http://127.0.0.1:${port}/items?price_gte=0&price_lt=1`),
      );
      const url = `http://127.0.0.1:${port}/items`;
      spinning.push({ name: `thin + ${spinMicros} µs spin`, url, pid: child.pid, headers: {}, child });
    }
    const servers = [options.thin, ...spinning, options.api];
    const load = (op: CalibratedOp, server: RunningServer, seconds: number) => ({
      url: server.url,
      headers: server.headers,
      connections: options.concurrency,
      seconds,
      request: op.http,
      expect: (status: number) => status === op.expect,
    });
    const rows: CalibrationRow[] = [];
    for (const op of options.ops) {
      for (const server of servers)
        await httpLoadWithCpu(load(op, server, options.warmupSeconds), server.pid);
      const taken = servers.map(() => [] as Measure[]);
      for (let round = 0; round < options.rounds; round++) {
        for (const [i, server] of servers.entries()) {
          taken[i]!.push(await httpLoadWithCpu(load(op, server, options.seconds), server.pid));
        }
      }
      servers.forEach((server, i) =>
        rows.push({ op: op.name, server: server.name, measure: median(taken[i]!) }),
      );
    }
    return rows;
  } finally {
    for (const server of spinning) await stop(server.child);
  }
}

/** The report's section: per operation, every server's ratios to the plain thin server. */
export function calibrationSection(rows: CalibrationRow[], concurrency: number, rounds: number): string[] {
  const f = (n: number, d = 0) => n.toFixed(d);
  const lines: string[] = [];
  for (const op of [...new Set(rows.map((r) => r.op))]) {
    const ofOp = rows.filter((r) => r.op === op);
    const plain = ofOp[0]!.measure;
    for (const { server, measure: m } of ofOp) {
      lines.push(
        `| ${op} | ${server} | ${f(m.rps)} | ${f(m.rps / plain.rps, 2)} | ${f(m.cpuMicros ?? 0)} | ${f(m.p99, 1)} | ${f(m.p99 / plain.p99, 2)} |`,
      );
    }
  }
  return [
    `## Calibration: a fixed price per request (\`--calibrate\`), concurrency ${concurrency}`,
    '',
    'The thin server, the same thin server spinning the given microseconds of CPU before each request',
    `(and otherwise unchanged), and the API, measured in turn, ${rounds} round(s), the median of each column.`,
    'A spinning row is the ratio a server reaches whose features cost exactly that much more CPU per',
    "request than the thin server; the API's row is read against them.",
    '',
    '| operation | server | req/s | / thin | CPU µs / req | p99 ms | p99 / thin p99 |',
    '|---|---|---|---|---|---|---|',
    ...lines,
    '',
  ];
}
