// The runner process: started by the pool with an empty environment, it loads QuickJS once and
// runs one invocation at a time as the parent asks. It holds no secrets, no connections and
// none of the parent's objects: ctx.db and ctx.fetch are messages to the parent, answered there.
// It keeps at most one interpreter between calls: the last function version it ran, when that
// call ended cleanly (engine.ts); a call of any other key disposes it first.
import { Interpreter } from './engine.js';
import type { FromRunner, HostCallError, HostKind, RunMessage, ToRunner } from './protocol.js';
import { loadQuickJS } from './quickjs.js';

// The pool passes the WebAssembly memory's maximum, in bytes, as the only argument.
const quickjs = await loadQuickJS(Number(process.argv[2]) || undefined);
const send = (msg: FromRunner) => process.send!(msg);

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
  const done = await interpreter.run(msg, hostCall, (line) => send({ t: 'log', run: msg.id, line }));
  if (done.kept) kept = interpreter;
  current = undefined;
  // With `recycle` set the pool retires this process rather than send it another call.
  send({ t: 'done', id: msg.id, ...done, logs: [] });
}

process.on('message', (msg: ToRunner) => {
  if (msg.t === 'run') {
    if (current) return; // the pool never sends a second call; ignore one if it did
    void run(msg);
  } else if (msg.t === 'host-reply' && current?.id === msg.run) {
    const waiting = current.calls.get(msg.call);
    if (!waiting) return;
    current.calls.delete(msg.call);
    if (msg.error || msg.value === undefined) waiting.reject(msg.error ?? { message: 'no answer' });
    else waiting.resolve(msg.value);
  }
});
process.on('disconnect', () => process.exit(0));
send({ t: 'ready' });
