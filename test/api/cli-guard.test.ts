// What the command-line tool refuses to do with a checked-out repository it cannot trust, as CI
// runs it on a pull request: send the environment's token to a URL the project file names, talk
// plain http beyond this machine, open access without being told by name, or read files through a
// link out of the project.
import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createProjectFixture, type ProjectFixture } from '../helpers/fixtures.js';
import { buildCli, runCli } from '../helpers/cli.js';

const CODE = 'export default async (event) => event.body;\n';

describe('mongobaas CLI: what it refuses to a checked-out repository', function () {
  this.timeout(180_000);
  let app: TestApp;
  let owner: ProjectFixture;
  let token: string;
  /** HOME, with the credentials `login` stores under config/, and the project in project/. */
  let dir: string;
  let project: string;
  let receiver: Server;
  let receiverUrl: string;
  const received: string[] = [];

  const cli = (args: string[], env: Record<string, string> = {}) =>
    runCli(project, args, env, undefined, dir);
  const session = () => app.client.with({ cookie: owner.cookie });
  const base = () => `/api/projects/${owner.project.id}`;
  const file = () => path.join(project, 'mongobaas.config.json');
  const readConfig = async () => JSON.parse(await readFile(file(), 'utf8'));
  /** The project as the dashboard API shows it, to compare before and after a refused push. */
  const serverState = async () => {
    const [project, collections, webhooks, functions] = await Promise.all(
      ['', '/collections', '/webhooks', '/functions'].map((p) => session().get(`${base()}${p}`)),
    );
    return {
      settings: project!.body.data.project.settings,
      collections: collections!.body.data.collections.map((c: { name: string; rls: unknown }) => [
        c.name,
        c.rls,
      ]),
      webhooks: webhooks!.body.data.webhooks.map((w: { url: string }) => w.url),
      functions: functions!.body.data.functions.map(
        (f: { name: string; trigger: unknown; runtime: unknown; failurePolicy: string; version: number }) => [
          f.name,
          f.trigger,
          f.runtime,
          f.failurePolicy,
          f.version,
        ],
      ),
    };
  };

  before(async () => {
    await buildCli();
    app = await startTestApp('dashboard', 'cli_guard');
    await createProjectFixture(app.services, 'Operator');
    owner = await createProjectFixture(app.services, 'Production');
    await app.services.repos.developers.setPlan(owner.developer.id, 'pro');
    const made = [
      await session().post(`${base()}/collections`, {
        name: 'posts',
        mode: 'flexible',
        fields: [
          { name: 'title', type: 'String' },
          { name: 'userId', type: 'String' },
        ],
        rls: { enabled: true, mode: 'private', ownerField: 'userId' },
      }),
      await session().post(`${base()}/webhooks`, {
        url: 'https://93.184.215.14/in',
        events: ['document.created'],
      }),
      await session().post(`${base()}/functions`, {
        name: 'report',
        trigger: { type: 'callable', access: 'secret' },
        runtime: { type: 'javascript', code: CODE },
      }),
      await session().post(`${base()}/functions`, {
        name: 'checkPost',
        trigger: { type: 'beforeCreate', collection: 'posts' },
        runtime: { type: 'javascript', code: CODE },
        failurePolicy: 'closed',
      }),
      await session().post(`${base()}/functions`, {
        name: 'notify',
        trigger: { type: 'afterCreate', collection: 'posts' },
        runtime: { type: 'http', url: 'https://93.184.215.14/hook' },
      }),
    ];
    for (const res of made) expect(res.status, res.text).to.equal(201);
    token = (
      await session().post('/api/user/me/tokens', {
        password: owner.password,
        name: 'ci',
        scope: 'write',
        expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
      })
    ).body.data.token;
    receiver = createServer((req, res) => {
      received.push(`${req.method} ${req.url} ${req.headers.authorization ?? ''}`);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"data":{}}');
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    dir = await mkdtemp(path.join(tmpdir(), 'mongobaas-cli-guard-'));
    project = path.join(dir, 'project');
    await mkdir(project);
    // The token from standard input, as the docs lead with: never on the command line.
    const login = await runCli(project, ['login', '--url', app.url, '--token', '-'], {}, `${token}\n`, dir);
    expect(login.code, login.stderr).to.equal(0);
    expect((await cli(['link', owner.project.id])).code).to.equal(0);
    const pull = await cli(['pull']);
    expect(pull.code, pull.stderr).to.equal(0);
  });
  after(async () => {
    await app?.close();
    receiver?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("sends MONGOBAAS_TOKEN only to a URL the environment gives, never to the project file's", async () => {
    const linked = JSON.parse(await readFile(path.join(project, 'mongobaas.json'), 'utf8'));
    // A pull request points the committed project file at its own server.
    await writeFile(path.join(project, 'mongobaas.json'), JSON.stringify({ ...linked, url: receiverUrl }));
    try {
      for (const args of [['whoami'], ['diff'], ['push']]) {
        const res = await cli(args, { MONGOBAAS_TOKEN: token });
        expect(res.code, res.stderr).to.equal(4);
        expect(res.stderr).to.include(
          `Refused: MONGOBAAS_TOKEN is sent only to a URL given by MONGOBAAS_URL or --url, not to ${receiverUrl} read from mongobaas.json`,
        );
      }
      // The token stored by login belongs to its own URL, so nothing goes to the file's either.
      const stored = await cli(['whoami']);
      expect(stored.code).to.equal(4);
      expect(stored.stderr).to.include(`Not logged in to ${receiverUrl}`);
      expect(received).to.deep.equal([]);
      // With the URL in the environment (a CI setting, not a file of the pull request) it works.
      const ok = await cli(['whoami', '--json'], { MONGOBAAS_TOKEN: token, MONGOBAAS_URL: app.url });
      expect(ok.code, ok.stderr).to.equal(0);
      expect(JSON.parse(ok.stdout)).to.include({ email: owner.developer.email });
      expect(received).to.deep.equal([]);
    } finally {
      await writeFile(path.join(project, 'mongobaas.json'), JSON.stringify(linked));
    }
  });

  it("sends the token with a backup download only to the dashboard's own origin", async () => {
    // A download link of '//host/...' starts with '/' like the filesystem store's own paths.
    const port = (receiver.address() as AddressInfo).port;
    const dashboard = createServer((req, res) => {
      if (req.method === 'POST' && req.url?.endsWith('/download')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        return res.end(
          JSON.stringify({
            data: { url: `//127.0.0.1:${port}/steal`, sha256: 'x', containsPasswordHashes: false },
          }),
        );
      }
      res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => dashboard.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(dashboard.address() as AddressInfo).port}`;
      const res = await cli(['backup', 'download', 'b1', '--project', 'p1'], {
        MONGOBAAS_URL: url,
        MONGOBAAS_TOKEN: token,
      });
      expect(res.code).to.equal(1);
      expect(res.stderr).to.include(`Refused: the download link leaves ${url}`);
      expect(received).to.deep.equal([]);
    } finally {
      dashboard.close();
    }
  });

  it('talks plain http to loopback only', async () => {
    for (const url of ['http://93.184.215.14:3000', 'http://dashboard.example']) {
      const env = await cli(['whoami'], { MONGOBAAS_TOKEN: token, MONGOBAAS_URL: url });
      expect(env.code).to.equal(2);
      expect(env.stderr).to.include(`Refused: ${url} is plain http; a token is sent only over https`);
      const login = await runCli(project, ['login', '--url', url, '--token', '-'], {}, token, dir);
      expect(login.code).to.equal(2);
      expect(login.stderr).to.include('plain http');
    }
    const loopback = await cli(['whoami'], { MONGOBAAS_TOKEN: token, MONGOBAAS_URL: app.url });
    expect(loopback.code, loopback.stderr).to.equal(0);
  });

  it('refuses each change that widens access until --allow-widening names it', async () => {
    const before = await serverState();
    const config = await readConfig();
    config.settings.allowedOrigins = ['https://shop.example'];
    config.collections.posts.rls.enabled = false;
    config.webhooks[0].url = 'https://93.184.215.15/in';
    config.functions.report.trigger.access = 'public';
    config.functions.report.runtime.privileged = true;
    config.functions.checkPost.failurePolicy = 'open';
    config.functions.notify.runtime.url = 'https://93.184.215.15/hook';
    await writeFile(file(), JSON.stringify(config, null, 2));
    const widening = [
      'origin:https://shop.example',
      'rls-off:posts',
      'webhook:https://93.184.215.15/in',
      'fail-open:checkPost',
      'function-url:notify',
      'access:report',
      'privileged:report',
    ];
    const diff = await cli(['diff']);
    expect(diff.code, diff.stderr).to.equal(0);
    for (const id of widening) expect(diff.stdout).to.include(`widens access: ${id} (`);
    expect(diff.stdout).to.include('destructive: drop-webhook:https://93.184.215.14/in');
    const json = JSON.parse((await cli(['diff', '--json'])).stdout);
    expect(json.steps.flatMap((s: { widening: string[] }) => s.widening)).to.have.members(widening);

    const destructiveOnly = await cli([
      'push',
      '--allow-destructive',
      'drop-webhook:https://93.184.215.14/in',
    ]);
    expect(destructiveOnly.code).to.equal(1);
    expect(destructiveOnly.stderr).to.include(
      `Refused: changes that widen access not allowed: ${widening.join(', ')}. Re-run with --allow-widening ${widening.join(',')}`,
    );
    // Every kind is refused on its own: allowing all the others still leaves it out.
    for (const id of widening) {
      const others = widening.filter((w) => w !== id);
      const res = await cli([
        'push',
        '--allow-destructive',
        'drop-webhook:https://93.184.215.14/in',
        '--allow-widening',
        others.join(','),
      ]);
      expect(res.code, id).to.equal(1);
      expect(res.stderr).to.include(`changes that widen access not allowed: ${id}.`);
    }
    const deploy = await cli(['functions', 'deploy']);
    expect(deploy.code).to.equal(1);
    expect(deploy.stderr).to.include(
      'changes that widen access not allowed: fail-open:checkPost, function-url:notify, access:report, privileged:report',
    );
    expect(await serverState()).to.deep.equal(before);

    const pushed = await cli([
      'push',
      '--allow-destructive',
      'drop-webhook:https://93.184.215.14/in',
      '--allow-widening',
      widening.slice(0, 3).join(','),
      '--allow-widening',
      widening.slice(3).join(','),
    ]);
    expect(pushed.code, pushed.stderr).to.equal(0);
    const after = await serverState();
    expect(after.settings.allowedOrigins).to.deep.equal(['https://shop.example']);
    expect(after.webhooks).to.deep.equal(['https://93.184.215.15/in']);
    expect((await cli(['diff', '--exit-code'])).code).to.equal(0);
  });

  it('does not read or write code files through a link out of the project', async () => {
    const before = await serverState();
    const credentials = path.join(dir, 'config', 'mongobaas', 'credentials.json');
    const code = path.join(project, 'functions', 'report.js');
    await rm(code);
    await symlink(credentials, code);
    for (const args of [['diff'], ['push'], ['functions', 'deploy', 'report']]) {
      const res = await cli(args);
      expect(res.code, res.stderr).to.equal(2);
      expect(res.stderr).to.include(`a function's file must be inside`);
      expect(res.stderr).to.include(`functions/report.js leads to ${credentials}`);
    }
    expect(await serverState()).to.deep.equal(before);
    // pull does not write through it either.
    const pull = await cli(['pull']);
    expect(pull.code).to.equal(2);
    expect(JSON.parse(await readFile(credentials, 'utf8')).hosts[app.url].token).to.equal(token);
    await rm(code);
    await writeFile(code, CODE);

    // A definition named by mongobaas.json must stay in the folder too.
    const outside = await mkdtemp(path.join(tmpdir(), 'mongobaas-cli-outside-'));
    await mkdir(path.join(outside, 'functions'), { recursive: true });
    const linked = JSON.parse(await readFile(path.join(project, 'mongobaas.json'), 'utf8'));
    await writeFile(
      path.join(project, 'mongobaas.json'),
      JSON.stringify({ ...linked, definition: path.relative(project, path.join(outside, 'x.json')) }),
    );
    try {
      const res = await cli(['diff']);
      expect(res.code).to.equal(2);
      expect(res.stderr).to.include('mongobaas.json: the definition file must be inside');
    } finally {
      await writeFile(path.join(project, 'mongobaas.json'), JSON.stringify(linked));
      await rm(outside, { recursive: true, force: true });
    }
    // The definition file itself as a link out: not read, and pull does not write through it.
    const definition = await readFile(file(), 'utf8');
    await rm(file());
    await symlink(credentials, file());
    try {
      for (const args of [['diff'], ['pull']]) {
        const res = await cli(args);
        expect(res.code, res.stderr).to.equal(2);
        expect(res.stderr).to.include('mongobaas.json: the definition file must be inside');
      }
      expect(JSON.parse(await readFile(credentials, 'utf8')).hosts[app.url].token).to.equal(token);
    } finally {
      await rm(file());
      await writeFile(file(), definition);
    }
    expect((await cli(['diff', '--exit-code'])).code).to.equal(0);
  });
});
