// The container image as a self-hoster runs it (`npm run test:image`, scripts/image/test.sh builds
// it first): containers on the host's network against the test stack's MongoDB-compatible server,
// Redis, S3 store and SMTP sink; first one `all` container, then two `public` containers, a
// `dashboard` and a `worker`. Over HTTP through the containers: developer sign-up with the mailed
// link, a project, a collection, a document written and read, an upload read back, a webhook
// delivered, a realtime event seen on the second public container after a write on the first.
// Then what the image must be: the health check turns healthy, the process is not root, no
// compiler or test tool is inside, SIGTERM ends each container within 10 s and a write
// acknowledged before it is readable after. The figures are printed.
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { createClient, memoryStore, type ChangeEvent } from '../../sdk/src/index.js';
import { repoPath } from '../../src/lib/paths.js';
import { ApiClient } from '../helpers/client.js';
import { testEnv } from '../helpers/env.js';
import { freePort } from '../helpers/mongo-server.js';
import { signUpByMail } from '../helpers/signup.js';
import { startReceiver, type Receiver } from '../helpers/webhook-receiver.js';

const exec = promisify(execFile);
const IMAGE = process.env.IMAGE ?? 'localhost/mongobaas:latest';
const TRY_IMAGE = process.env.TRY_IMAGE ?? 'localhost/mongobaas:try';
const PASSWORD = 'correct horse battery staple';

const podman = (args: string[], timeout = 120_000) =>
  exec(
    'podman',
    [
      '--runtime',
      process.env.PODMAN_RUNTIME ?? 'runc',
      '--cgroup-manager',
      process.env.PODMAN_CGROUP_MANAGER ?? 'cgroupfs',
      ...args,
    ],
    {
      timeout,
      env: {
        ...process.env,
        CONTAINERS_CONF: process.env.CONTAINERS_CONF ?? repoPath('scripts/image/containers.conf'),
      },
    },
  );

const started: string[] = [];

/** Starts a container of the image with the role; its settings come from the environment only. */
async function runContainer(role: string, env: Record<string, string>, image = IMAGE): Promise<string> {
  const name = `mongobaas-test-${role}-${randomBytes(3).toString('hex')}`;
  const flags = Object.entries(env).flatMap(([key, value]) => ['-e', `${key}=${value}`]);
  await podman(['run', '-d', '--name', name, '--network', 'host', ...flags, image, role]);
  started.push(name);
  return name;
}

