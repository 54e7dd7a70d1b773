// The shared part of `npm run bench` and `npm run soak`: a project made through the services in
// a platform database of its own (limits lifted so that none shapes the numbers), a schema
// collection `items` with seeded documents, a private-RLS collection `notes` with a Bearer token
// of its owner; the request shapes; and the child processes (the API and the thin server).
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import { ObjectId } from 'mongodb';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/lib/logger.js';
import { createDeps } from '../../src/deps.js';
import { createServices } from '../../src/services/index.js';
import { repoPath } from '../../src/lib/paths.js';
import { contextFor, createProjectFixture, userToken } from '../../test/helpers/fixtures.js';

export async function benchProject(seededCount: number) {
  const platformDb = `bench_${randomBytes(4).toString('hex')}`;
  const config = loadConfig({ ...process.env, PLATFORM_DB: platformDb });
  const deps = await createDeps(config, createLogger('silent'));
  const services = createServices(deps);
  const { developer, project, secretKey, publishableKey } = await createProjectFixture(services, 'Bench');
  await services.repos.projects.setLimits(project.id, { databaseBytes: 1024 ** 4, requestsPerMinute: 1e9 });
  const owner = { developer };
  await services.collections.create(contextFor(owner), project.id, {
    name: 'items',
    mode: 'schema',
    fields: [
      { name: 'name', type: 'String', required: true },
      { name: 'price', type: 'Number' },
      { name: 'tags', type: 'Array', items: { type: 'String' } },
    ],
  });
  await services.collections.create(contextFor(owner), project.id, {
    name: 'notes',
    mode: 'flexible',
    fields: [
      { name: 'title', type: 'String' },
      { name: 'userId', type: 'String' },
    ],
    rls: { enabled: true, mode: 'private', ownerField: 'userId' },
  });
  const userId = new ObjectId().toHexString();
  const bearer = await userToken(services, project.id, userId);
  const projectDb = deps.db.project(project.id);
  const now = new Date();
  const system = { isDeleted: false, deletedAt: null, createdAt: now, updatedAt: now };
  const seeded = Array.from({ length: seededCount }, (_, i) => ({
    _id: new ObjectId(),
    name: `item-${i}`,
    price: i % 100,
    tags: ['a', 'b'],
    ...system,
  }));
  await projectDb.collection('items').insertMany(seeded);
  const notes = Array.from({ length: 200 }, (_, i) => ({
    _id: new ObjectId(),
    title: `note-${i}`,
    userId: i % 2 ? userId : new ObjectId().toHexString(),
    ...system,
  }));
  await projectDb.collection('notes').insertMany(notes);
  const ids = seeded.map((d) => d._id.toHexString());
  const ownNotes = notes.filter((n) => n.userId === userId).map((n) => n._id.toHexString());
  return { deps, services, platformDb, project, projectDb, secretKey, publishableKey, bearer, ids, ownNotes };
}

export const pick = <T>(list: T[], i: number) => list[(i * 7919) % list.length]!;
export const listQuery = (i: number) => `price_gte=${i % 50}&price_lt=${(i % 50) + 30}&sort=-price&limit=20`;
export const createBody = (i: number) =>
  JSON.stringify({ name: `new-${i}`, price: i % 100, tags: ['a', 'b'] });

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Starts an entry point in a child process and waits until `ready` answers true; its stdout goes to `stdout` (a file descriptor) or nowhere. */
export async function start(
  script: string,
  args: string[],
  env: Record<string, string>,
  ready: () => Promise<boolean>,
  nodeFlags: string[] = [],
  stdout?: number,
) {
  // A compiled entry point (dist/) runs on plain node; a TypeScript one through tsx.
  const loader = script.endsWith('.ts') ? ['--import', 'tsx'] : [];
  const child = spawn(process.execPath, [...nodeFlags, ...loader, script, ...args], {
    cwd: repoPath(),
    env: { ...process.env, ...env },
    stdio: ['ignore', stdout ?? 'ignore', 'inherit'],
  });
  for (let attempt = 0; attempt < 300; attempt++) {
    if (child.exitCode !== null) throw new Error(`${script} exited with ${child.exitCode}`);
    if (await ready().catch(() => false)) return child;
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill();
  throw new Error(`${script} did not become ready`);
}

export const up = (url: string) => async () => (await fetch(url)).status < 500;

/** The public role as deployed: compiled (scripts/bench.sh builds first), its own process, log level info, output discarded. */
export const startApi = (
  platformDb: string,
  port: number,
  nodeFlags: string[] = [],
  env: Record<string, string> = {},
  stdout?: number,
  /** Another build's entry point (compare.ts --before). */
  script = 'dist/main.js',
) =>
  start(
    script,
    ['public'],
    { PLATFORM_DB: platformDb, PUBLIC_PORT: String(port), RATE_LIMIT_IP_PER_MINUTE: '1000000000', ...env },
    up(`http://127.0.0.1:${port}/api/health`),
    nodeFlags,
    stdout,
  );

export const stop = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
