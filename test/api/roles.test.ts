// Each role started alone as a real process (src/main.ts, as `node dist/main.js <role>` runs it)
// against the test stack: it serves its own routes and nothing on the other role's port, and
// SIGTERM stops it cleanly (exit code 0 after closing its connections).
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import net from 'node:net';
import { expect } from 'chai';
import { testEnv } from '../helpers/env.js';
import { suiteDatabase } from '../helpers/app.js';
import { repoPath } from '../../src/lib/paths.js';
import { connectDatabase } from '../../src/db/client.js';

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
    server.once('error', reject);
  });

interface Started {
  child: ChildProcess;
  platformDb: string;
  lines: Record<string, unknown>[];
  publicUrl: string;
  dashboardUrl: string;
  waitFor(msg: RegExp, timeoutMs?: number): Promise<Record<string, unknown>>;
  exit: Promise<number | null>;
  /** Why the process ended, for assertion messages: the signal and what it wrote to stderr. */
  ending(): string;
}

async function startRole(role: 'public' | 'dashboard' | 'worker'): Promise<Started> {
  const [publicPort, dashboardPort] = [await freePort(), await freePort()];
  const publicUrl = `http://127.0.0.1:${publicPort}`;
  const dashboardUrl = `http://127.0.0.1:${dashboardPort}`;
  const platformDb = suiteDatabase(`roles_${role}`);
  const child = spawn(process.execPath, ['--import', 'tsx', repoPath('src', 'main.ts'), role], {
    cwd: repoPath(),
    env: {
      ...testEnv,
      NODE_ENV: 'test',
      LOG_LEVEL: 'info',
      HOST: '127.0.0.1',
      PLATFORM_DB: platformDb,
      PUBLIC_PORT: String(publicPort),
      DASHBOARD_PORT: String(dashboardPort),
      PUBLIC_URL: publicUrl,
      DASHBOARD_URL: dashboardUrl,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: Record<string, unknown>[] = [];
  const waiters: { msg: RegExp; resolve: (line: Record<string, unknown>) => void }[] = [];
  let buffered = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    buffered += chunk.toString('utf8');
    const parts = buffered.split('\n');
    buffered = parts.pop()!;
    for (const part of parts.filter(Boolean)) {
      let line: Record<string, unknown>;
      try {
        line = JSON.parse(part) as Record<string, unknown>;
      } catch {
        line = { msg: part };
      }
      lines.push(line);
      for (const waiter of [...waiters]) {
        if (waiter.msg.test(String(line.msg))) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve(line);
        }
      }
    }
  });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  let endSignal: string | null = null;
  const exit = new Promise<number | null>((resolve) =>
    child.once('exit', (code, signal) => {
      endSignal = signal;
      resolve(code);
    }),
  );
  return {
    child,
    platformDb,
    lines,
    publicUrl,
    dashboardUrl,
    exit,
    ending: () => `signal ${endSignal}; stderr: ${stderr.slice(-2000)}`,
    waitFor(msg, timeoutMs = 45_000) {
      const seen = lines.find((line) => msg.test(String(line.msg)));
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`no log line ${msg} within ${timeoutMs} ms; stderr: ${stderr}`)),
          timeoutMs,
        );
        void exit.then((code) => reject(new Error(`exited with ${code} before ${msg}; stderr: ${stderr}`)));
        waiters.push({ msg, resolve: (line) => (clearTimeout(timer), resolve(line)) });
      });
    },
  };
}

/** True when nothing accepts connections at the URL's port. */
const refused = (url: string) =>
  fetch(`${url}/api/health`).then(
    () => false,
    (err: { cause?: { code?: string } }) => err.cause?.code === 'ECONNREFUSED',
  );

/** SIGTERM, then the exit code and how long it took; the process must log that it stopped. */
async function stop(started: Started): Promise<void> {
  const sent = Date.now();
  started.child.kill('SIGTERM');
  const code = await started.exit;
  expect(code, `exit code after SIGTERM (${started.ending()})`).to.equal(0);
  // SHUTDOWN_TIMEOUT_MS (10 s) bounds the HTTP drain; closing the connections comes on top.
  expect(Date.now() - sent).to.be.below(20_000);
  expect(started.lines.map((line) => line.msg)).to.include.members(['shutting down', 'stopped']);
}

describe('roles started alone (src/main.ts)', function () {
  // Each start compiles the app with tsx and connects to the stack: seconds on a busy machine.
  this.timeout(90_000);
  const running: Started[] = [];
  after(async () => {
    for (const started of running) if (started.child.exitCode === null) started.child.kill('SIGKILL');
    for (const started of running) {
      const db = await connectDatabase(testEnv.MONGODB_URI!, started.platformDb);
      await db.platform.dropDatabase().catch(() => undefined);
      await db.close();
    }
  });

  it('public: serves the public API and its document, nothing on the dashboard port; SIGTERM stops it', async () => {
    const started = await startRole('public');
    running.push(started);
    // The service runs on the Node.js LTS the project names (.node-version), as `npm test` and
    // `npm start` bring it: the process says which runtime it started on.
    const starting = await started.waitFor(/^starting public on Node\.js/);
    const wanted = readFileSync(repoPath('.node-version'), 'utf8').trim().split('.')[0];
    expect(String(starting.node).replace(/^v/, '').split('.')[0]).to.equal(wanted);
    await started.waitFor(/^public API listening/);
    const health = await fetch(`${started.publicUrl}/api/health`);
    expect(health.status).to.equal(200);
    const doc = (await (await fetch(`${started.publicUrl}/openapi.json`)).json()) as {
      info: { title: string };
      servers: { url: string }[];
    };
    expect(doc.info.title).to.equal('Public API');
    expect(doc.servers).to.deep.equal([{ url: started.publicUrl }]);
    expect((await fetch(`${started.publicUrl}/api/data/posts`)).status).to.equal(401, 'a public route');
    expect((await fetch(`${started.publicUrl}/api/projects`)).status).to.equal(404, 'no dashboard route');
    expect(await refused(started.dashboardUrl)).to.equal(true);
    expect(started.lines.some((line) => /^dashboard API listening/.test(String(line.msg)))).to.equal(false);
    await stop(started);
  });

  it('dashboard: serves the dashboard API and its document, nothing on the public port; SIGTERM stops it', async () => {
    const started = await startRole('dashboard');
    running.push(started);
    await started.waitFor(/^dashboard API listening/);
    expect((await fetch(`${started.dashboardUrl}/api/health`)).status).to.equal(200);
    const doc = (await (await fetch(`${started.dashboardUrl}/openapi.json`)).json()) as {
      info: { title: string };
    };
    expect(doc.info.title).to.equal('Dashboard API');
    expect((await fetch(`${started.dashboardUrl}/api/projects`)).status).to.equal(401, 'a dashboard route');
    expect((await fetch(`${started.dashboardUrl}/api/data/posts`)).status).to.equal(404, 'no public route');
    expect(await refused(started.publicUrl)).to.equal(true);
    await stop(started);
  });

  it('worker: runs its jobs and listens on no port; SIGTERM stops it', async () => {
    const started = await startRole('worker');
    running.push(started);
    const line = await started.waitFor(/^worker started/);
    expect(line.jobs).to.be.a('number').and.above(0);
    expect(await refused(started.publicUrl)).to.equal(true);
    expect(await refused(started.dashboardUrl)).to.equal(true);
    await stop(started);
  });
});