/** Runs the image's own HEALTHCHECK until it passes; the seconds it took. */
async function healthy(name: string, since: number): Promise<number> {
  for (;;) {
    const ok = await podman(['healthcheck', 'run', name]).then(
      () => true,
      () => false,
    );
    if (ok) return (Date.now() - since) / 1000;
    if (Date.now() - since > 120_000) {
      const { stdout, stderr } = await podman(['logs', '--tail', '40', name]);
      throw new Error(`${name} was not healthy in 120 s:\n${stdout}${stderr}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/** `podman stop` (SIGTERM, SIGKILL after 10 s): the seconds it took and the exit code. */
async function stop(name: string) {
  const at = Date.now();
  await podman(['stop', '--time', '10', name], 60_000);
  const seconds = (Date.now() - at) / 1000;
  const { stdout } = await podman(['inspect', '--format', '{{.State.ExitCode}}', name]);
  return { seconds, exitCode: Number(stdout.trim()) };
}

/** What every container gets: the test stack's servers, a platform database of its own, ports. */
function stackEnv(platformDb: string): Record<string, string> {
  const pick = [
    'MONGODB_URI',
    'REDIS_URL',
    'S3_ENDPOINT',
    'S3_REGION',
    'S3_BUCKET',
    'S3_ACCESS_KEY_ID',
    'S3_SECRET_ACCESS_KEY',
    'SMTP_URL',
    'ENCRYPTION_KEY',
    'INTERNAL_API_SECRET',
  ];
  return {
    ...Object.fromEntries(pick.map((key) => [key, testEnv[key] ?? ''])),
    PLATFORM_DB: platformDb,
    HOST: '127.0.0.1',
    // The test's webhook receiver is on this machine.
    ALLOW_PRIVATE_HOSTS: 'true',
    WEBHOOK_ALLOW_HTTP: 'true',
    WEBHOOK_POLL_INTERVAL_MS: '200',
  };
}

interface Installation {
  publicUrl: string;
  dashboardUrl: string;
}

/** The smoke path of the issue, through the containers; returns the project's keys. */
async function smoke(at: Installation, receiver: Receiver) {
  const dash = new ApiClient(at.dashboardUrl, 'dashboard');
  const email = `op-${randomBytes(4).toString('hex')}@example.com`;
  const { cookie } = await signUpByMail(dash, email, PASSWORD);
  const me = dash.with({ cookie });
  const created = await me.post('/api/projects', { name: 'Image smoke' });
  expect(created.status, created.text).to.equal(201);
  const { project, keys } = created.body.data;
  const collection = await me.post(`/api/projects/${project.id}/collections`, {
    name: 'notes',
    mode: 'schema',
    fields: [{ name: 'text', type: 'String', required: true }],
  });
  expect(collection.status, collection.text).to.equal(201);
  const hook = await me.post(`/api/projects/${project.id}/webhooks`, {
    url: receiver.url('/in'),
    events: ['document.created'],
  });
  expect(hook.status, hook.text).to.equal(201);
  receiver.secret('/in', hook.body.data.secret);

  const server = createClient(at.publicUrl, keys.secret, { store: memoryStore() });
  const note = await server.collection('notes').create({ text: 'from the image' });
  expect((await server.collection('notes').get(String(note._id))).text).to.equal('from the image');
  const file = await server.storage.upload(new TextEncoder().encode('bytes in the bucket'), {
    filename: 'image.txt',
    contentType: 'text/plain',
  });
  expect(file.size).to.equal('bytes in the bucket'.length);
  return {
    projectId: project.id as string,
    keys: keys as { publishable: string; secret: string },
    noteId: note._id,
  };
}

describe('the container image', function () {
  this.timeout(600_000);
  const figures: Record<string, string> = {};
  let receiver: Receiver;

  before(async () => {
    receiver = await startReceiver();
    const { stdout } = await podman(['image', 'inspect', '--format', '{{.Size}}', IMAGE]);
    figures['image size'] = `${(Number(stdout.trim()) / 1e6).toFixed(0)} MB`;
  });
  after(async () => {
    for (const name of started) await podman(['rm', '-f', '-t', '0', name]).catch(() => undefined);
    await receiver?.close();
    console.log('      figures:', JSON.stringify(figures));
  });

  const delivered = async (count: number) => {
    for (let i = 0; i < 300 && receiver.received.filter((r) => r.path === '/in').length < count; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    return receiver.received.filter((r) => r.path === '/in');
  };

  it('runs as `all`: healthy, not root, nothing to build or test with, the smoke path, a clean SIGTERM', async () => {
    const [pub, dashPort] = [await freePort(), await freePort()];
    const at = { publicUrl: `http://127.0.0.1:${pub}`, dashboardUrl: `http://127.0.0.1:${dashPort}` };
    const since = Date.now();
    const name = await runContainer('all', {
      ...stackEnv(`img_all_${randomBytes(3).toString('hex')}`),
      PUBLIC_PORT: String(pub),
      DASHBOARD_PORT: String(dashPort),
      PUBLIC_URL: at.publicUrl,
      DASHBOARD_URL: at.dashboardUrl,
    });
    figures['all: run to healthy'] = `${(await healthy(name, since)).toFixed(1)} s`;

    const uid = (await podman(['exec', name, 'id', '-u'])).stdout.trim();
    expect(uid).to.not.equal('0');
    const tools = await podman([
      'exec',
      name,
      'sh',
      '-c',
      'for t in gcc cc g++ make npm npx tsc mocha python3 java; do command -v $t; done; for m in mocha chai typescript tsx playwright-core vite esbuild dredd eslint; do [ -e node_modules/$m ] && echo $m; done; true',
    ]);
    expect(tools.stdout.trim(), 'compilers, package managers or test tools in the image').to.equal('');

    const { keys, noteId } = await smoke(at, receiver);
    const hooks = await delivered(1);
    expect(hooks[0]?.verified).to.equal(true);
    expect(hooks[0]?.payload.document.text).to.equal('from the image');

    // A write acknowledged right before SIGTERM is there after the restart.
    const server = createClient(at.publicUrl, keys.secret, { store: memoryStore() });
    const last = await server.collection('notes').create({ text: 'just before the stop' });
    const stopped = await stop(name);
    figures['all: SIGTERM to exit'] = `${stopped.seconds.toFixed(1)} s`;
    expect(stopped.seconds).to.be.below(10);
    expect(stopped.exitCode).to.equal(0);
    await podman(['start', name]);
    await healthy(name, Date.now());
    expect((await server.collection('notes').get(String(last._id))).text).to.equal('just before the stop');
    expect((await server.collection('notes').get(String(noteId))).text).to.equal('from the image');
    await podman(['rm', '-f', '-t', '0', name]);
  });

  it('runs as two public containers, a dashboard and a worker over one database and Redis', async () => {
    const [pub1, pub2, dashPort] = [await freePort(), await freePort(), await freePort()];
    const env = {
      ...stackEnv(`img_roles_${randomBytes(3).toString('hex')}`),
      PUBLIC_URL: `http://127.0.0.1:${pub1}`,
    };
    const at = { publicUrl: `http://127.0.0.1:${pub1}`, dashboardUrl: `http://127.0.0.1:${dashPort}` };
    const since = Date.now();
    const names = {
      public1: await runContainer('public', { ...env, PUBLIC_PORT: String(pub1) }),
      public2: await runContainer('public', { ...env, PUBLIC_PORT: String(pub2) }),
      dashboard: await runContainer('dashboard', {
        ...env,
        DASHBOARD_PORT: String(dashPort),
        DASHBOARD_URL: at.dashboardUrl,
        PUBLIC_INTERNAL_URL: at.publicUrl,
      }),
      worker: await runContainer('worker', env),
    };
    for (const [role, name] of Object.entries(names)) {
      figures[`${role}: run to healthy`] = `${(await healthy(name, since)).toFixed(1)} s`;
    }
    const before = receiver.received.length;
    const { keys } = await smoke(at, receiver);
    expect((await delivered(before + 1)).length).to.be.greaterThan(0);

    // A write on the first public container, seen as an event on the second's stream.
    const reader = createClient(`http://127.0.0.1:${pub2}`, keys.secret, { store: memoryStore() });
    const events: ChangeEvent<{ text: string }>[] = [];
    let ready = false;
    const sub = reader.subscribe('notes', {
      onEvent: (e) => events.push(e as never),
      onReady: () => (ready = true),
    });
    try {
      for (let i = 0; i < 200 && !ready; i++) await new Promise((resolve) => setTimeout(resolve, 50));
      expect(ready, 'the stream on the second public container').to.equal(true);
      const writer = createClient(at.publicUrl, keys.secret, { store: memoryStore() });
      await writer.collection('notes').create({ text: 'across instances' });
      for (let i = 0; i < 200 && !events.length; i++) await new Promise((resolve) => setTimeout(resolve, 50));
      expect(events[0]?.document?.text).to.equal('across instances');
    } finally {
      sub.close();
    }

    // SIGTERM: each role ends within 10 s, cleanly; an acknowledged write is readable on the other.
    const writer = createClient(at.publicUrl, keys.secret, { store: memoryStore() });
    const last = await writer.collection('notes').create({ text: 'acknowledged' });
    for (const [role, name] of Object.entries(names)) {
      const stopped = await stop(name);
      figures[`${role}: SIGTERM to exit`] = `${stopped.seconds.toFixed(1)} s`;
      expect(stopped.seconds, role).to.be.below(10);
      expect(stopped.exitCode, role).to.equal(0);
      if (role === 'public1') {
        const other = createClient(`http://127.0.0.1:${pub2}`, keys.secret, { store: memoryStore() });
        expect((await other.collection('notes').get(String(last._id))).text).to.equal('acknowledged');
      }
    }
  });

  it('try target: with nothing configured, the embedded database, and its data kept on /data', async () => {
    const [pub, dashPort, dbPort] = [await freePort(), await freePort(), await freePort()];
    const volume = `mongobaas-try-${randomBytes(3).toString('hex')}`;
    const name = `mongobaas-test-try-${randomBytes(3).toString('hex')}`;
    const ports = {
      PUBLIC_PORT: String(pub),
      DASHBOARD_PORT: String(dashPort),
      EMBEDDED_DB_PORT: String(dbPort),
    };
    const flags = Object.entries(ports).flatMap(([key, value]) => ['-e', `${key}=${value}`]);
    const since = Date.now();
    await podman([
      'run',
      '-d',
      '--name',
      name,
      '--network',
      'host',
      '-v',
      `${volume}:/data`,
      ...flags,
      TRY_IMAGE,
    ]);
    started.push(name);
    try {
      figures['try: run to healthy'] = `${(await healthy(name, since)).toFixed(1)} s`;
      const health = await (await fetch(`http://127.0.0.1:${pub}/api/health`)).json();
      expect(health.data.engine.embedded).to.equal(true);
      const page = await fetch(`http://127.0.0.1:${dashPort}/`);
      expect(page.status).to.equal(200);
      expect(await page.text()).to.include('<div id="root">');
      const stopped = await stop(name);
      figures['try: SIGTERM to exit'] = `${stopped.seconds.toFixed(1)} s`;
      expect(stopped.seconds).to.be.below(10);
      expect(stopped.exitCode).to.equal(0);
      const { stdout } = await podman([
        'run',
        '--rm',
        '-v',
        `${volume}:/data`,
        '--entrypoint',
        'ls',
        TRY_IMAGE,
        '/data',
        '/data/db',
      ]);
      expect(stdout).to.include('secrets.env');
      expect(stdout).to.include('mongo.h2');
    } finally {
      await podman(['rm', '-f', '-t', '0', name]).catch(() => undefined);
      await podman(['volume', 'rm', '-f', volume]).catch(() => undefined);
    }
  });
});
