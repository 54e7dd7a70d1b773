// A focused measure of the request log's cost on the hot path: get by id through the public API
// with the log on and off, two apps on the test stack, autocannon (a child process, so it does
// not share the server's event loop) against each in alternate rounds. Not part of `npm run
// bench`. Besides the rate, it reads the server process's CPU time per request (process.cpuUsage
// over a fixed number of requests, the log's batched writes included), which a machine shared
// with other work disturbs far less than the rate. Then the write path alone, which the rounds'
// noise can hide: CPU time of recording and writing 50,000 entries (batches, trims included)
// per entry, against the median CPU per request with the log off.
// Run: npx tsx scripts/bench/request-log.ts [rounds=6] [requests=3000] [connections=10]
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { startTestApp, suiteDatabase } from '../../test/helpers/app.js';
import { createCollectionFixture, createProjectFixture } from '../../test/helpers/fixtures.js';

const run = promisify(execFile);
const [rounds = 6, amount = 3000, connections = 10] = process.argv.slice(2).map(Number);

async function main() {
  const apps = {
    on: await startTestApp('public', 'bench_reqlog_on', {
      PLATFORM_DB: suiteDatabase('bench_on'),
      RATE_LIMIT_IP_PER_MINUTE: '0',
    }),
    off: await startTestApp('public', 'bench_reqlog_off', {
      PLATFORM_DB: suiteDatabase('bench_off'),
      RATE_LIMIT_IP_PER_MINUTE: '0',
      REQUEST_LOG_ENABLED: 'false',
    }),
  };
  const targets: Record<string, { url: string; key: string }> = {};
  for (const [name, app] of Object.entries(apps)) {
    const fx = await createProjectFixture(app.services);
    await app.services.repos.projects.setLimits(fx.project.id, { requestsPerMinute: 1e9 });
    await createCollectionFixture(app.services, fx.project.id, { name: 'posts' });
    const made = await app.client.with({ 'x-api-key': fx.secretKey }).post('/api/data/posts', { title: 'x' });
    targets[name] = { url: `${app.url}/api/data/posts/${made.body.data._id}`, key: fx.secretKey };
  }
  const rates: Record<string, number[]> = { on: [], off: [] };
  const cpu: Record<string, number[]> = { on: [], off: [] };
  const once = async (name: string, requests: number) => {
    const { url, key } = targets[name]!;
    const before = process.cpuUsage();
    const { stdout } = await run('npx', [
      'autocannon',
      '-j',
      '-c',
      String(connections),
      '-a',
      String(requests),
      '-H',
      `x-api-key=${key}`,
      url,
    ]);
    // The last second's entries are written before the CPU time is read.
    await apps.on.services.requestLog.flush();
    const used = process.cpuUsage(before);
    const out = JSON.parse(stdout) as { requests: { average: number; total: number }; non2xx: number };
    if (out.non2xx) throw new Error(`${name}: ${out.non2xx} non-2xx answers`);
    return { rps: out.requests.average, cpuUs: (used.user + used.system) / out.requests.total };
  };
  // Warm-up of both, then alternate rounds, starting with the other one each time.
  await once('on', amount);
  await once('off', amount);
  for (let i = 0; i < rounds; i++) {
    for (const name of i % 2 ? ['off', 'on'] : ['on', 'off']) {
      const { rps, cpuUs } = await once(name, amount);
      rates[name]!.push(rps);
      cpu[name]!.push(cpuUs);
      console.log(`round ${i + 1} ${name}: ${rps.toFixed(0)} req/s, ${cpuUs.toFixed(0)} µs CPU per request`);
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const change = (on: number, off: number) => `${(((on - off) / off) * 100).toFixed(1)}%`;
  const [rOn, rOff, cOn, cOff] = [median(rates.on!), median(rates.off!), median(cpu.on!), median(cpu.off!)];
  console.log(`median rate: on ${rOn.toFixed(0)} req/s, off ${rOff.toFixed(0)} req/s (${change(rOn, rOff)})`);
  console.log(
    `median CPU per request: on ${cOn.toFixed(1)} µs, off ${cOff.toFixed(1)} µs (${change(cOn, cOff)})`,
  );
  console.log(`request log after the run: ${JSON.stringify(apps.on.services.requestLog.stats())}`);

  // The write path alone: what a request ending costs the log, its share of the batched writes
  // and of the count bound's trims included, one project (the most trims per entry).
  const log = apps.on.services.requestLog;
  const entries = 50_000;
  const started = process.cpuUsage();
  for (let i = 0; i < entries; i++) {
    log.record({
      projectId: '65f1c2a4b7e8d90012345678',
      method: 'GET',
      path: '/api/data/posts/65f1c2a4b7e8d90012345679',
      status: 200,
      durationMs: 1.23,
      keyKind: 'secret',
      userId: null,
      requestId: `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`,
      at: Date.now(),
    });
    // As requests arrive: the buffer is written in batches while they do (and kept below its
    // bound, where entries would be dropped instead of written).
    if (i % 100 === 99) await new Promise((r) => setImmediate(r));
    if (log.stats().buffered >= 2000) await log.flush();
  }
  await log.flush();
  const spent = process.cpuUsage(started);
  const perEntry = (spent.user + spent.system) / entries;
  console.log(
    `write path alone: ${perEntry.toFixed(1)} µs CPU per entry, ` +
      `${((perEntry / cOff) * 100).toFixed(1)}% of a request with the log off (${JSON.stringify(log.stats())})`,
  );
  await apps.on.close();
  await apps.off.close();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
