// A second MongoDB-compatible server for a test (a project's own database): the stack's
// mongo-java-server launcher (scripts/stack/MongoLauncher.java, memory backend) on a free
// loopback port, stopped by the test. Where the stack runs another engine (FerretDB) or an outside
// MONGODB_URI and the launcher's jars are not installed, a TCP proxy on its own loopback port in
// front of the suite's server stands in: another address to the app, the same engine behind it.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { repoPath } from '../../src/lib/paths.js';
import { startTcpProxy } from './tcp-proxy.js';
import { testEnv } from './env.js';

export interface MongoServer {
  readonly port: number;
  /** `mongodb://127.0.0.1:<port>/<database>`. */
  uri(database: string): string;
  stop(): Promise<void>;
}

/** A port nothing listens on right now (closed again before it is returned). */
export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export async function startMongoServer(timeoutMs = 60_000): Promise<MongoServer> {
  const stackDir = process.env.STACK_DIR ?? '.stack';
  const lib = path.join(
    path.isAbsolute(stackDir) ? stackDir : repoPath(stackDir),
    'mongo-java-server',
    'lib',
  );
  if (!existsSync(lib)) return proxyServer();
  const port = await freePort();
  const java = process.env.JAVA_HOME ? path.join(process.env.JAVA_HOME, 'bin', 'java') : 'java';
  const child: ChildProcess = spawn(
    java,
    [
      '-Xmx256m',
      '-XX:+UseSerialGC',
      '-cp',
      `${lib}/*`,
      repoPath('scripts/stack/MongoLauncher.java'),
      'memory',
      String(port),
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`mongo-java-server did not start:\n${output}`)),
      timeoutMs,
    );
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('[mongo] ready')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`mongo-java-server exited with ${code}:\n${output}`));
    });
  });
  return {
    port,
    uri: (database) => `mongodb://127.0.0.1:${port}/${database}`,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

async function proxyServer(): Promise<MongoServer> {
  const first = new URL(
    testEnv.MONGODB_URI!.replace(/^mongodb(\+srv)?:\/\/([^/]*@)?/, 'http://').split(',')[0]!,
  );
  const proxy = await startTcpProxy(first.hostname, Number(first.port || 27017));
  return {
    port: proxy.port,
    uri: (database) => `mongodb://127.0.0.1:${proxy.port}/${database}`,
    stop: () => proxy.close(),
  };
}
