// `npm start` (scripts/start.sh) stopped and started again, as a developer does: a second start
// while one runs is refused with a reason; a start's stop stops only the servers it started
// (never one that was already running, or another start's); with its database killed, Ctrl-C
// stops the service within its shutdown's deadline and the next start works. Each start runs
// the public role (no dashboard build) on a stack folder and ports of the test's own.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { repoPath } from '../../src/lib/paths.js';
import { createDevStack, devStackAvailable, type DevStack } from '../helpers/dev-stack.js';
import { freePort } from '../helpers/mongo-server.js';
import { startTestApp, suiteDatabase } from '../helpers/app.js';
import { createCollectionFixture, createProjectFixture } from '../helpers/fixtures.js';

/** The app's deadline for its last writes (src/main.ts); the stop may add the stack's own stop. */
const SHUTDOWN_FLUSH_S = 3;

interface Start {
  child: ChildProcess;
  port: number;
  output(): string;
  exited: Promise<number | null>;
}

/** The test suite's own settings (the shared test stack's) are not a developer's `npm start`'s. */
function startEnv(dev: DevStack): NodeJS.ProcessEnv {
  const env = { ...dev.env };
  for (const line of readFileSync(repoPath('.env.test'), 'utf8').split('\n')) {
    const key = line.split('=')[0]!.trim();
    if (key && !key.startsWith('#')) delete env[key];
  }
  for (const key of ['NODE_ENV', 'EMBEDDED_DATABASE', 'PLATFORM_DB', 'LOG_LEVEL']) delete env[key];
  return env;
}

async function npmStart(dev: DevStack, env: Record<string, string> = {}): Promise<Start> {
  const port = await freePort();
  const child = spawn('bash', ['scripts/start.sh'], {
    cwd: repoPath(),
    env: { ...startEnv(dev), ROLE: 'public', PUBLIC_PORT: String(port), LOG_FORMAT: 'json', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, port, output: () => output, exited };
}

/** Waits until the start's service answers its health check (or the start ends). */
async function untilUp(start: Start): Promise<void> {
  let ended = false;
  void start.exited.then(() => (ended = true));
  for (;;) {
    if (ended) throw new Error(`npm start ended:\n${start.output()}`);
    const ok = await fetch(`http://127.0.0.1:${start.port}/api/health`)
      .then((r) => r.status === 200)
      .catch(() => false);
    if (ok) return;
    await new Promise((r) => setTimeout(r, 300));
  }
}

/** Running, a zombie not counted: the stack's servers are re-parented to an init that may reap late. */
const alive = (pid: number) => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
};

describe('npm start stopped and started again', function () {
  this.timeout(300_000);
  let dev: DevStack | undefined;
  const starts: Start[] = [];
  const closing: (() => Promise<void>)[] = [];

  before(async function () {
    if (!devStackAvailable()) this.skip();
    dev = await createDevStack();
  });

  afterEach(async () => {
    for (const s of starts.splice(0)) {
      if (s.child.exitCode === null) s.child.kill('SIGINT');
      await s.exited;
    }
  });

  after(async () => {
    for (const close of closing) await close().catch(() => undefined);
    await dev?.remove();
  });

  it('refuses a second start while one runs, saying why, and leaves the first untouched', async () => {
    const first = await npmStart(dev!);
    starts.push(first);
    await untilUp(first);
    const pid = dev!.mongoPid()!;

    const second = await npmStart(dev!);
    starts.push(second);
    expect(await second.exited, second.output()).to.equal(1);
    expect(second.output()).to.match(/another npm start is running or stopping on this stack/);
    expect(dev!.mongoPid()).to.equal(pid);
    expect((await fetch(`http://127.0.0.1:${first.port}/api/health`)).status).to.equal(200);

    first.child.kill('SIGINT');
    await first.exited;
    expect(alive(pid), 'the database its start started is stopped').to.equal(false);
  });

  it('leaves running a database it did not start', async () => {
    const own = await dev!.stack('start');
    expect(own.code, own.output).to.equal(0);
    const pid = dev!.mongoPid()!;

    const start = await npmStart(dev!);
    starts.push(start);
    await untilUp(start);
    start.child.kill('SIGINT');
    await start.exited;
    expect(start.output()).to.match(/mongo left running \(pid \d+\): another start started it/);
    expect(alive(pid), 'the database started before npm start').to.equal(true);
    expect(dev!.mongoPid()).to.equal(pid);

    const stopped = await dev!.stack('stop');
    expect(stopped.output).to.include(`mongo stopped (was pid ${pid})`);
  });

  it('with its database killed, stops within its deadline, and the next start starts', async () => {
    // A project with traffic: the service has counts and log entries to write when it stops.
    expect((await dev!.stack('start')).code).to.equal(0);
    const platformDb = suiteDatabase('start_script');
    // The dev stack's own secrets (keys are stored as hashes keyed by them).
    const secrets = Object.fromEntries(
      readFileSync(`${dev!.dir}/.env.dev`, 'utf8')
        .split('\n')
        .filter((line) => /^(ENCRYPTION_KEY|INTERNAL_API_SECRET)=/.test(line))
        .map((line) => [line.slice(0, line.indexOf('=')), line.slice(line.indexOf('=') + 1)]),
    );
    const fixtures = await startTestApp('public', 'start_script', {
      ...secrets,
      MONGODB_URI: dev!.uri,
      PLATFORM_DB: platformDb,
    });
    const fx = await createProjectFixture(fixtures.services);
    await createCollectionFixture(fixtures.services, fx.project.id, { name: 'items', mode: 'flexible' });
    // Closed at the end: closing drops its platform database, which the starts use.
    closing.push(() => fixtures.close());
    const first = await npmStart(dev!, { PLATFORM_DB: platformDb });
    starts.push(first);
    await untilUp(first);
    const create = () =>
      fetch(`http://127.0.0.1:${first.port}/api/data/items`, {
        method: 'POST',
        headers: { 'x-api-key': fx.secretKey, 'content-type': 'application/json' },
        body: JSON.stringify({ n: 1 }),
      }).catch(() => undefined);
    for (let i = 0; i < 20; i++) {
      const res = await create();
      expect(res?.status, await res?.text()).to.equal(201);
    }
    process.kill(dev!.mongoPid()!, 'SIGKILL');
    // Requests in flight on the dead database, as a developer's page would keep sending.
    for (let i = 0; i < 5; i++) void create();
    await new Promise((r) => setTimeout(r, 300));

    const stopping = performance.now();
    first.child.kill('SIGINT');
    await first.exited;
    const seconds = (performance.now() - stopping) / 1000;
    // The requests in flight are cut once a ping has no answer (2 s), its last writes get
    // SHUTDOWN_FLUSH_S, the rest (closing the servers, the stack's stop) is quick; before, the
    // requests in flight held it 10 s (two server selections) and each last write 5 s more.
    expect(seconds, first.output().slice(-2000)).to.be.below(SHUTDOWN_FLUSH_S + 2 + 5);
    expect(first.output()).to.match(/stopping without them/);

    const next = await npmStart(dev!, { PLATFORM_DB: platformDb });
    starts.push(next);
    await untilUp(next);
    expect(dev!.mongoPid()).to.be.a('number');
  });
});
