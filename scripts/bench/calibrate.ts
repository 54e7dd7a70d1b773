// `npm run bench -- --calibrate 25,50,100`: what a fixed price per request does to the ratio on
// this machine. The thin server is started once more per price with THIN_SPIN_US (it spins that
// many microseconds of CPU before each request and does nothing else differently), and each
// operation is measured on it in turn with the plain thin server. Each row is the ratio a server
// reaches whose features cost exactly that much CPU per request above the thin server: the scale
// the API's own ratio is read against.
import type { ChildProcess } from 'node:child_process';
import { freePort, start, stop, up } from './setup.js';
import { httpLoadWithCpu, median, type HttpRequest, type Measure } from './load.js';

export interface CalibrationRow {
  op: string;
  spinMicros: number;
  measure: Measure;
}

export interface CalibratedOp {
  name: string;
  http: (i: number) => HttpRequest;
  expect: number;
}

export interface CalibrationOptions {
  spins: number[];
  rounds: number;
  seconds: number;
  concurrency: number;
  /** The thin server's environment (database and collection). */
  thinEnv: Record<string, string>;
  /** The plain thin server already running. */
  plain: { url: string; pid: number | undefined };
  ops: CalibratedOp[];
}

/** Per operation, rows of the plain thin server (spin 0) and of each price: medians of `rounds` measures taken in turn. */
export async function calibrate(options: CalibrationOptions): Promise<CalibrationRow[]> {
  const servers: { spinMicros: number; url: string; pid: number | undefined; child?: ChildProcess }[] = [
    { spinMicros: 0, ...options.plain },
  ];
  for (const spinMicros of options.spins) {
    const port = await freePort();
    const child = await start(
      'scripts/bench/thin-server.ts',
      [],
      { ...options.thinEnv, THIN_PORT: String(port), THIN_SPIN_US: String(spinMicros) },
      up(`http://127.0.0.1:${port}/items?price_gte=0&price_lt=1`),
    );
    servers.push({ spinMicros, url: `http://127.0.0.1:${port}/items`, pid: child.pid, child });
  }
  const load = (op: CalibratedOp, url: string, seconds: number) => ({
    url,
    headers: {},
    connections: options.concurrency,
    seconds,
    request: op.http,
    expect: (status: number) => status === op.expect,
  });
  const rows: CalibrationRow[] = [];
  try {
    for (const op of options.ops) {
      for (const server of servers) await httpLoadWithCpu(load(op, server.url, 2), server.pid);
      const taken = servers.map(() => [] as Measure[]);
      for (let round = 0; round < options.rounds; round++) {
        for (const [i, server] of servers.entries()) {
          taken[i]!.push(await httpLoadWithCpu(load(op, server.url, options.seconds), server.pid));
        }
      }
      servers.forEach((server, i) =>
        rows.push({ op: op.name, spinMicros: server.spinMicros, measure: median(taken[i]!) }),
      );
    }
  } finally {
    for (const server of servers) if (server.child) await stop(server.child);
  }
  return rows;
}

/** The report's section: per operation, each price next to the API's own measure at the same concurrency. */
export function calibrationSection(
  rows: CalibrationRow[],
  concurrency: number,
  apiOf: (op: string) => { api: Measure; thin: Measure } | undefined,
): string[] {
  const f = (n: number, d = 0) => n.toFixed(d);
  const line = (op: string, name: string, m: Measure, plain: Measure) =>
    `| ${op} | ${name} | ${f(m.rps)} | ${f(m.rps / plain.rps, 2)} | ${f(m.cpuMicros ?? 0)} | ${f(m.p99, 1)} | ${f(m.p99 / plain.p99, 2)} |`;
  const lines: string[] = [];
  for (const op of [...new Set(rows.map((r) => r.op))]) {
    const ofOp = rows.filter((r) => r.op === op);
    const plain = ofOp.find((r) => r.spinMicros === 0)!.measure;
    for (const r of ofOp) {
      lines.push(line(op, r.spinMicros === 0 ? 'thin' : `thin + ${r.spinMicros} µs spin`, r.measure, plain));
    }
    const api = apiOf(op);
    if (api) lines.push(line(op, 'API (table above)', api.api, api.thin));
  }
  return [
    `## Calibration: a fixed price per request (\`--calibrate\`), concurrency ${concurrency}`,
    '',
    'The thin server again, spinning the given microseconds of CPU before each request and otherwise',
    'unchanged, measured in turn with the plain thin server after the table above. A row is the ratio',
    "a server reaches whose features cost exactly that much more CPU per request. The API's row is",
    'the one of the table above, its ratios taken to the thin server measured with it.',
    '',
    '| operation | server | req/s | / thin | CPU µs / req | p99 ms | p99 / thin p99 |',
    '|---|---|---|---|---|---|---|',
    ...lines,
    '',
  ];
}
