// The processes seen on the operator's overview: a real `src/main.ts all` process records each of
// its roles at start and keeps beating; the overview lists them fresh, marks one not seen for
// minutes as gone, and a heartbeat stops with its process.
import { spawn } from 'node:child_process';
import net from 'node:net';
import { expect } from 'chai';
import { testEnv } from '../helpers/env.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createOperator } from '../helpers/fixtures.js';
import { repoPath } from '../../src/lib/paths.js';
import { instancesRepo } from '../../src/db/instances.js';
import { startHeartbeat } from '../../src/services/heartbeat.js';

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
    server.once('error', reject);
  });

interface Seen {
  role: string;
  instance: string;
  version: string;
  startedAt: string;
  lastSeenAt: string;
  gone: boolean;
}

describe('operator: the processes seen (heartbeats)', function () {
  // The child compiles the app with tsx and connects to the stack: seconds on a busy machine.
  this.timeout(90_000);
  let app: TestApp;
  let cookie: string;
  const overview = async () => {
    const res = await app.client.with({ cookie }).get('/api/admin/overview');
    expect(res.status, res.text).to.equal(200);
    return res.body.data.instances as Seen[];
  };

  before(async () => {
    app = await startTestApp('dashboard', 'admin_instances');
    cookie = (await createOperator(app.services)).cookie;
  });
  after(() => app?.close());

  it('lists every role of a running process, fresh, and keeps it after SIGTERM stops the process', async () => {
    const [publicPort, dashboardPort] = [await freePort(), await freePort()];
    const child = spawn(process.execPath, ['--import', 'tsx', repoPath('src', 'main.ts'), 'all'], {
      cwd: repoPath(),
      env: {
        ...testEnv,
        NODE_ENV: 'test',
        LOG_LEVEL: 'warn',
        HOST: '127.0.0.1',
        PLATFORM_DB: app.deps.config.platformDb,
        PUBLIC_PORT: String(publicPort),
        DASHBOARD_PORT: String(dashboardPort),
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const exit = new Promise<number | null>((resolve) => child.once('exit', resolve));
    try {
      let seen: Seen[] = [];
      const deadline = Date.now() + 60_000;
      while (Date.now() < deadline && seen.length < 3) {
        seen = (await overview()).filter((i) => i.instance.includes(`:${child.pid}:`));
        if (seen.length < 3) await new Promise((r) => setTimeout(r, 250));
      }
      expect(
        seen.map((i) => i.role),
        stderr,
      ).to.have.members(['public', 'dashboard', 'worker']);
      const asked = Date.now();
      for (const i of seen) {
        expect(i).to.include({ version: app.deps.version, gone: false });
        expect(i.instance).to.match(/^.+:\d+:[0-9a-f]{4}$/);
        expect(asked - Date.parse(i.lastSeenAt), 'seen within the last heartbeat').to.be.below(35_000);
        expect(Date.parse(i.startedAt)).to.be.at.most(Date.parse(i.lastSeenAt));
      }
      expect(new Set(seen.map((i) => i.instance)).size, 'one process').to.equal(1);
    } finally {
      child.kill('SIGTERM');
    }
    expect(await exit, `exit after SIGTERM; ${stderr}`).to.equal(0);
    const after = (await overview()).filter((i) => i.instance.includes(`:${child.pid}:`));
    expect(
      after.map((i) => i.gone),
      'stopped a moment ago: not gone yet',
    ).to.deep.equal([false, false, false]);
  });

  it('marks a process not seen for over 2 minutes as gone and leaves out those of over an hour ago', async () => {
    const repo = instancesRepo(app.deps.db.platform);
    const startedAt = new Date(Date.now() - 3600_000);
    await repo.beat(
      { role: 'worker', instance: 'old-host:7:abcd', version: '0.0.1', startedAt },
      new Date(Date.now() - 5 * 60_000),
    );
    await repo.beat(
      { role: 'public', instance: 'older-host:8:abcd', version: '0.0.1', startedAt },
      new Date(Date.now() - 2 * 3600_000),
    );
    const seen = await overview();
    expect(seen.find((i) => i.instance === 'old-host:7:abcd')).to.include({ role: 'worker', gone: true });
    expect(seen.map((i) => i.instance)).not.to.include('older-host:8:abcd');
  });

  it('beats again while it runs and no more once stopped', async () => {
    const repo = instancesRepo(app.deps.db.platform);
    const beat = startHeartbeat({
      instances: repo,
      roles: ['dashboard'],
      version: 'x',
      log: app.deps.log,
      everyMs: 100,
    });
    const mine = async () =>
      (await repo.seenSince(new Date(0), 100))
        .find((i) => i.instance === beat.instance)
        ?.lastSeenAt.getTime();
    let first: number | undefined;
    for (let i = 0; i < 100 && first === undefined; i++) {
      first = await mine();
      await new Promise((r) => setTimeout(r, 20));
    }
    let later = first;
    for (let i = 0; i < 100 && later === first; i++) {
      await new Promise((r) => setTimeout(r, 50));
      later = await mine();
    }
    expect(later, 'a later heartbeat').to.be.greaterThan(first!);
    await beat.stop();
    const stopped = await mine();
    await new Promise((r) => setTimeout(r, 400));
    expect(await mine(), 'no beat after stop').to.equal(stopped);
  });
});
