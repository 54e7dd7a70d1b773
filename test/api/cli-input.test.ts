// The command-line tool with a wrong definition file, as a developer meets it: the file is checked
// against the schema the package ships before any request, and each problem is named by
// file:line:column and path, with nothing changed on the server. Also its JSON output of logs: one
// document a script can parse, and JSON Lines under --follow. And a warning when the installation
// was built with another version of the CLI.
import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { createProjectFixture, type ProjectFixture } from '../helpers/fixtures.js';
import { buildCli, cliMain, cliPackage, runCli } from '../helpers/cli.js';
import { requestLogsRepo } from '../../src/db/request-logs.js';
import { ObjectId } from '../../src/db/ids.js';

/** 1-based line and column of the first `needle` after `after` in `text`, counted here independently. */
function at(text: string, needle: string, shift = 0): string {
  const offset = text.indexOf(needle) + shift;
  expect(offset, needle).to.be.greaterThan(-1);
  const lines = text.slice(0, offset).split('\n');
  return `${lines.length}:${lines[lines.length - 1]!.length + 1}`;
}

describe('mongobaas CLI: a wrong definition file, logs as JSON, its version against the server', function () {
  this.timeout(180_000);
  let app: TestApp;
  let owner: ProjectFixture;
  let token: string;
  let dir: string;
  let receiver: Server;
  let receiverUrl: string;
  const received: string[] = [];
  let good = '';

  const cli = (args: string[], env: Record<string, string> = {}) => runCli(dir, args, env);
  const session = () => app.client.with({ cookie: owner.cookie });
  const base = () => `/api/projects/${owner.project.id}`;
  const file = () => path.join(dir, 'mongobaas.config.json');
  const collections = async () =>
    (await session().get(`${base()}/collections`)).body.data.collections.map(
      (c: { name: string; fields: unknown }) => [c.name, c.fields],
    );

  /** Writes the file, then diff and push both refuse it with `lines`, and nothing reaches a server. */
  async function refused(text: string, lines: string[]) {
    await writeFile(file(), text);
    const before = await collections();
    for (const args of [['diff'], ['push']]) {
      const res = await cli(args);
      expect(res.code, res.stderr).to.equal(2);
      for (const line of lines) expect(res.stderr).to.include(line);
    }
    expect(await collections()).to.deep.equal(before);
    // Checked before any request: a server the environment names sees none.
    const res = await cli(['push'], { MONGOBAAS_URL: receiverUrl, MONGOBAAS_TOKEN: token });
    expect(res.code).to.equal(2);
    expect(received).to.deep.equal([]);
  }

  before(async () => {
    await buildCli();
    app = await startTestApp('dashboard', 'cli_input');
    await createProjectFixture(app.services, 'Operator');
    owner = await createProjectFixture(app.services, 'Production');
    const made = await session().post(`${base()}/collections`, {
      name: 'products',
      mode: 'schema',
      fields: [{ name: 'title', type: 'String' }],
    });
    expect(made.status, made.text).to.equal(201);
    token = (
      await session().post('/api/user/me/tokens', {
        password: owner.password,
        name: 'ci',
        scope: 'write',
        expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
      })
    ).body.data.token;
    receiver = createServer((req, res) => {
      received.push(`${req.method} ${req.url}`);
      res.writeHead(500).end();
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    dir = await mkdtemp(path.join(tmpdir(), 'mongobaas-cli-input-'));
    const login = await runCli(dir, ['login', '--url', app.url], {}, token);
    expect(login.code, login.stderr).to.equal(0);
    expect((await cli(['link', owner.project.id])).code).to.equal(0);
    expect((await cli(['pull'])).code).to.equal(0);
    good = await readFile(file(), 'utf8');
  });
  after(async () => {
    await app?.close();
    receiver?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  /** The pulled file with a new valid collection `orders` (which a push would create first) and `products` changed. */
  const edited = (productFields: unknown[]) => {
    const config = JSON.parse(good);
    config.collections.orders = { mode: 'flexible', fields: [{ name: 'total', type: 'Number' }] };
    config.collections.products.fields = productFields;
    return JSON.stringify(config, null, 2) + '\n';
  };

  it('names an unknown field type by file:line:column and path, and sends nothing', async () => {
    const text = edited([
      { name: 'title', type: 'String' },
      { name: 'weight', type: 'Decimal' },
    ]);
    await refused(text, [
      'mongobaas.config.json does not match the definition schema (nothing was sent)',
      `mongobaas.config.json:${at(text, '"Decimal"')}: collections.products.fields.weight.type: must be one of "String", "Number"`,
    ]);
  });

  it('names a misspelt property instead of dropping it', async () => {
    const text = edited([{ name: 'title', type: 'String', requierd: true }]);
    await refused(text, [
      `mongobaas.config.json:${at(text, '"requierd"')}: collections.products.fields.title.requierd: unknown property`,
    ]);
    const misplaced = JSON.parse(good);
    misplaced.colections = {};
    const top = JSON.stringify(misplaced, null, 2);
    await refused(top, [`mongobaas.config.json:${at(top, '"colections"')}: colections: unknown property`]);
  });

  it('names a syntax error by line and column', async () => {
    const text = edited([{ name: 'title', type: 'String' }]).replace('"total",', '"total",,');
    await refused(text, [
      `mongobaas.config.json:${at(text, ',,', 1)}: not valid JSON: expected a property name in double quotes, found ","`,
    ]);
    const trailing = good.replace(/\n\s*}\s*$/, ',\n}\n');
    const lines = trailing.trimEnd().split('\n');
    await refused(trailing, [
      `mongobaas.config.json:${lines.length}:1: not valid JSON: expected a property name in double quotes, found "}"`,
    ]);
    // The same file once fixed goes through.
    await writeFile(file(), good);
    expect((await cli(['diff', '--exit-code'])).code).to.equal(0);
  });

  it('prints logs --json as one JSON document, and --follow as JSON Lines', async () => {
    const entry = (seconds: number, path: string) => ({
      id: new ObjectId(Math.floor(Date.now() / 1000) - seconds).toHexString(),
      projectId: owner.project.id,
      at: new Date(Date.now() - seconds * 1000),
      method: 'GET',
      path,
      status: 200,
      durationMs: 3,
      keyKind: 'publishable' as const,
      userId: null,
      requestId: `req-${seconds}`,
    });
    await requestLogsRepo(app.deps.db.platform).insertMany([
      entry(20, '/api/data/first'),
      entry(10, '/api/data/second'),
    ]);
    const logs = await cli(['logs', '--json', '--path', '/api/data/']);
    expect(logs.code, logs.stderr).to.equal(0);
    const doc = JSON.parse(logs.stdout);
    expect(doc.enabled).to.equal(true);
    expect(doc.entries.map((e: { path: string }) => e.path)).to.deep.equal([
      '/api/data/first',
      '/api/data/second',
    ]);

    // --follow: one entry per line as they come, until interrupted.
    const child = spawn(process.execPath, [cliMain(), 'logs', '--json', '--follow', '--path', '/api/data/'], {
      cwd: dir,
      env: { PATH: process.env.PATH, HOME: dir, XDG_CONFIG_HOME: path.join(dir, 'config') },
    });
    let out = '';
    const lines = await new Promise<string[]>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const complete = out.split('\n').filter(Boolean);
        if (complete.length >= 2 && out.endsWith('\n')) resolve(complete);
      });
      child.on('error', reject);
      child.on('close', () => reject(new Error(`logs --follow ended: ${out}`)));
    });
    child.kill();
    expect(lines.map((line) => (JSON.parse(line) as { path: string }).path)).to.deep.equal([
      '/api/data/first',
      '/api/data/second',
    ]);
  });

  it('warns when the installation serves another version of the CLI', async () => {
    const version = JSON.parse(await readFile(path.join(cliPackage(), 'package.json'), 'utf8')).version;
    let served = '9.9.9';
    const server = createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      if (req.url === '/clients/index.json')
        return res.end(JSON.stringify({ cli: { version: served, tarball: `mongobaas-cli-${served}.tgz` } }));
      res.end(JSON.stringify({ data: { developer: { email: 'dev@example.com', plan: 'free' } } }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const env = { MONGOBAAS_URL: url, MONGOBAAS_TOKEN: token };
      const older = await cli(['whoami', '--json'], env);
      expect(older.code, older.stderr).to.equal(0);
      expect(JSON.parse(older.stdout)).to.include({ email: 'dev@example.com' });
      expect(older.stderr).to.include(
        `warning: this CLI is ${version} and ${url} was built with 9.9.9; install that one: npm install -g ${url}/clients/mongobaas-cli-9.9.9.tgz`,
      );
      served = version;
      const same = await cli(['whoami'], env);
      expect(same.code, same.stderr).to.equal(0);
      expect(same.stderr).to.equal('');
    } finally {
      server.close();
    }
    const real = await cli(['whoami']);
    expect(real.code, real.stderr).to.equal(0);
    expect(real.stderr).to.not.include('warning:');
  });
});
