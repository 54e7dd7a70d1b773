// The shared part of the benchmarks: options, a bounded closed-loop runner with a fixed number
// of concurrent clients, and the Markdown table of requests/s and latency percentiles.
import { parseArgs } from 'node:util';

export interface Result {
  name: string;
  requests: number;
  seconds: number;
  latencies: number[];
  errors: number;
}

/** `--requests N --concurrency C`, both bounded so that a run always stops by itself. */
export function benchOptions(defaultRequests: number) {
  const { values } = parseArgs({
    options: {
      requests: { type: 'string', default: String(defaultRequests) },
      concurrency: { type: 'string', default: '8' },
    },
  });
  return {
    requests: Math.min(Number(values.requests), 5000),
    concurrency: Math.min(Number(values.concurrency), 64),
  };
}

/** Sends `requests` requests from `concurrency` clients; `send` returns the HTTP status. */
export async function run(
  name: string,
  requests: number,
  concurrency: number,
  send: (i: number) => Promise<number>,
): Promise<Result> {
  const latencies: number[] = [];
  let next = 0;
  let errors = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < requests) {
        const i = next++;
        const t = performance.now();
        const status = await send(i);
        latencies.push(performance.now() - t);
        if (status >= 300) errors++;
      }
    }),
  );
  return { name, requests, seconds: (performance.now() - started) / 1000, latencies, errors };
}

const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

export function printTable(results: Result[], requests: number, concurrency: number): void {
  console.log(`\n${requests} requests per operation, concurrency ${concurrency}, Node ${process.version}\n`);
  console.log('| operation | requests/s | p50 ms | p95 ms | p99 ms | errors |');
  console.log('|---|---|---|---|---|---|');
  for (const r of results) {
    const sorted = [...r.latencies].sort((a, b) => a - b);
    const row = [
      r.name,
      (r.requests / r.seconds).toFixed(1),
      pct(sorted, 50).toFixed(1),
      pct(sorted, 95).toFixed(1),
      pct(sorted, 99).toFixed(1),
      r.errors,
    ];
    console.log(`| ${row.join(' | ')} |`);
  }
}
