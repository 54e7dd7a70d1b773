// A throwaway copy of some of the repository's scripts, with stub commands first on PATH, to run
// a script's install steps as a user's machine would without touching this checkout: every stub
// call is appended to calls.log, and a `failing` stub says so loudly on stderr and exits 97.
import { spawnSync } from 'node:child_process';
import {
  chmodSync,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { repoPath } from '../../src/lib/paths.js';

export interface ScriptSandbox {
  root: string;
  /** The stub calls so far, one `name args...` per line. */
  calls(): string[];
  /** Runs `bash <script> ...args` in the copy; PATH is the stubs, this Node.js's folder, the system. */
  run(
    script: string,
    args?: string[],
    env?: Record<string, string>,
  ): { status: number | null; output: string };
  write(file: string, text: string, mode?: number): void;
  remove(): void;
}

export function scriptSandbox(files: string[]): ScriptSandbox {
  const root = mkdtempSync(path.join(tmpdir(), 'script-sandbox-'));
  const stubs = path.join(root, '.stubs');
  const log = path.join(root, 'calls.log');
  mkdirSync(stubs);
  writeFileSync(log, '');
  for (const file of files) {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    copyFileSync(repoPath(file), path.join(root, file));
  }
  const write = (file: string, text: string, mode = 0o644) => {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), text);
    chmodSync(path.join(root, file), mode);
  };
  return {
    root,
    calls: () => readFileSync(log, 'utf8').split('\n').filter(Boolean),
    write,
    run(script, args = [], env = {}) {
      const result = spawnSync('bash', [script, ...args], {
        cwd: root,
        encoding: 'utf8',
        timeout: 60_000,
        env: {
          HOME: process.env.HOME ?? root,
          PATH: [stubs, path.dirname(process.execPath), '/usr/bin', '/bin'].join(':'),
          CALLS_LOG: log,
          ...env,
        },
      });
      return { status: result.status, output: `${result.stdout}${result.stderr}` };
    },
    remove: () => rmSync(root, { recursive: true, force: true }),
  };
}

/** A stub command: logs its call, then runs `body` (bash). */
export function stub(sandbox: ScriptSandbox, name: string, body: string) {
  sandbox.write(`.stubs/${name}`, `#!/bin/bash\necho "${name} $*" >>"$CALLS_LOG"\n${body}\n`, 0o755);
}

/** A stub that must not be called: it fails loudly. */
export function failingStub(sandbox: ScriptSandbox, name: string) {
  stub(sandbox, name, `echo "STUB: ${name} must not be called here" >&2\nexit 97`);
}
