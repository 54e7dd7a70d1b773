// The command-line tool as a subprocess: built once per suite from cli/ into a package folder of
// the suite's own (cli/dist is rebuilt by other work, scripts/build-clients.sh), run in a folder of
// its own with its own HOME and config folder, and only the environment a test gives it.
import { execFile, spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { cp, mkdtemp, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { repoPath } from '../../src/lib/paths.js';

let packageDir = '';
/** The built package (package.json, README.md, schema/, dist/), as `npm pack` of cli/ would hold it. */
export const cliPackage = () => packageDir;
export const cliMain = () => path.join(packageDir, 'dist', 'main.js');

export async function buildCli(): Promise<string> {
  if (packageDir) return packageDir;
  const root = await mkdtemp(path.join(tmpdir(), 'mongobaas-cli-build-'));
  // Shared by the suites of one test run, removed when it ends.
  process.once('exit', () => rmSync(root, { recursive: true, force: true }));
  const dir = path.join(root, 'cli');
  for (const part of ['package.json', 'README.md', 'schema'])
    await cp(repoPath('cli', part), path.join(dir, part), { recursive: true });
  // Its dependencies are the repository's (as an install of the package would bring them).
  await symlink(repoPath('node_modules'), path.join(dir, 'node_modules'));
  await promisify(execFile)(process.execPath, [
    repoPath('node_modules/typescript/bin/tsc'),
    '-p',
    repoPath('cli/tsconfig.json'),
    '--outDir',
    path.join(dir, 'dist'),
  ]);
  packageDir = dir;
  return dir;
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `mongobaas <args>` in `dir` (HOME `home`, by default `dir`); `input` is written to its standard input. */
export function runCli(
  dir: string,
  args: string[],
  env: Record<string, string> = {},
  input?: string,
  home = dir,
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cliMain(), ...args], {
      cwd: dir,
      env: { PATH: process.env.PATH, HOME: home, XDG_CONFIG_HOME: path.join(home, 'config'), ...env },
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? 1, stdout, stderr }));
    child.stdin.end(input ?? '');
  });
}
