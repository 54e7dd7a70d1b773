// The runner process: started by the spawner with an empty environment, it loads QuickJS once,
// connects to the service's socket with the one-time token it was given, and runs one invocation
// at a time as the service asks. It holds no secrets, no connections but that one and none of the
// service's objects: ctx.db and ctx.fetch are messages to the service, answered there.
// It keeps at most one interpreter between calls: the last function version it ran, when that
// call ended cleanly (engine.ts); a call of any other key disposes it first.
import { connect } from 'node:net';
import { jsonLines } from './channel.js';
import { Interpreter } from './engine.js';
import type { FromRunner, HostCallError, HostKind, RunMessage, ToRunner } from './protocol.js';
import { loadQuickJS } from './quickjs.js';

// The WebAssembly memory's maximum in bytes and the service's socket; this runner's one-time
// token comes on standard input (arguments are readable by every user of the machine).
const [wasmMemoryBytes, socketPath] = process.argv.slice(2);
/** What the service sends at most in one message: a module's code and an event, far below it. */
const MAX_LINE_BYTES = 64 * 1024 * 1024;

const token = await readToken();
const quickjs = await loadQuickJS(Number(wasmMemoryBytes) || undefined);
const socket = connect(socketPath!);
// The service is gone, or dropped this runner: nothing is left to do.
socket.on('close', () => process.exit(0));
socket.on('error', () => process.exit(0));
const channel = jsonLines<ToRunner, FromRunner>(socket, onMessage, MAX_LINE_BYTES, () => process.exit(1));
const send = (msg: FromRunner) => channel.send(msg);

/** The first line of standard input, which is then closed. */
async function readToken(): Promise<string> {
  let text = '';
  process.stdin.setEncoding('utf8');
  for await (const chunk of process.stdin) {
    text += chunk as string;
    if (text.includes('\n') || text.length > 256) break;
  }
  process.stdin.destroy();
  return text.split('\n')[0]!.trim();
}

interface Waiting {
  resolve: (text: string) => void;
  reject: (err: HostCallError) => void;
}

let current: { id: number; calls: Map<number, Waiting>; next: number } | undefined;
let kept: Interpreter | undefined;

/** The interpreter for the call: the kept one when it serves this key, otherwise a new one. */
function interpreterFor(msg: RunMessage): Interpreter | string {
  if (kept?.serves(msg)) return kept;
  const previous = kept;
  kept = undefined;
  // Throws when QuickJS cannot free it cleanly: the caller replaces this runner.
  previous?.dispose();
  if (msg.code === undefined) return 'The runner has no code for this call';
  return new Interpreter(quickjs, msg.key, msg.code, msg.limits);
}

async function run(msg: RunMessage): Promise<void> {
  const invocation = { id: msg.id, calls: new Map<number, Waiting>(), next: 1 };
  current = invocation;
  const hostCall = (kind: HostKind, arg: string) =>
    new Promise<string>((resolve, reject) => {
      const call = invocation.next++;
      invocation.calls.set(call, { resolve, reject });
      send({ t: 'host', run: msg.id, call, kind, arg });
    });
  let interpreter: Interpreter | string;
  try {
    interpreter = interpreterFor(msg);
  } catch {
    interpreter = 'The runner could not make an interpreter';
  }
  if (typeof interpreter === 'string') {
    current = undefined;
    send({
      t: 'done',
      id: msg.id,
      status: 'crashed',
      error: { message: interpreter },
      logs: [],
      logsTruncated: false,
      recycle: true,
      kept: false,
    });
    return;
  }
  // Each line goes out as it is written (an IPC write is attempted at once, even while the code
  // spins after it), so a call killed by the parent keeps its lines; `done` carries none again.
  const done = await interpreter.run(
    msg,
    hostCall,
    (line) => send({ t: 'log', run: msg.id, line }),
    () => send({ t: 'started', run: msg.id }),
  );
  if (done.kept) kept = interpreter;
  current = undefined;
  // With `recycle` set the pool retires this process rather than send it another call.
  send({ t: 'done', id: msg.id, ...done, logs: [] });
}

function onMessage(msg: ToRunner): void {
  if (msg.t === 'run') {
    if (current) return; // the service never sends a second call; ignore one if it did
    void run(msg);
  } else if (msg.t === 'host-reply' && current?.id === msg.run) {
    const waiting = current.calls.get(msg.call);
    if (!waiting) return;
    current.calls.delete(msg.call);
    if (msg.error || msg.value === undefined) waiting.reject(msg.error ?? { message: 'no answer' });
    else waiting.resolve(msg.value);
  }
}

send({ t: 'ready', token, pid: process.pid });
