// `npm run bench:scale`: how the data API's cost grows with a collection, on the database the
// environment names (the test stack's mongo-java-server under scripts/bench.sh). One collection is
// seeded to each size in turn (1k, 10k, 100k by default); at each size the public API (a child
// process, as deployed) is loaded with a filtered and sorted list of 20, an equality list, the
// same list with `total=true`, and a walk through the whole collection by cursor, first without
// an index that serves them, then with the one the slow-query record suggests (its build timed).
// Writes bench/SCALE.md (or --out).
//
//   npm run bench:scale -- [--sizes 1000,10000,100000] [--seconds 4] [--concurrency 8] [--out bench/SCALE.md]
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import { parseArgs } from 'node:util';
import { ObjectId } from 'mongodb';
import { closeDeps } from '../../src/deps.js';
import { benchProject, freePort, listQuery, start, stop, up } from './setup.js';
import { httpLoad, type Measure } from './load.js';

const { values } = parseArgs({
  options: {
    sizes: { type: 'string', default: '1000,10000,100000' },
    seconds: { type: 'string', default: '4' },
    concurrency: { type: 'string', default: '8' },
    out: { type: 'string', default: 'bench/SCALE.md' },
    engine: { type: 'string', default: 'mongo-java-server (the test stack, memory backend)' },
  },
});
const SIZES = values.sizes.split(',').map((s) => Math.min(Math.max(Number(s), 1), 1_000_000));
const SECONDS = Math.min(Math.max(Number(values.seconds), 1), 30);
const CONCURRENCY = Math.min(Math.max(Number(values.concurrency), 1), 64);
const PAGE = 1000;

const { deps, platformDb, projectDb, secretKey } = await benchProject(1);
const items = projectDb.collection('items');
const port = await freePort();
// The public role from its sources (tsx): no build needed; the request path is the same code.
// Slow queries are not recorded (the threshold is out of reach), so the numbers are the lists'.
const api = await start(
  'src/main.ts',
  ['public'],
  {
    PLATFORM_DB: platformDb,
    PUBLIC_PORT: String(port),
    RATE_LIMIT_IP_PER_MINUTE: '1000000000',
    SLOW_QUERY_MS: '600000',
    LOG_LEVEL: 'warn',
  },
  up(`http://127.0.0.1:${port}/api/health`),
);
const base = `http://127.0.0.1:${port}`;
const headers = { 'x-api-key': secretKey };

async function seedTo(size: number) {
  const now = Date.now();
  for (let have = await items.countDocuments(); have < size;) {
    const batch = Math.min(10_000, size - have);
    await items.insertMany(
      Array.from({ length: batch }, (_, j) => {
        const i = have + j;
        const at = new Date(now - i * 1000);
        return {
          _id: new ObjectId(),
          name: `item-${i}`,
          price: i % 100,
          tags: ['a', 'b'],
          isDeleted: false,
          deletedAt: null,
          createdAt: at,
          updatedAt: at,
        };
      }),
    );
    have += batch;
  }
}

const load = (path: (i: number) => string) =>
  httpLoad({
    url: `${base}/api/data/items`,
    headers,
    connections: CONCURRENCY,
    seconds: SECONDS,
    request: (i) => ({ method: 'GET', path: path(i) }),
    expect: (status) => status === 200,
  });

/** Every document once, by cursor pages of 1000 in `_id` order, one client. */
async function walk(): Promise<{ pages: number; documents: number; seconds: number }> {
  const started = performance.now();
  let cursor: string | null = null;
  let pages = 0;
  let documents = 0;
  do {
    const res = await fetch(`${base}/api/data/items?limit=${PAGE}${cursor ? `&cursor=${cursor}` : ''}`, {
      headers,
    });
    if (res.status !== 200) throw new Error(`page ${pages}: ${res.status}`);
    const body = (await res.json()) as { data: unknown[]; pagination: { nextCursor: string | null } };
    documents += body.data.length;
    cursor = body.pagination.nextCursor;
    pages += 1;
  } while (cursor);
  return { pages, documents, seconds: (performance.now() - started) / 1000 };
}

