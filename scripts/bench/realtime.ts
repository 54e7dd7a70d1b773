// Benchmark of realtime streams on the local test stack (Redis and the MongoDB-compatible server
// of `bash scripts/stack.sh start test`): one public process (a child process, so that the
// clients do not share its CPU time) with N concurrent subscribers of one collection, and
// documents written through the data API, first at a steady rate, then as fast as possible.
// Prints events delivered per second and the delay from the write's request to each delivery.
//
//   npm run bench:realtime -- [--subscribers 1000] [--writes 100] [--rate 10] [--burst 1000]
//                             [--regex '^(item|bulk) [0-9]+$']
//
// With --regex each subscriber filters on `title_regex` (every document's title should match):
// the process then runs the pattern once per event and subscriber, the engine's realtime path.
//
// Bounded: it stops by itself after the two phases. With BENCH_CPU_PROF=1 the server process
// writes a CPU profile to /tmp/rtprof (open it in Chrome DevTools).
import { fork, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

interface Served {
  url: string;
  publishableKey: string;
  secretKey: string;
}

if (process.argv.includes('--serve')) await serve();
else await bench();

/** The child: a public app on the test stack with a project whose limits do not shape the numbers. */
async function serve(): Promise<void> {
  const { startTestApp } = await import('../../test/helpers/app.js');
  const { createCollectionFixture, createProjectFixture } = await import('../../test/helpers/fixtures.js');
  const app = await startTestApp('public', 'bench_realtime', {
    LOG_LEVEL: 'silent',
    RATE_LIMIT_IP_PER_MINUTE: '0',
    // The whole process's time for the one project's patterns: the engine, not the budget.
    REALTIME_REGEX_MS_PER_SECOND: '1000',
    REALTIME_CONNECTIONS_PER_IP: '0', // every subscriber comes from 127.0.0.1
  });
  const fx = await createProjectFixture(app.services, 'Bench');
  await app.services.repos.projects.setLimits(fx.project.id, {
    databaseBytes: 1024 ** 4,
    requestsPerMinute: 1e9,
    realtimeConnectionsPerProject: 100_000,
  });
  await createCollectionFixture(app.services, fx.project.id, { name: 'items' });
  process.send!({
    url: app.url,
    publishableKey: fx.publishableKey,
    secretKey: fx.secretKey,
  } satisfies Served);
  process.on('message', async () => {
    await app.deps.db
      .project(fx.project.id)
      .dropDatabase()
      .catch(() => undefined);
    await app.close();
    process.exit(0);
  });
}

async function bench(): Promise<void> {
  const { values } = parseArgs({
    options: {
      subscribers: { type: 'string', default: '1000' },
      writes: { type: 'string', default: '100' },
      rate: { type: 'string', default: '10' },
      burst: { type: 'string', default: '1000' },
      regex: { type: 'string', default: '' },
    },
  });
  const subscribers = Math.min(Number(values.subscribers), 5000);
  const writes = Math.min(Number(values.writes), 2000);
  const rate = Math.min(Number(values.rate), 200);
  const burst = Math.min(Number(values.burst), 10_000);

  const child: ChildProcess = fork(fileURLToPath(import.meta.url), ['--serve'], {
    execArgv: [
      '--import',
      'tsx',
      ...(process.env.BENCH_CPU_PROF ? ['--cpu-prof', '--cpu-prof-dir=/tmp/rtprof'] : []),
    ],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const served = await new Promise<Served>((resolve, reject) => {
    child.once('message', (m) => resolve(m as Served));
    child.once('exit', (code) => reject(new Error(`server exited with ${code}`)));
  });
  const now = () => performance.timeOrigin + performance.now();
  try {
    // Per delivery: the delay from the write request's start (`sentAt`, in the document) and from
    // the moment the change was committed and published (`at` of the event).
    const fromRequest: number[] = [];
    const fromCommit: number[] = [];
    let delivered = 0;
    let lastDelivery = 0;
    const agent = new http.Agent({ keepAlive: true, maxSockets: subscribers + 10 });
    const streams: http.ClientRequest[] = [];
    const EVENT = /"at":"([^"]+)"[^\n]*?"sentAt":([\d.]+)/g;
    const openOne = () =>
      new Promise<void>((resolve, reject) => {
        const filter = values.regex ? `&title_regex=${encodeURIComponent(values.regex)}` : '';
        const url = `${served.url}/api/realtime/items?key=${served.publishableKey}${filter}`;
        const req = http.get(url, { agent }, (res) => {
          if (res.statusCode !== 200) return reject(new Error(`stream answered ${res.statusCode}`));
          res.setEncoding('utf8');
          let ready = false;
          res.on('data', (chunk: string) => {
            if (!ready && chunk.includes('event: ready')) {
              ready = true;
              resolve();
            }
            const t = now();
            for (const match of chunk.matchAll(EVENT)) {
              fromCommit.push(t - Date.parse(match[1]!));
              fromRequest.push(t - Number(match[2]));
              delivered++;
              lastDelivery = t;
            }
          });
        });
        req.on('error', reject);
        streams.push(req);
      });
    const openedAt = performance.now();
    for (let i = 0; i < subscribers; i += 50) {
      await Promise.all(Array.from({ length: Math.min(50, subscribers - i) }, openOne));
    }
    const connectSeconds = (performance.now() - openedAt) / 1000;

    const post = async (path: string, body: unknown) => {
      const res = await fetch(`${served.url}/api/data/items${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': served.secretKey },
        body: JSON.stringify(body),
      });
      await res.arrayBuffer();
    };
    const pct = (values: number[], p: number) => {
      const sorted = [...values].sort((a, b) => a - b);
      return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
    };
    const rows: string[] = [];
    const phase = async (name: string, documents: number, send: () => Promise<void>) => {
      fromRequest.length = 0;
      fromCommit.length = 0;
      delivered = 0;
      const started = now();
      await send();
      const expected = documents * subscribers;
      const deadline = Date.now() + 120_000;
      while (delivered < expected && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
      const seconds = (lastDelivery - started) / 1000;
      const cells = [
        name,
        `${delivered}/${expected}`,
        (delivered / seconds).toFixed(0),
        pct(fromCommit, 50).toFixed(0),
        pct(fromCommit, 99).toFixed(0),
        pct(fromRequest, 50).toFixed(0),
        pct(fromRequest, 99).toFixed(0),
      ];
      rows.push(`| ${cells.join(' | ')} |`);
    };

    // Steady: one document per request at a fixed rate, the writes not waiting for each other.
    await phase(`${writes} single writes at ${rate}/s`, writes, async () => {
      const started = now();
      const pending: Promise<void>[] = [];
      for (let i = 0; i < writes; i++) {
        const wait = started + (i * 1000) / rate - now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        pending.push(post('', { title: `item ${i}`, sentAt: now() }));
      }
      await Promise.all(pending);
    });
    // Burst: bulk writes of 100 documents (100 events each), 4 at a time, as fast as they go.
    await phase(`${burst} documents in bulk writes of 100`, burst, async () => {
      let next = 0;
      await Promise.all(
        Array.from({ length: 4 }, async () => {
          while (next < burst) {
            const first = next;
            next += 100;
            const count = Math.min(100, burst - first);
            const sentAt = now();
            const documents = Array.from({ length: count }, (_, j) => ({
              title: `bulk ${first + j}`,
              sentAt,
            }));
            await post('/bulk', { documents });
          }
        }),
      );
    });

    console.log(
      `\n${subscribers} subscribers of one collection${values.regex ? ` filtering on title_regex=${values.regex}` : ''} on one public process (connected in ` +
        `${connectSeconds.toFixed(1)} s), Node ${process.version}\n`,
    );
    console.log(
      '| phase | events delivered | events/s | commit→delivery p50 ms | p99 ms | request→delivery p50 ms | p99 ms |',
    );
    console.log('|---|---|---|---|---|---|---|');
    for (const row of rows) console.log(row);
    for (const req of streams) req.destroy();
    agent.destroy();
  } finally {
    child.send('stop');
    await new Promise((resolve) => child.once('exit', resolve));
  }
}
