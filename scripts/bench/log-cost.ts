// What the request log costs get by id, for `npm run bench` (compare.ts). Two fresh API
// processes, the log on in one and off in the other (or on in both with --log-control, which
// shows the method's own bias), warmed alike, then loaded in turn in many short measures, in
// ABBA order (on, off, off, on, ...), each pair giving one ratio. On a 2-core machine that also
// runs the database server, one measure of a few seconds moves by 10 to 20 % from the next with
// nothing changed, so the cost is not read from one pair but estimated from many: the geometric
// mean of the pairs' ratios with its 95 % confidence interval (Student's t over the logarithms).
// The pairs' order cancels a steady drift; their number narrows the interval.
import type { ChildProcess } from 'node:child_process';
import { httpLoadWithCpu, type HttpRequest, type Measure } from './load.js';
import { freePort, startApi, stop } from './setup.js';

export interface LogCostOptions {
  platformDb: string;
  headers: Record<string, string>;
  /** The collection's path under /api/data, and the i-th get by id in it. */
  path: string;
  request: (i: number) => HttpRequest;
  concurrency: number[];
  /** Pairs of measures per concurrency (rounded up to even, for ABBA), and seconds per measure. */
  pairs: number;
  seconds: number;
  warmupSeconds: number;
  /** The log on in both processes: what the method reads when there is nothing to find. */
  control: boolean;
}

/** A change with the ends of its 95 % interval: 0.02 is 2 % more with the log on. */
export interface Estimate {
  change: number;
  low: number;
  high: number;
}

export interface LogCostResult {
  concurrency: number;
  pairs: { on: Measure; off: Measure }[];
  rps: Estimate;
  cpu: Estimate;
}

/** Two-sided 95 % quantiles of Student's t by degrees of freedom (interpolated between). */
const T95: [number, number][] = [
  [1, 12.706],
  [2, 4.303],
  [3, 3.182],
  [5, 2.571],
  [10, 2.228],
  [20, 2.086],
  [30, 2.042],
  [60, 2.0],
  [120, 1.98],
  [Infinity, 1.96],
];
function t95(df: number): number {
  for (let i = 1; i < T95.length; i++) {
    const [d1, t1] = T95[i - 1]!;
    const [d2, t2] = T95[i]!;
    if (df <= d2) return d2 === Infinity ? t2 : t1 + ((t2 - t1) * (df - d1)) / (d2 - d1);
  }
  return 1.96;
}

/** The geometric mean of the ratios, minus one, and its 95 % interval. */
export function estimate(ratios: number[]): Estimate {
  const logs = ratios.filter((r) => r > 0 && Number.isFinite(r)).map(Math.log);
  const n = logs.length;
  const mean = logs.reduce((a, b) => a + b, 0) / n;
  const sd = n > 1 ? Math.sqrt(logs.reduce((a, b) => a + (b - mean) ** 2, 0) / (n - 1)) : Infinity;
  const half = (t95(n - 1) * sd) / Math.sqrt(n);
  return { change: Math.exp(mean) - 1, low: Math.exp(mean - half) - 1, high: Math.exp(mean + half) - 1 };
}

