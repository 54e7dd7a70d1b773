// One invocation inside a runner: a fresh QuickJS runtime and context (nothing survives between
// calls, so nothing leaks between tenants), the limits set before any tenant code runs (an
// interrupt at the deadline, a memory limit, a stack limit), the module evaluated, its default
// export called with (event, ctx), and the job queue pumped until the promise settles.
import type {
  QuickJSContext,
  QuickJSDeferredPromise,
  QuickJSHandle,
  QuickJSWASMModule,
} from 'quickjs-emscripten-core';
import { PRELUDE, PRELUDE_FILE } from './prelude.js';
import type { DoneMessage, HostCallError, HostKind, LogLevel, LogLine, RunMessage } from './protocol.js';

export const FUNCTION_FILE = 'function.js';
const JOBS_PER_TURN = 256;
const MAX_ERROR_CHARS = 4096;

type Failed = { error: QuickJSHandle; value?: undefined };
export type HostCall = (kind: HostKind, arg: string) => Promise<string>;

class Outcome extends Error {
  constructor(readonly done: Omit<DoneMessage, 't' | 'id' | 'logs' | 'logsTruncated'>) {
    super(done.status);
  }
}

/** True for the error a host-side (V8) stack overflow raises through the WebAssembly frames. */
const hostStackOverflow = (err: unknown) => err instanceof RangeError && /call stack/i.test(err.message);

