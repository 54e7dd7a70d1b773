// Backup and restore of one large collection, with time and peak RSS of this process during each
// (sampled every 20 ms, above the RSS before it started), to show that memory stays bounded as
// the collection grows. Runs in a platform database of its own on the configured stack:
//
//   npx tsx scripts/bench/backup.ts --docs 10000     (also: 100000; NODE_OPTIONS=--expose-gc adds
//   the heap still held after each step)
import { parseArgs } from 'node:util';
import { randomBytes } from 'node:crypto';
import { ObjectId } from 'mongodb';
import { testEnv } from '../../test/helpers/env.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/lib/logger.js';
import { closeDeps, createDeps } from '../../src/deps.js';
import { createServices } from '../../src/services/index.js';
import { backupRunner } from '../../src/jobs/backup-runner.js';
import { contextFor, createProjectFixture } from '../../test/helpers/fixtures.js';

const { values } = parseArgs({ options: { docs: { type: 'string', default: '10000' } } });
const DOCS = Number(values.docs);
const MB = 1024 * 1024;

const config = loadConfig({ ...testEnv, PLATFORM_DB: `bench_backup_${randomBytes(4).toString('hex')}` });
const deps = await createDeps(config, createLogger('silent'));
const services = createServices(deps);
const { developer, project } = await createProjectFixture(services, 'Bench backup');
await services.repos.developers.setPlan(developer.id, 'pro');
await services.repos.projects.setLimits(project.id, { databaseBytes: 1024 ** 4 });
const items = deps.db.project(project.id).collection('items');
for (let i = 0; i < DOCS; i += 5000) {
  await items.insertMany(
    Array.from({ length: Math.min(5000, DOCS - i) }, (_, j) => ({
      _id: new ObjectId(),
      n: i + j,
      name: `item-${i + j}`,
      text: 'lorem ipsum dolor sit amet '.repeat(8),
      tags: ['a', 'b', String((i + j) % 13)],
      at: new Date(),
    })),
  );
}

async function measured<T>(work: () => Promise<T>) {
  global.gc?.();
  const base = process.memoryUsage().rss;
  let peak = base;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
  const started = performance.now();
  const result = await work();
  const ms = performance.now() - started;
  clearInterval(timer);
  // With --expose-gc: the heap still held after the work (a leak shows here, garbage does not).
  global.gc?.();
  const heapAfterGcMb = process.memoryUsage().heapUsed / MB;
  return { result, ms, peakAboveMb: (peak - base) / MB, peakMb: peak / MB, heapAfterGcMb };
}

const runner = backupRunner(deps, services);
const backup = await measured(async () => {
  const job = await services.backups.create(project, {});
  await runner.drain();
  return services.backups.get(project, job.id);
});
const restore = await measured(async () => {
  const ctx = contextFor({ developer: { ...developer, plan: 'pro' } });
  const { project: target, restore: job } = await services.backups.restore(ctx, project, backup.result.id, {
    name: 'Copy',
  });
  await runner.drain();
  return { job: await services.backups.getRestore(target, job.id), target };
});
const restored = await deps.db.project(restore.result.target.id).collection('items').countDocuments();

const row = (name: string, m: { ms: number; peakAboveMb: number; peakMb: number; heapAfterGcMb: number }) =>
  `${name.padEnd(8)} ${(m.ms / 1000).toFixed(1).padStart(6)} s   peak RSS ${m.peakMb.toFixed(0)} MB (+${m.peakAboveMb.toFixed(0)} MB)` +
  (global.gc ? `   heap after GC ${m.heapAfterGcMb.toFixed(0)} MB` : '');
console.log(
  `${DOCS} documents; archive ${(backup.result.size! / MB).toFixed(1)} MB; ${backup.result.state}/${restore.result.job.state}, ${restored} restored`,
);
console.log(row('backup', backup));
console.log(row('restore', restore));

for (const id of [project.id, restore.result.target.id]) await deps.db.project(id).dropDatabase();
await deps.db.platform.dropDatabase();
await services.quota.stop();
await closeDeps(deps);
