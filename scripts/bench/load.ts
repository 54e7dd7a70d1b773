// Load for `npm run bench` and `npm run soak`: HTTP through autocannon (keep-alive connections,
// a fixed number in flight, per-request paths and bodies), and a closed loop for the raw driver.
// Latencies are kept exactly (autocannon's own histogram has whole milliseconds).
import type { GcPerRequest } from './gc-trace.js';
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';

export interface Measure {
  requests: number;
  /** What the garbage collector did per request (`--gc`, see gc-trace.ts). */
  gc?: GcPerRequest;
  /** CPU time of the measured server process per request, in microseconds (Linux only). */
  cpuMicros?: number;
  /** CPU time of the database server's process per request, in microseconds (db-process.ts). */
  dbCpuMicros?: number;
  seconds: number;
  rps: number;
  p50: number;
  p99: number;
  /** Responses with a status other than the expected one, and socket errors or timeouts. */
  unexpected: number;
  statuses: Record<string, number>;
}

export function summarize(latencies: number[], seconds: number, unexpected: number, statuses = {}): Measure {
  const sorted = Float64Array.from(latencies).sort();
  const pct = (p: number) =>
    sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]! : 0;
  return {
    requests: latencies.length,
    seconds,
    rps: latencies.length / seconds,
    p50: pct(0.5),
    p99: pct(0.99),
    unexpected,
    statuses,
  };
}

export interface HttpRequest {
  method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
  path: string;
  body?: string;
  /** Added to the load's headers for this request. */
  headers?: Record<string, string>;
}

export interface HttpLoad {
  /** Origin and path prefix: the request's path is appended to the prefix. */
  url: string;
  headers: Record<string, string>;
  connections: number;
  seconds: number;
  /** The i-th request; called once per request sent. */
  request: (i: number) => HttpRequest;
  /** Statuses that count as expected; others are reported. */
  expect: (status: number) => boolean;
  /** Requests per second across all connections at most (autocannon's overallRate); unpaced without. */
  rate?: number;
}

export async function httpLoad(load: HttpLoad): Promise<Measure> {
  let i = 0;
  const prefix = new URL(load.url).pathname.replace(/\/$/, '');
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  let unexpected = 0;
  let done!: (result: autocannon.Result) => void;
  let failed!: (err: unknown) => void;
  const finished = new Promise<autocannon.Result>((resolve, reject) => {
    done = resolve;
    failed = reject;
  });
  const instance = autocannon(
    {
      url: load.url,
      connections: load.connections,
      duration: load.seconds,
      ...(load.rate ? { overallRate: Math.max(1, Math.round(load.rate)) } : {}),
      // Seconds before a request counts as timed out (an unexpected answer).
      timeout: 30,
      headers: { 'content-type': 'application/json', ...load.headers },
      requests: [
        {
          setupRequest: (req) => {
            const next = load.request(i++);
            const headers = next.headers ? { ...req.headers, ...next.headers } : req.headers;
            return { ...req, method: next.method, path: prefix + next.path, body: next.body, headers };
          },
        },
      ],
    },
    (err, result) => (err ? failed(err) : done(result)),
  );
  instance.on('response', (_client: unknown, status: number, _bytes: number, responseTime: number) => {
    latencies.push(responseTime);
    statuses[status] = (statuses[status] ?? 0) + 1;
    if (!load.expect(status)) unexpected++;
  });
  const result = await finished;
  return summarize(latencies, result.duration, unexpected + result.errors + result.timeouts, statuses);
}

/** `concurrency` loops calling `work` for `seconds`; for the driver alone. */
export async function loop(concurrency: number, seconds: number, work: (i: number) => Promise<unknown>) {
  const latencies: number[] = [];
  let i = 0;
  let failed = 0;
  const started = performance.now();
  const end = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < end) {
        const t = performance.now();
        try {
          await work(i++);
        } catch {
          failed++;
        }
        latencies.push(performance.now() - t);
      }
    }),
  );
  return summarize(latencies, (performance.now() - started) / 1000, failed);
}

/** User plus system CPU time of a process so far, in milliseconds (undefined off Linux). */
export function cpuMillis(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    // Fields after the command name (which may hold spaces, so split after its closing paren).
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime are fields 14 and 15 of the whole line, in clock ticks (USER_HZ, 100 on Linux).
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS;
  } catch {
    return undefined;
  }
}
const CLOCK_TICKS = 100;

/** Runs an HTTP load and adds the server's (and the database's) CPU time per request to its measure. */
export async function httpLoadWithCpu(
  load: HttpLoad,
  serverPid: number | undefined,
  dbPid?: number,
): Promise<Measure> {
  return withDbCpu(dbPid, async () => {
    const before = cpuMillis(serverPid);
    const measure = await httpLoad(load);
    const after = cpuMillis(serverPid);
    if (before !== undefined && after !== undefined && measure.requests > 0) {
      measure.cpuMicros = ((after - before) * 1000) / measure.requests;
    }
    return measure;
  });
}

/** Runs a measure and adds the database server's CPU time per request to it. */
export async function withDbCpu(dbPid: number | undefined, run: () => Promise<Measure>): Promise<Measure> {
  const before = cpuMillis(dbPid);
  const measure = await run();
  const after = cpuMillis(dbPid);
  if (before !== undefined && after !== undefined && measure.requests > 0) {
    measure.dbCpuMicros = ((after - before) * 1000) / measure.requests;
  }
  return measure;
}

/**
 * Several measures of one thing as one: the median of each rate, latency and CPU figure (each
 * taken on its own), the requests and unexpected answers of all of them.
 */
export function median(measures: Measure[]): Measure {
  if (measures.length === 1) return measures[0]!;
  const mid = (pick: (m: Measure) => number | undefined) => {
    const values = measures
      .map(pick)
      .filter((v): v is number => v !== undefined)
      .sort((a, b) => a - b);
    return values.length ? values[values.length >> 1]! : undefined;
  };
  const statuses: Record<string, number> = {};
  for (const m of measures)
    for (const [status, count] of Object.entries(m.statuses))
      statuses[status] = (statuses[status] ?? 0) + count;
  return {
    requests: measures.reduce((sum, m) => sum + m.requests, 0),
    cpuMicros: mid((m) => m.cpuMicros),
    dbCpuMicros: mid((m) => m.dbCpuMicros),
    seconds: measures.reduce((sum, m) => sum + m.seconds, 0),
    rps: mid((m) => m.rps)!,
    p50: mid((m) => m.p50)!,
    p99: mid((m) => m.p99)!,
    unexpected: measures.reduce((sum, m) => sum + m.unexpected, 0),
    statuses,
    gc: measures.some((m) => m.gc)
      ? {
          allocatedKb: mid((m) => m.gc?.allocatedKb)!,
          promotedKb: mid((m) => m.gc?.promotedKb)!,
          pauseMicros: mid((m) => m.gc?.pauseMicros)!,
          helperMicros: mid((m) => m.gc?.helperMicros)!,
        }
      : undefined,
  };
}