export async function runInvocation(
  quickjs: QuickJSWASMModule,
  msg: RunMessage,
  hostCall: HostCall,
  /** Told of each line as it is kept (the runner streams them to the parent). */
  onLog?: (line: LogLine) => void,
): Promise<Omit<DoneMessage, 't' | 'id'>> {
  const started = Date.now();
  const deadline = started + msg.limits.deadlineMs;
  const logs = new LogSink(msg.limits.maxLogBytes, started, onLog);
  const rt = quickjs.newRuntime();
  rt.setMemoryLimit(msg.limits.memoryBytes);
  rt.setMaxStackSize(msg.limits.stackBytes);
  rt.setInterruptHandler(() => Date.now() > deadline);
  const vm = rt.newContext();
  const pending = new Set<QuickJSDeferredPromise>();
  let wake: (() => void) | undefined;
  let result: Omit<DoneMessage, 't' | 'id' | 'logs' | 'logsTruncated'>;
  try {
    const value = await evaluate();
    result = { status: 'ok', value, recycle: false };
  } catch (err) {
    if (err instanceof Outcome) result = err.done;
    else if (hostStackOverflow(err))
      result = { status: 'error', error: { message: 'InternalError: stack overflow' }, recycle: true };
    else result = { status: 'crashed', error: { message: 'the runner failed' }, recycle: true };
  }
  if (result.status === 'error' && Date.now() > deadline) result = timeout(msg.limits.deadlineMs);
  try {
    for (const deferred of pending) deferred.dispose();
    vm.dispose();
    rt.dispose();
  } catch {
    result.recycle = true;
  }
  return { ...result, logs: logs.lines, logsTruncated: logs.truncated };

  async function evaluate(): Promise<string> {
    // Every handle is disposed at the end, whichever step threw: a runtime with live objects
    // cannot be freed cleanly.
    const owned: QuickJSHandle[] = [];
    const own = (h: QuickJSHandle) => (owned.push(h), h);
    try {
      const json = own(vm.getProp(vm.global, 'JSON'));
      const parse = own(vm.getProp(json, 'parse'));
      const stringify = own(vm.getProp(json, 'stringify'));
      const ctxHandle = lazyApi(own);
      const exports = own(await pump(own(settle(vm.evalCode(msg.code, FUNCTION_FILE, { type: 'module' })))));
      const fn = own(vm.getProp(exports, 'default'));
      if (vm.typeof(fn) !== 'function') {
        throw new Outcome({
          status: 'error',
          error: {
            message: 'The module must export a default function: export default async (event, ctx) => ...',
          },
          recycle: false,
        });
      }
      const event = own(settle(vm.callFunction(parse, vm.undefined, own(vm.newString(msg.event)))));
      const returned = own(settle(vm.callFunction(fn, vm.undefined, event, ctxHandle)));
      const value = own(await pump(returned));
      return resultText(own(settle(vm.callFunction(stringify, vm.undefined, value))));
    } finally {
      for (const h of owned) if (h.alive) h.dispose();
    }
  }

  /**
   * A frozen `ctx` and a global `console` whose members are built on first use: most hooks touch
   * neither, and evaluating the prelude costs more than the rest of a call. Until then they are
   * accessors over host functions; `console` may be replaced like a plain global.
   */
  function lazyApi(own: (h: QuickJSHandle) => QuickJSHandle): QuickJSHandle {
    let api: { ctx: QuickJSHandle; console: QuickJSHandle } | undefined;
    const built = () => {
      if (!api) {
        try {
          const made = own(buildApi(own));
          api = { ctx: own(vm.getProp(made, 'ctx')), console: own(vm.getProp(made, 'console')) };
        } catch (err) {
          // Out of memory or past the deadline while building: an exception where it was used
          // (only its name and message cross into the interpreter).
          const message =
            err instanceof Outcome ? (err.done.error?.message ?? err.done.status) : 'ctx failed';
          throw new Error(message, { cause: err });
        }
      }
      return api;
    };
    const ctx = own(vm.newObject());
    for (const key of ['db', 'fetch', 'env', 'log'])
      vm.defineProp(ctx, key, { enumerable: true, get: () => vm.getProp(built().ctx, key) });
    const freeze = own(vm.getProp(own(vm.getProp(vm.global, 'Object')), 'freeze'));
    own(settle(vm.callFunction(freeze, vm.undefined, ctx)));
    let replaced: QuickJSHandle | undefined;
    vm.defineProp(vm.global, 'console', {
      configurable: true,
      enumerable: true,
      get: () => (replaced ?? built().console).dup(),
      set: (value: QuickJSHandle) => {
        replaced?.dispose();
        replaced = own(value.dup());
      },
    });
    return ctx;
  }

  /** The prelude's frozen { ctx, console } over the two host functions of this invocation. */
  function buildApi(own: (h: QuickJSHandle) => QuickJSHandle): QuickJSHandle {
    const host = vm.newFunction('host', (kindHandle, argHandle) => {
      const kind = vm.getString(kindHandle) as HostKind;
      const arg = vm.getString(argHandle);
      const deferred = vm.newPromise();
      pending.add(deferred);
      hostCall(kind, arg).then(
        (answer) => settleDeferred(deferred, () => vm.newString(answer), true),
        (err: HostCallError) => settleDeferred(deferred, () => hostError(err), false),
      );
      return deferred.handle;
    });
    const log = vm.newFunction('log', (levelHandle, textHandle) => {
      logs.write(vm.getString(levelHandle) as LogLevel, vm.getString(textHandle));
    });
    own(host);
    own(log);
    const build = own(settle(vm.evalCode(PRELUDE, PRELUDE_FILE, { type: 'global' })));
    const envText = own(vm.newString(JSON.stringify(msg.env)));
    const cap = own(vm.newNumber(msg.limits.maxLogBytes));
    return settle(vm.callFunction(build, vm.undefined, host, log, envText, cap));
  }

  /** Settles a host call's promise; the value handle is made here and freed after use. */
  function settleDeferred(deferred: QuickJSDeferredPromise, make: () => QuickJSHandle, ok: boolean): void {
    if (!pending.has(deferred) || !vm.alive) return;
    pending.delete(deferred);
    let value: QuickJSHandle | undefined;
    try {
      value = make();
      if (ok) deferred.resolve(value);
      else deferred.reject(value);
    } catch {
      // The interpreter ran out of memory building the answer: the pump reports it.
    }
    if (value?.alive) value.dispose();
    deferred.dispose();
    wake?.();
  }

  function hostError(err: HostCallError): QuickJSHandle {
    const error = vm.newError(String(err?.message ?? 'the call failed'));
    for (const [key, value] of [
      ['code', err?.code ? vm.newString(err.code) : undefined],
      ['status', err?.status ? vm.newNumber(err.status) : undefined],
    ] as const) {
      if (!value) continue;
      vm.setProp(error, key, value);
      value.dispose();
    }
    return error;
  }

  /** Unwraps a call result, turning an exception into the invocation's outcome. */
  function settle(result: ReturnType<QuickJSContext['evalCode']> | Failed): QuickJSHandle {
    if (!result.error) return result.value;
    const dumped = vm.dump(result.error) as { name?: string; message?: string; stack?: string } | unknown;
    result.error.dispose();
    throw new Outcome(failure(dumped));
  }

  /** Runs jobs until `handle` (a promise or a plain value) settles, waiting for host answers. */
  async function pump(handle: QuickJSHandle): Promise<QuickJSHandle> {
    for (;;) {
      const state = vm.getPromiseState(handle);
      // A plain value comes back as the same handle; the caller's list disposes it once.
      if (state.type === 'fulfilled') return state.value;
      if (state.type === 'rejected') return settle({ error: state.error } as Failed);
      if (Date.now() > deadline) throw new Outcome(timeout(msg.limits.deadlineMs));
      if (rt.hasPendingJob()) {
        const ran = rt.executePendingJobs(JOBS_PER_TURN);
        if (ran.error) settle({ error: ran.error } as Failed);
        // Let host answers (IPC messages) in between turns of a long promise chain.
        if (pending.size > 0) await new Promise((r) => setImmediate(r));
        continue;
      }
      if (pending.size === 0) {
        throw new Outcome({
          status: 'error',
          error: { message: 'The returned promise never settles (nothing is left that could settle it)' },
          recycle: false,
        });
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.max(0, deadline - Date.now()) + 1);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wake = undefined;
    }
  }

  /** The JSON text of the returned value, refused past the result limit before it is copied out. */
  function resultText(serialized: QuickJSHandle): string {
    if (vm.typeof(serialized) !== 'string') return 'null';
    const lengthHandle = vm.getProp(serialized, 'length');
    const length = vm.getNumber(lengthHandle);
    lengthHandle.dispose();
    const text = length <= msg.limits.maxResultBytes ? vm.getString(serialized) : undefined;
    if (text === undefined || Buffer.byteLength(text) > msg.limits.maxResultBytes) {
      throw new Outcome({
        status: 'error',
        error: { message: `The returned value is larger than ${msg.limits.maxResultBytes} bytes as JSON` },
        recycle: false,
      });
    }
    return text;
  }
}

