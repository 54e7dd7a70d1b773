// Starting runner processes without forking the service. A fork copies the forking process's
// page tables, which blocks its event loop for as long as its memory is large (measured: 3 ms for
// a 60 MB process, 28 ms for 680 MB), and the pool replaces a runner after every call that hit a
// limit: a tenant making that happen many times a second would stall every tenant's requests.
// So the service forks one small spawner process, once (spawner.ts); the spawner starts the
// runners, and each runner connects back to the service over a Unix socket in a directory only
// this user may enter, presenting the one-time token it was started with. The messages are JSON
// lines, as on Node's own IPC channel.
import { fork, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { jsonLines, type Channel } from './channel.js';
import type { FromRunner, FromSpawner, ReadyMessage, ToRunner, ToSpawner } from './protocol.js';

/** Past this, a line from a runner ends it: a call's answer is capped far below (1 MiB, 4 MiB). */
const MAX_LINE_BYTES = 16 * 1024 * 1024;
/** A runner that has not presented its token this long after it connected is dropped. */
const HELLO_TIMEOUT_MS = 10_000;
/** A spawner that failed is started again after this. */
const SPAWNER_RETRY_MS = 1000;

/** A module beside this one: `name.ts` under tsx (tests), `name.js` once compiled. */
function besideThis(name: string): string {
  return fileURLToPath(import.meta.url).replace(/launcher\.(ts|js)$/, `${name}.$1`);
}

export interface RunnerEvents {
  /** The runner connected and presented its token: it is ready for calls. */
  ready(): void;
  message(msg: Exclude<FromRunner, ReadyMessage>): void;
  /** Once, when it is gone (exited, killed, its connection lost) or could not start. */
  exit(code: number | null, signal: NodeJS.Signals | null): void;
}

/** One runner process as the pool sees it. */
export class RunnerProcess {
  pid?: number;
  private socket?: Socket;
  private channel?: Channel<ToRunner>;
  private gone = false;

  constructor(
    readonly token: string,
    private readonly events: RunnerEvents,
  ) {}

  get exited(): boolean {
    return this.gone;
  }

  send(msg: ToRunner, onError?: (err: Error) => void): void {
    if (!this.channel) return onError?.(new Error('the runner is not connected'));
    this.channel.send(msg, onError);
  }

  /** SIGKILL, and the connection dropped: `exit` follows at once. */
  kill(): void {
    if (this.gone) return;
    try {
      if (this.pid) process.kill(this.pid, 'SIGKILL');
    } catch {
      // already gone
    }
    this.socket?.destroy();
    this.exit(null, 'SIGKILL');
  }

  /** @internal the launcher's */
  attach(socket: Socket, pid: number): void {
    this.socket = socket;
    this.pid = pid;
    socket.unref();
    socket.on('close', () => this.exit(null, null));
    this.channel = jsonLines<FromRunner, ToRunner>(
      socket,
      (msg) => {
        if (msg.t !== 'ready') this.events.message(msg);
      },
      MAX_LINE_BYTES,
      () => this.kill(),
    );
    this.events.ready();
  }

  /** @internal */
  exit(code: number | null, signal: NodeJS.Signals | null): void {
    if (this.gone) return;
    this.gone = true;
    this.socket?.destroy();
    this.events.exit(code, signal);
  }
}

export class RunnerLauncher {
  private dir?: string;
  private server?: Server;
  private listening?: Promise<void>;
  private spawner?: ChildProcess;
  private spawnerFailedAt = 0;
  /** Started and not yet exited, by token. */
  private readonly runners = new Map<string, RunnerProcess>();
  /** Connections that have not yet presented a token. */
  private readonly unnamed = new Set<Socket>();
  private closed = false;

  constructor(
    /** Arguments every runner gets before the socket's path. */
    private readonly runnerArgs: string[],
    private readonly warn?: (message: string, fields: Record<string, unknown>) => void,
  ) {}

  /** Starts one runner; its events say when it is ready and when it is gone. */
  launch(events: RunnerEvents): RunnerProcess {
    const token = randomBytes(16).toString('hex');
    const runner = new RunnerProcess(token, {
      ...events,
      exit: (code, signal) => {
        this.runners.delete(token);
        events.exit(code, signal);
      },
    });
    this.runners.set(token, runner);
    if (this.closed) {
      queueMicrotask(() => runner.exit(null, null));
      return runner;
    }
    this.listen()
      .then(() => {
        const spawner = this.spawnerProcess();
        if (!spawner) throw new Error('no spawner');
        const msg: ToSpawner = {
          t: 'spawn',
          token,
          entry: besideThis('runner'),
          args: [...this.runnerArgs, this.socketPath()],
        };
        spawner.send(msg, (err) => err && runner.exit(null, null));
      })
      .catch((err: unknown) => {
        // No socket (TMPDIR not writable) or no spawner: the pool retries at a slow pace.
        this.warn?.('function runner could not be started', { err: String(err) });
        runner.exit(null, null);
      });
    return runner;
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const runner of [...this.runners.values()]) runner.kill();
    for (const socket of this.unnamed) socket.destroy();
    this.spawner?.kill('SIGKILL');
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
    if (this.dir) rmSync(this.dir, { recursive: true, force: true });
  }

  private socketPath(): string {
    return join(this.dir!, 'runners.sock');
  }

  private listen(): Promise<void> {
    this.listening ??= new Promise<void>((resolve, reject) => {
      // mkdtemp makes the directory 0700: no other user can reach the socket inside.
      this.dir = mkdtempSync(join(tmpdir(), 'mbp-sandbox-'));
      const server = createServer((socket) => this.accept(socket));
      server.once('error', reject);
      server.listen(this.socketPath(), () => {
        server.off('error', reject);
        server.on('error', (err) => this.warn?.('function runner socket failed', { err: String(err) }));
        resolve();
      });
      server.unref();
      this.server = server;
    });
    return this.listening;
  }

  /** A new connection: it must present the token of a runner started and not yet connected. */
  private accept(socket: Socket): void {
    socket.unref();
    socket.setEncoding('utf8');
    let first = '';
    this.unnamed.add(socket);
    socket.once('close', () => this.unnamed.delete(socket));
    const drop = () => socket.destroy();
    const timer = setTimeout(drop, HELLO_TIMEOUT_MS);
    timer.unref();
    const onData = (chunk: string) => {
      const end = chunk.indexOf('\n');
      if (end < 0) {
        first += chunk;
        if (first.length > 1024) drop();
        return;
      }
      socket.off('data', onData);
      clearTimeout(timer);
      this.unnamed.delete(socket);
      const line = first + chunk.slice(0, end);
      const rest = chunk.slice(end + 1);
      let hello: Partial<ReadyMessage> | undefined;
      try {
        hello = JSON.parse(line) as Partial<ReadyMessage>;
      } catch {
        return drop();
      }
      const runner = typeof hello?.token === 'string' ? this.runners.get(hello.token) : undefined;
      if (hello?.t !== 'ready' || !runner || runner.pid !== undefined || typeof hello.pid !== 'number')
        return drop();
      // A runner sends nothing after `ready` until it is given a call, so `rest` is empty.
      if (rest) return drop();
      runner.attach(socket, hello.pid);
    };
    socket.on('data', onData);
    socket.on('error', drop);
  }

  /** The spawner, forked on first use and again (not more than once a second) after it died. */
  private spawnerProcess(): ChildProcess | undefined {
    if (this.spawner && this.spawner.exitCode === null && this.spawner.signalCode === null)
      return this.spawner;
    if (Date.now() - this.spawnerFailedAt < SPAWNER_RETRY_MS) return undefined;
    const spawner = fork(besideThis('spawner'), [], {
      env: {},
      execArgv: process.execArgv.filter((arg) => !arg.startsWith('--inspect')),
      stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
      serialization: 'json',
    });
    spawner.unref();
    spawner.channel?.unref();
    spawner.on('message', (msg: FromSpawner) => {
      const runner = this.runners.get(msg.token);
      if (!runner) return;
      if (msg.t === 'exit') runner.exit(msg.code, msg.signal);
    });
    spawner.on('error', () => spawner.kill('SIGKILL'));
    spawner.once('exit', (code, signal) => {
      if (this.spawner === spawner) this.spawner = undefined;
      if (this.closed) return;
      this.spawnerFailedAt = Date.now();
      this.warn?.('function runner spawner stopped', { code, signal });
      // Runners it started and that never connected will not: they are gone for the pool.
      for (const runner of [...this.runners.values()]) if (runner.pid === undefined) runner.exit(null, null);
    });
    this.spawner = spawner;
    return spawner;
  }
}