const OPS: { name: string; path: (i: number) => string }[] = [
  { name: 'list 20, range + sort', path: (i) => `?${listQuery(i)}` },
  { name: 'list 20, equality', path: (i) => `?price=${i % 100}&limit=20` },
  { name: 'list 20, range + sort, total=true', path: (i) => `?${listQuery(i)}&total=true` },
];
/** What the slow-query record suggests for the range + sort list: the sort with its tie-break (the range is on its first key). */
const INDEX = {
  name: 'price_desc',
  keys: [
    { field: 'price', direction: -1 },
    { field: '_id', direction: 1 },
  ],
};

interface Row {
  size: number;
  op: string;
  indexed: boolean;
  m: Measure;
}
const rows: Row[] = [];
const walks: { size: number; indexed: boolean; pages: number; documents: number; seconds: number }[] = [];
const builds: { size: number; seconds: number }[] = [];
const loadAverage: number[] = [];

// A short warm-up of the API process (JIT, connection pools) before anything is counted.
await seedTo(SIZES[0]!);
await httpLoad({
  ...{ url: `${base}/api/data/items`, headers, connections: CONCURRENCY, seconds: 2 },
  request: (i) => ({ method: 'GET', path: `?${listQuery(i)}` }),
  expect: () => true,
});

for (const size of SIZES) {
  await seedTo(size);
  for (const indexed of [false, true]) {
    if (indexed) {
      const t = performance.now();
      const res = await fetch(`${base}/api/schemas/items/indexes`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify(INDEX),
      });
      if (res.status !== 201) throw new Error(`index: ${res.status} ${await res.text()}`);
      builds.push({ size, seconds: (performance.now() - t) / 1000 });
    }
    for (const op of OPS) {
      loadAverage.push(os.loadavg()[0]!);
      const m = await load(op.path);
      rows.push({ size, op: op.name, indexed, m });
      console.log(
        `${size} ${op.name} ${indexed ? 'indexed' : 'no index'}: ${m.rps.toFixed(0)}/s p50 ${m.p50.toFixed(1)} p99 ${m.p99.toFixed(1)}`,
      );
    }
    walks.push({ size, indexed, ...(await walk()) });
    if (indexed) {
      const res = await fetch(`${base}/api/schemas/items/indexes/${INDEX.name}`, {
        method: 'DELETE',
        headers,
      });
      if (res.status !== 200) throw new Error(`drop: ${res.status}`);
    }
  }
}

await stop(api);
await deps.db.platform.dropDatabase();
await projectDb.dropDatabase();
await closeDeps(deps);

const n = (x: number, digits = 0) =>
  x.toLocaleString('en', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const lines = [
  '# The cost curve of the data API',
  '',
  `\`npm run bench:scale\` on ${new Date().toISOString().slice(0, 10)}: ${values.engine}; the public API in one`,
  `process (tsx), ${CONCURRENCY} connections, ${SECONDS} s per measure, Node ${process.version}, ${os.cpus().length} cores`,
  `shared with other work (load average ${n(Math.min(...loadAverage), 1)} to ${n(Math.max(...loadAverage), 1)} during the run).`,
  `The index is \`${JSON.stringify(INDEX.keys.map((k) => ({ [k.field]: k.direction })))}\`, the one the slow-query record suggests for the range + sort list.`,
  '',
  '| documents | operation | index | requests/s | p50 ms | p99 ms | unexpected |',
  '| --- | --- | --- | --- | --- | --- | --- |',
  ...rows.map(
    (r) =>
      `| ${n(r.size)} | ${r.op} | ${r.indexed ? 'yes' : 'no'} | ${n(r.m.rps)} | ${n(r.m.p50, 1)} | ${n(r.m.p99, 1)} | ${r.m.unexpected} |`,
  ),
  '',
  `Paging through the whole collection by cursor (\`limit=${PAGE}\`, \`_id\` order, one client):`,
  '',
  '| documents | index | pages | seconds | documents/s |',
  '| --- | --- | --- | --- | --- |',
  ...walks.map(
    (w) =>
      `| ${n(w.size)} | ${w.indexed ? 'yes' : 'no'} | ${w.pages} | ${n(w.seconds, 2)} | ${n(w.documents / w.seconds)} |`,
  ),
  '',
  'Building the index (`POST /api/schemas/items/indexes`, the answer comes when it is built):',
  '',
  '| documents | seconds |',
  '| --- | --- |',
  ...builds.map((b) => `| ${n(b.size)} | ${n(b.seconds, 2)} |`),
  '',
];
writeFileSync(values.out, lines.join('\n'));
console.log(`written to ${values.out}`);