const timeout = (deadlineMs: number): Omit<DoneMessage, 't' | 'id' | 'logs' | 'logsTruncated'> => ({
  status: 'timeout',
  error: { message: `The function ran past its deadline of ${deadlineMs} ms` },
  recycle: true,
});

/** An exception of the interpreter as an outcome: out of memory is 'memory', anything else 'error'. */
function failure(dumped: unknown): Omit<DoneMessage, 't' | 'id' | 'logs' | 'logsTruncated'> {
  const error =
    dumped && typeof dumped === 'object'
      ? (dumped as { name?: unknown; message?: unknown; stack?: unknown })
      : { message: String(dumped) };
  const name = typeof error.name === 'string' ? error.name : 'Error';
  const message = typeof error.message === 'string' ? error.message : String(error.message ?? dumped);
  const stack = typeof error.stack === 'string' ? tenantStack(error.stack) : undefined;
  if (name === 'InternalError' && message === 'out of memory') {
    return { status: 'memory', error: { message: 'The function ran out of memory' }, recycle: true };
  }
  return {
    status: 'error',
    error: { message: `${name}: ${message}`.slice(0, MAX_ERROR_CHARS), ...(stack ? { stack } : {}) },
    recycle: false,
  };
}

/** The stack without the prelude's frames; the tenant's own lines keep their numbers. */
function tenantStack(stack: string): string | undefined {
  const lines = stack.split('\n').filter((line) => line.trim() && !line.includes(PRELUDE_FILE));
  return lines.length ? lines.join('\n').slice(0, MAX_ERROR_CHARS) : undefined;
}

/** Console output of one invocation, cut at the byte limit with one line saying so. */
class LogSink {
  readonly lines: LogLine[] = [];
  truncated = false;
  private bytes = 0;
  constructor(
    private readonly maxBytes: number,
    private readonly started: number,
    private readonly onLine?: (line: LogLine) => void,
  ) {}

  write(level: LogLevel, message: string): void {
    if (this.truncated) return;
    const size = Buffer.byteLength(message);
    if (this.bytes + size > this.maxBytes) {
      this.truncated = true;
      this.keep({ level: 'warn', message: `[log truncated at ${this.maxBytes} bytes]`, atMs: this.at() });
      return;
    }
    this.bytes += size;
    this.keep({
      level: ['log', 'info', 'warn', 'error'].includes(level) ? level : 'log',
      message,
      atMs: this.at(),
    });
  }

  private keep(line: LogLine): void {
    this.lines.push(line);
    this.onLine?.(line);
  }

  private at(): number {
    return Date.now() - this.started;
  }
}