export async function requestLogCost(options: LogCostOptions): Promise<LogCostResult[]> {
  const { headers, request } = options;
  // The first has the log on; the second has it off (on too in the control).
  const servers: { child: ChildProcess; url: string }[] = [];
  try {
    for (const on of [true, options.control]) {
      const port = await freePort();
      const child = await startApi(options.platformDb, port, [], { REQUEST_LOG_ENABLED: String(on) });
      servers.push({ child, url: `http://127.0.0.1:${port}/api/data${options.path}` });
    }
    const [first, second] = servers as [(typeof servers)[0], (typeof servers)[0]];
    const load = (server: typeof first, c: number, seconds: number) =>
      httpLoadWithCpu(
        { url: server.url, headers, connections: c, seconds, request, expect: (status) => status === 200 },
        server.child.pid,
      );
    const results: LogCostResult[] = [];
    for (const c of options.concurrency) {
      // Warmed alike, in turn, before each concurrency.
      for (let i = 0; i < 2; i++) for (const server of servers) await load(server, c, options.warmupSeconds);
      const pairs: LogCostResult['pairs'] = [];
      const count = options.pairs + (options.pairs % 2);
      for (let pair = 0; pair < count; pair++) {
        // ABBA: the first process goes first in pairs 0 and 3 of every four.
        const firstFirst = pair % 4 === 0 || pair % 4 === 3;
        const a = await load(firstFirst ? first : second, c, options.seconds);
        const b = await load(firstFirst ? second : first, c, options.seconds);
        const [on, off] = firstFirst ? [a, b] : [b, a];
        const unexpected = on.unexpected + off.unexpected;
        if (unexpected) throw new Error(`request log cost: ${unexpected} unexpected answers at c=${c}`);
        pairs.push({ on, off });
      }
      results.push({
        concurrency: c,
        pairs,
        rps: estimate(pairs.map((p) => p.on.rps / p.off.rps)),
        cpu: estimate(pairs.map((p) => (p.on.cpuMicros ?? NaN) / (p.off.cpuMicros ?? NaN))),
      });
    }
    return results;
  } finally {
    await Promise.all(servers.map((s) => stop(s.child)));
  }
}

const pct = (x: number) => `${x >= 0 ? '+' : '−'}${Math.abs(x * 100).toFixed(1)} %`;
const interval = (e: Estimate) => `${pct(e.change)} (95 % interval ${pct(e.low)} to ${pct(e.high)})`;
/** The aim of issue 30: get by id loses no more than 5 % of its requests per second. */
export const AIM = -0.05;

/** One line per concurrency, for the console and the report. */
export const logCostLine = (r: LogCostResult) =>
  `get by id at concurrency ${r.concurrency}: requests per second ${interval(r.rps)}, ` +
  `CPU per request ${interval(r.cpu)} with the log on; ${r.pairs.length} pairs`;

/** The report's section: the estimates, the verdict against the aim, and the medians of each side. */
export function logCostSection(
  results: LogCostResult[],
  options: Pick<LogCostOptions, 'seconds' | 'control'>,
) {
  if (!results.length) return [];
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1] ?? 0;
  return [
    `## What the request log costs get by id${options.control ? ' (control: the log on in both processes)' : ''}`,
    '',
    `Two fresh API processes, the request log ${options.control ? 'on in both' : 'on in one and off in the other'}, ` +
      `warmed alike, then measured in turn, ${options.seconds} s each, in ABBA order; each pair gives one ratio, ` +
      'and the change is the geometric mean of the ratios with its 95 % confidence interval (scripts/bench/log-cost.ts).',
    '',
    ...results.map((r) => {
      const verdict =
        r.rps.low >= AIM
          ? 'within the aim of losing at most 5 %, even at the interval\u2019s low end'
          : r.rps.change >= AIM
            ? 'within the aim of losing at most 5 % as estimated, but the interval reaches past it'
            : 'past the aim of losing at most 5 %';
      return `- ${logCostLine(r)}: ${verdict}.`;
    }),
    '',
    '| conc. | pairs | on: req/s (median) | off: req/s (median) | on: CPU µs / req (median) | off: CPU µs / req (median) |',
    '|---|---|---|---|---|---|',
    ...results.map((r) => {
      const side = (pick: (p: LogCostResult['pairs'][0]) => number) => median(r.pairs.map(pick)).toFixed(0);
      return (
        `| ${r.concurrency} | ${r.pairs.length} | ${side((p) => p.on.rps)} | ${side((p) => p.off.rps)} | ` +
        `${side((p) => p.on.cpuMicros ?? 0)} | ${side((p) => p.off.cpuMicros ?? 0)} |`
      );
    }),
    '',
  ];
}
