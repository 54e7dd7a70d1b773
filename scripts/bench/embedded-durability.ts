// What a durable embedded database costs: creates/s over HTTP on the development profile's
// database (mongo-java-server, H2 file), with the stack's launcher and with another launcher file
// (the one before it committed and synced each write), and with the stack's without its fsync
// (-Dmongo.h2.sync=false), interleaved round by round because the machine is shared. Each cell
// starts its launcher on a fresh H2 file in a folder of its own.
//
//   git show <commit>:scripts/stack/MongoLauncher.java > /tmp/old/MongoLauncher.java
//   npx tsx scripts/bench/embedded-durability.ts --baseline /tmp/old/MongoLauncher.java [--rounds 3]
//
// Prints a Markdown row per cell: creates/s at 1 and 8 clients, p50/p99, the file size after.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { run, type Result } from './harness.js';
import { startTestApp } from '../../test/helpers/app.js';
import { createCollectionFixture, createProjectFixture } from '../../test/helpers/fixtures.js';
import { freePort } from '../../test/helpers/mongo-server.js';
import { repoPath } from '../../src/lib/paths.js';

const { values } = parseArgs({
  options: {
    baseline: { type: 'string' },
    rounds: { type: 'string', default: '3' },
    requests: { type: 'string', default: '300' },
  },
});
if (!values.baseline) throw new Error('--baseline <launcher .java file> is required');
const ROUNDS = Math.min(Number(values.rounds), 10);
const REQUESTS = Math.min(Number(values.requests), 2000);
const LIB = repoPath('.stack/mongo-java-server/lib');
const launchers: Record<string, [string, string[]]> = {
  baseline: [path.resolve(values.baseline), []],
  'commit, no fsync': [repoPath('scripts/stack/MongoLauncher.java'), ['-Dmongo.h2.sync=false']],
  'commit + fsync': [repoPath('scripts/stack/MongoLauncher.java'), []],
};

async function startLauncher([file, options]: [string, string[]], dir: string) {
  const port = await freePort();
  const child = spawn(
    'java',
    [
      '-Xmx512m',
      '-XX:+UseSerialGC',
      ...options,
      '-cp',
      `${LIB}/*`,
      file,
      'h2',
      String(port),
      path.join(dir, 'mongo.h2'),
    ],
    { stdio: ['ignore', 'pipe', 'ignore'] },
  );
  await new Promise<void>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (c: Buffer) => {
      out += c.toString();
      if (out.includes('[mongo] ready')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`launcher exited with ${code}`)));
  });
  return {
    uri: `mongodb://127.0.0.1:${port}/?directConnection=true`,
    stop: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

async function cell(name: string): Promise<string> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-h2-'));
  const db = await startLauncher(launchers[name]!, dir);
  const app = await startTestApp('public', 'bench_durable', {
    MONGODB_URI: db.uri,
    EMBEDDED_DATABASE: 'true',
    LOG_LEVEL: 'silent',
  });
  try {
    const fx = await createProjectFixture(app.services, 'Bench');
    await app.services.repos.projects.setLimits(fx.project.id, {
      databaseBytes: 1024 ** 4,
      requestsPerMinute: 1e9,
    });
    await createCollectionFixture(app.services, fx.project.id, {
      name: 'items',
      mode: 'schema',
      fields: [
        { name: 'name', type: 'String', required: true },
        { name: 'price', type: 'Number' },
      ],
    });
    const headers = { 'content-type': 'application/json', 'x-api-key': fx.secretKey };
    const create = async (i: number) =>
      (
        await fetch(`${app.url}/api/data/items`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ name: `item-${i}`, price: i % 100 }),
        })
      ).status;
    const results: Result[] = [];
    for (const clients of [1, 8]) results.push(await run(`${clients}`, REQUESTS, clients, create));
    const row = results.map((r) => {
      const sorted = [...r.latencies].sort((a, b) => a - b);
      const p = (q: number) => sorted[Math.floor(q * (sorted.length - 1))]!.toFixed(1);
      return `${(r.requests / r.seconds).toFixed(0)} (p50 ${p(0.5)}, p99 ${p(0.99)} ms${r.errors ? `, ${r.errors} errors` : ''})`;
    });
    const mb = (statSync(path.join(dir, 'mongo.h2')).size / 1e6).toFixed(1);
    return `| ${name} | ${row.join(' | ')} | ${mb} MB | ${os.loadavg()[0]!.toFixed(1)} |`;
  } finally {
    await app.close();
    await db.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

console.log(`\n${REQUESTS} creates per cell, Node ${process.version}\n`);
console.log('| launcher | creates/s, 1 client | creates/s, 8 clients | H2 file after | load (1 min) |');
console.log('|---|---|---|---|---|');
for (let round = 0; round < ROUNDS; round++) {
  const names = Object.keys(launchers);
  const order = round % 2 ? names.reverse() : names;
  for (const name of order) console.log(await cell(name));
}
process.exit(0);
