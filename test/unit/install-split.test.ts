// `npm start` installs what running the service needs and nothing else: its install step runs
// `npm ci` and never apt-get, sudo or python3 (Chromium and schemathesis are the tests' tools,
// installed by scripts/install-test-tools.sh for `npm test`). Run in a copy of the scripts with
// stubs first on PATH: npm records its calls, and apt-get, sudo, python3 and pip fail loudly.
import { expect } from 'chai';
import { failingStub, scriptSandbox, stub, type ScriptSandbox } from '../helpers/script-sandbox.js';

const SCRIPTS = [
  'scripts/start.sh',
  'scripts/install.sh',
  'scripts/install-test-tools.sh',
  'scripts/env.sh',
  'scripts/node-runtime.sh',
  '.node-version',
  'package-lock.json',
];

describe('install steps: npm start installs only what the service needs', function () {
  this.timeout(60_000);
  let box: ScriptSandbox;

  beforeEach(() => {
    box = scriptSandbox(SCRIPTS);
    stub(box, 'npm', '[ "$1" = ci ] && mkdir -p node_modules\nexit 0');
    for (const name of ['apt-get', 'apt', 'sudo', 'python3', 'pip', 'pip3']) failingStub(box, name);
    // The embedded servers start beside the install step; a failing stub ends start.sh there.
    box.write('scripts/stack.sh', 'echo "stack.sh $*" >>"$CALLS_LOG"\nexit 3\n');
  });
  afterEach(() => box.remove());

  it('runs npm ci and the embedded servers, and never apt-get, sudo or python3', () => {
    const { status, output } = box.run('scripts/start.sh');
    // The stub stack.sh fails, so start.sh stops after its install step (and stops the stack).
    expect(status, output).to.equal(1);
    expect(box.calls()).to.have.members([
      'stack.sh start dev',
      'npm ci --no-audit --no-fund --loglevel=error',
      'stack.sh stop dev',
    ]);
    expect(output).not.to.match(/STUB|chromium|schemathesis/i);
  });

  it('does not run npm ci again while the lockfile is unchanged', () => {
    expect(box.run('scripts/install.sh').status).to.equal(0);
    expect(box.run('scripts/install.sh').status).to.equal(0);
    expect(box.calls()).to.deep.equal(['npm ci --no-audit --no-fund --loglevel=error']);
    box.write('package-lock.json', '{"changed": true}\n');
    expect(box.run('scripts/install.sh').status).to.equal(0);
    expect(box.calls()).to.have.length(2);
  });

  it('leaves the test tools to install-test-tools.sh, which does call them (the stubs work)', () => {
    const { status, output } = box.run('scripts/install-test-tools.sh', ['schemathesis']);
    expect(status, output).to.equal(0); // a tool that cannot be installed is a warning
    expect(box.calls().map((call) => call.split(' ')[0])).to.include.members(['python3', 'apt-get']);
    expect(output).to.include('could not install schemathesis');
    expect(box.run('scripts/install-test-tools.sh', ['firefox']).status).to.equal(2);
  });
});
