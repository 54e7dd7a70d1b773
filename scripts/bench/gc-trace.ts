// `npm run bench -- --gc`: what the garbage collector did per request. A server started with
// `node --trace-gc-nvp` writes one line per collection to its stdout (here a file), with what
// was allocated since the collection before, what survived and what was promoted to the old
// generation, and the pause on the main thread and the parallel work on V8's helper threads.
// Summed over the lines a measure produced and divided by its requests, that is what each request
// costs the collector: objects still referenced when a young collection runs are copied, and
// promoted at the next one, so bytes promoted per request show a request kept alive for longer
// than it lasts.
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';

export interface GcPerRequest {
  /** KB allocated in the young generation per request. */
  allocatedKb: number;
  /** KB promoted to the old generation per request. */
  promotedKb: number;
  /** µs of collection pauses (young and full) on the main thread per request. */
  pauseMicros: number;
  /** µs of collection work on V8's helper threads per request (parallel scavenging, concurrent marking). */
  helperMicros: number;
}

/** The `key=value` fields of one --trace-gc-nvp line. */
function fieldsOf(line: string): Map<string, string> {
  const fields = new Map<string, string>();
  for (const part of line.split(' ')) {
    const eq = part.indexOf('=');
    if (eq > 0) fields.set(part.slice(0, eq), part.slice(eq + 1));
  }
  return fields;
}

/** Reads a server's --trace-gc-nvp output as it grows: `since` sums what was written since the last call. */
export function gcTrace(file: string) {
  let offset = 0;
  let partial = '';

  function fresh(): string[] {
    const fd = openSync(file, 'r');
    try {
      const size = fstatSync(fd).size;
      if (size <= offset) return [];
      const buffer = Buffer.alloc(size - offset);
      readSync(fd, buffer, 0, buffer.length, offset);
      offset = size;
      const text = partial + buffer.toString('utf8');
      const lines = text.split('\n');
      partial = lines.pop() ?? '';
      return lines;
    } finally {
      closeSync(fd);
    }
  }

  return {
    /** Skips what was written so far (warm-up, another target's measure). */
    mark(): void {
      fresh();
    },
    since(requests: number): GcPerRequest | undefined {
      let allocated = 0;
      let promoted = 0;
      let pause = 0;
      let helpers = 0;
      for (const line of fresh()) {
        if (!line.includes(' gc=')) continue;
        const fields = fieldsOf(line);
        const number = (name: string) => Number(fields.get(name) ?? 0) || 0;
        pause += number('pause');
        allocated += number('allocated');
        promoted += number('promoted');
        // Parallel scavenging, and a full collection's concurrent marking, sweeping and evacuation.
        for (const [name, value] of fields) if (name.startsWith('background.')) helpers += Number(value) || 0;
      }
      if (requests <= 0) return undefined;
      return {
        allocatedKb: allocated / 1024 / requests,
        promotedKb: promoted / 1024 / requests,
        pauseMicros: (pause * 1000) / requests,
        helperMicros: (helpers * 1000) / requests,
      };
    },
  };
}

/**
 * The report's section (--gc): the collector's work per request, young-generation bytes and its
 * time on and off the main thread.
 */
export function gcSection(
  rows: { op: string; concurrency: number; thin?: { gc?: GcPerRequest }; api: { gc?: GcPerRequest } }[],
): string[] {
  const f = (n: number, d = 0) => n.toFixed(d);
  const cell = (m: { gc?: GcPerRequest } | undefined) =>
    m?.gc
      ? [
          `${f(m.gc.allocatedKb, 1)} / ${f(m.gc.promotedKb, 1)}`,
          `${f(m.gc.pauseMicros)} / ${f(m.gc.helperMicros)}`,
        ]
      : ['', ''];
  return [
    '## Garbage collection per request (`--gc`)',
    '',
    'From `node --trace-gc-nvp` on both servers: the lines written during a measure, summed and divided by its requests.',
    'KB allocated / promoted to the old generation; µs of collection pauses on the main thread / of collection work on',
    "V8's helper threads (parallel scavenging, concurrent marking). Promoted bytes are objects that outlived a young",
    'collection twice: a request kept alive longer than it lasts shows there.',
    '',
    '| operation | conc. | thin KB allocated / promoted | thin GC µs main / helpers | API KB allocated / promoted | API GC µs main / helpers |',
    '|---|---|---|---|---|---|',
    ...rows.map((r) => `| ${[r.op, r.concurrency, ...cell(r.thin), ...cell(r.api)].join(' | ')} |`),
    '',
  ];
}
