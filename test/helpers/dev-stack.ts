// A development-profile stack of a test's own (scripts/stack.sh ... dev): its own STACK_DIR,
// mongo port and env file, so it never touches the shared test stack nor `npm start`'s. The
// mongo-java-server jars are linked from the repository's stack rather than fetched again.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { repoPath } from '../../src/lib/paths.js';
import { freePort } from './mongo-server.js';

export interface ScriptRun {
  code: number | null;
  output: string;
}

export interface DevStack {
  readonly dir: string;
  readonly port: number;
  readonly uri: string;
  /** Environment for scripts/stack.sh and scripts/start.sh run on this stack. */
  readonly env: NodeJS.ProcessEnv;
  stack(command: 'start' | 'stop' | 'status'): Promise<ScriptRun>;
  /** The pid in the mongo pid file, or undefined. */
  mongoPid(): number | undefined;
  /** Stops whatever is left and removes the folder. */
  remove(): Promise<void>;
}

const sharedJars = () => {
  const stackDir = process.env.STACK_DIR ?? '.stack';
  return path.join(path.isAbsolute(stackDir) ? stackDir : repoPath(stackDir), 'mongo-java-server');
};

/** Whether the mongo-java-server jars are installed (not with FerretDB or an outside MONGODB_URI). */
export const devStackAvailable = () => existsSync(path.join(sharedJars(), 'lib', '.installed'));

/** Runs a command to its end, output (stdout and stderr interleaved) kept. */
export function runScript(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<ScriptRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: repoPath(), env, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, output }));
  });
}

export async function createDevStack(): Promise<DevStack> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'dev-stack-'));
  symlinkSync(sharedJars(), path.join(dir, 'mongo-java-server'));
  const port = await freePort();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    STACK_DIR: dir,
    STACK_MONGO_PORT: String(port),
    STACK_ENV_FILE: path.join(dir, '.env.dev'),
    STACK_MONGO_JAVA_OPTS: '-Xmx256m -XX:+UseSerialGC',
  };
  // The test stack's settings are in this process's environment: none of them is this stack's.
  delete env.MONGODB_URI;
  const stack: DevStack = {
    dir,
    port,
    uri: `mongodb://127.0.0.1:${port}/?directConnection=true`,
    env,
    stack: (command) => runScript('bash', ['scripts/stack.sh', command, 'dev'], env),
    mongoPid() {
      try {
        const pid = Number(readFileSync(path.join(dir, 'dev', 'mongo.pid'), 'utf8').trim());
        return pid > 0 ? pid : undefined;
      } catch {
        return undefined;
      }
    },
    async remove() {
      await stack.stack('stop').catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return stack;
}
