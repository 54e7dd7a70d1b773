// The clients an installation serves (/clients/ on the dashboard role), installed as a user of a
// self-hosted installation would, from a clean folder with a fresh npm cache: the SDK with
// `npm install <url>`, the CLI with `npx --package <url>`, and the SDK's ES module for a page.
import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { repoPath } from '../../src/lib/paths.js';
import { startTestApp, type TestApp } from '../helpers/app.js';

const run = promisify(execFile);

describe('clients served by the installation (/clients/)', function () {
  this.timeout(300_000);
  let app: TestApp;
  let dir: string;
  let index: {
    sdk: { version: string; tarball: string; module: string };
    cli: { version: string; tarball: string };
  };
  /** npm in the clean folder, with a cache of its own (nothing from this machine's earlier installs). */
  const npm = (args: string[]) =>
    run(process.platform === 'win32' ? 'npm.cmd' : 'npm', args, {
      cwd: dir,
      env: {
        ...process.env,
        npm_config_cache: path.join(dir, '.npm-cache'),
        npm_config_update_notifier: 'false',
      },
      maxBuffer: 16 * 1024 * 1024,
    });

  before(async () => {
    // Built by `npm test` (and `npm start`) before; a no-op here when nothing changed.
    await run('bash', [repoPath('scripts', 'build-clients.sh')], { cwd: repoPath() });
    index = JSON.parse(await readFile(repoPath('dist', 'clients', 'index.json'), 'utf8'));
    app = await startTestApp('dashboard', 'clients_install');
    dir = await mkdtemp(path.join(tmpdir(), 'baas-clients-'));
    await npm(['init', '-y']);
  });
  after(async () => {
    await app?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('serves the SDK as an ES module any page may load, and says what it has', async () => {
    const res = await fetch(`${app.url}/clients/${index.sdk.module}`, {
      headers: { origin: 'https://app.example' },
    });
    expect(res.status).to.equal(200);
    expect(res.headers.get('content-type')).to.match(/^text\/javascript/);
    expect(res.headers.get('access-control-allow-origin')).to.equal('*');
    expect(await res.text()).to.include('createClient');
    const listed = await (await fetch(`${app.url}/clients/`)).json();
    expect(listed).to.deep.equal(index);
    expect((await fetch(`${app.url}/clients/nope.tgz`)).status).to.equal(404);
  });

  it('installs the SDK with npm install <url>, and it imports', async () => {
    await npm(['install', '--no-audit', '--no-fund', `${app.url}/clients/${index.sdk.tarball}`]);
    const { stdout } = await run(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        "import { createClient } from 'mongobaas-js'; console.log(typeof createClient)",
      ],
      { cwd: dir },
    );
    expect(stdout.trim()).to.equal('function');
  });

  it('runs the CLI with npx --package <url>', async () => {
    const { stdout } = await npm([
      'exec',
      '--yes',
      '--package',
      `${app.url}/clients/${index.cli.tarball}`,
      '--',
      'mongobaas',
      '--version',
    ]);
    expect(stdout.trim()).to.equal(index.cli.version);
  });
});
