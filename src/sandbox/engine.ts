// The interpreter of one function inside a runner: a QuickJS runtime and context with the limits
// set before any tenant code runs (an interrupt at the call's deadline, a memory limit, a stack
// limit), the module evaluated once, and its default export called with (event, ctx) for each
// call, the job queue pumped until the promise settles.
//
// An interpreter serves one function version of one project (its `key`), never another: after a
// call that ended cleanly it may be kept for the next call with the same key, as Lambda and
// Workers keep an instance warm, so module state of that version may persist between its calls.
// Anything else (an error, a limit, a call that left promise jobs or host calls behind, no key)
// disposes it; the runner holds at most one, so no two tenants' heaps are ever alive together.
import type {
  QuickJSContext,
  QuickJSDeferredPromise,
  QuickJSHandle,
  QuickJSRuntime,
  QuickJSWASMModule,
} from 'quickjs-emscripten-core';
import { loadDeadlineMs } from './protocol.js';
import { LogSink } from './log-sink.js';
import { PRELUDE, PRELUDE_FILE } from './prelude.js';
import type {
  DoneMessage,
  HostCallError,
  HostKind,
  LogLevel,
  LogLine,
  RunLimits,
  RunMessage,
} from './protocol.js';
import { failure, hostStackOverflow, Outcome, timeout, type Result } from './run-result.js';

export const FUNCTION_FILE = 'function.js';
const JOBS_PER_TURN = 256;
/** Calls one interpreter serves before it is replaced (bounds what its heap accumulates). */
const MAX_CALLS_PER_INTERPRETER = 1000;

type Failed = { error: QuickJSHandle; value?: undefined };
export type HostCall = (kind: HostKind, arg: string) => Promise<string>;
export type CallResult = Omit<DoneMessage, 't' | 'id'>;

/** What belongs to one call: its deadline, its console, its host calls in flight, its secrets. */
interface Call {
  deadline: number;
  deadlineMs: number;
  maxResultBytes: number;
  logs: LogSink;
  hostCall: HostCall;
  pending: Set<QuickJSDeferredPromise>;
  env: Record<string, string>;
  envHandle?: QuickJSHandle;
  wake?: () => void;
}

export class Interpreter {
  private readonly rt: QuickJSRuntime;
  private readonly vm: QuickJSContext;
  /** Handles that live as long as the interpreter. */
  private readonly owned: QuickJSHandle[] = [];
  private loaded?: { fn: QuickJSHandle; ctx: QuickJSHandle; parse: QuickJSHandle; stringify: QuickJSHandle };
  private api?: { db: QuickJSHandle; fetch: QuickJSHandle; console: QuickJSHandle; env: QuickJSHandle };
  private replacedConsole?: QuickJSHandle;
  private call?: Call;
  private calls = 0;
  private disposed = false;

  constructor(
    quickjs: QuickJSWASMModule,
    /** The function version it serves; undefined: one call only. */
    readonly key: string | undefined,
    private readonly code: string,
    private readonly limits: Pick<RunLimits, 'memoryBytes' | 'stackBytes' | 'maxLogBytes'>,
  ) {
    this.rt = quickjs.newRuntime();
    this.rt.setMemoryLimit(limits.memoryBytes);
    this.rt.setMaxStackSize(limits.stackBytes);
    // Between calls nothing runs; were anything to, it would be interrupted at once.
    this.rt.setInterruptHandler(() => !this.call || Date.now() > this.call.deadline);
    this.vm = this.rt.newContext();
  }

  /** Whether this interpreter may serve `msg`: the same function version, under the same limits. */
  serves(msg: RunMessage): boolean {
    return (
      !this.disposed &&
      msg.key !== undefined &&
      msg.key === this.key &&
      msg.limits.memoryBytes === this.limits.memoryBytes &&
      msg.limits.stackBytes === this.limits.stackBytes &&
      msg.limits.maxLogBytes === this.limits.maxLogBytes
    );
  }

  /**
   * Runs one call. `kept` in the answer says the interpreter stays for the next call of its key;
   * otherwise it has been disposed.
   */
  async run(
    msg: RunMessage,
    hostCall: HostCall,
    onLog?: (line: LogLine) => void,
    onStart?: () => void,
  ): Promise<CallResult> {
    const started = Date.now();
    const call: Call = {
      deadline: started + (this.loaded ? msg.limits.deadlineMs : loadDeadlineMs(msg.limits.deadlineMs)),
      deadlineMs: msg.limits.deadlineMs,
      maxResultBytes: msg.limits.maxResultBytes,
      logs: new LogSink(msg.limits.maxLogBytes, started, onLog),
      hostCall,
      pending: new Set(),
      env: msg.env,
    };
    this.call = call;
    this.calls++;
    let result: Result;
    try {
      if (!this.loaded) {
        // A cold start: evaluating the module has a deadline of its own, and the call
        // then gets its whole deadline, so a slow module never eats the caller's time budget.
        await this.load();
        call.deadline = Date.now() + msg.limits.deadlineMs;
        onStart?.();
      }
      // A version just saved: the module is evaluated and kept, nothing is called.
      const value = msg.prepare ? 'null' : await this.invoke(msg.event);
      result = { status: 'ok', value, recycle: false };
    } catch (err) {
      if (err instanceof Outcome) result = err.done;
      else if (hostStackOverflow(err))
        result = { status: 'error', error: { message: 'InternalError: stack overflow' }, recycle: true };
      else result = { status: 'crashed', error: { message: 'the runner failed' }, recycle: true };
    }
    if (result.status === 'error' && Date.now() > call.deadline) result = timeout(call.deadlineMs);
    // Kept only when the call left nothing behind that could run in a later one.
    let kept =
      result.status === 'ok' &&
      this.key !== undefined &&
      this.calls < MAX_CALLS_PER_INTERPRETER &&
      call.pending.size === 0 &&
      !this.rt.hasPendingJob();
    try {
      for (const deferred of call.pending) deferred.dispose();
      call.pending.clear();
      if (call.envHandle?.alive) call.envHandle.dispose();
    } catch {
      kept = false;
    }
    this.call = undefined;
    if (!kept) {
      try {
        this.dispose();
      } catch {
        result.recycle = true;
      }
    }
    return { ...result, logs: call.logs.lines, logsTruncated: call.logs.truncated, kept };
  }

  /** Frees the interpreter (throws when QuickJS cannot free it cleanly: the runner is then replaced). */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    for (const h of this.owned) if (h.alive) h.dispose();
    if (this.replacedConsole?.alive) this.replacedConsole.dispose();
    this.vm.dispose();
    this.rt.dispose();
  }

  private get current(): Call {
    if (!this.call) throw new Error('ctx is usable only during a call');
    return this.call;
  }

  private own(h: QuickJSHandle): QuickJSHandle {
    this.owned.push(h);
    return h;
  }

  /** Evaluates the module once: its default export, `ctx` and the global `console`. */
  private async load(): Promise<NonNullable<Interpreter['loaded']>> {
    const vm = this.vm;
    const json = vm.getProp(vm.global, 'JSON');
    const parse = this.own(vm.getProp(json, 'parse'));
    const stringify = this.own(vm.getProp(json, 'stringify'));
    json.dispose();
    const ctx = this.own(this.lazyApi());
    const scratch: QuickJSHandle[] = [];
    try {
      const evaluated = this.settle(vm.evalCode(this.code, FUNCTION_FILE, { type: 'module' }));
      scratch.push(evaluated);
      const exports = await this.pump(evaluated);
      scratch.push(exports);
      const fn = this.own(vm.getProp(exports, 'default'));
      if (vm.typeof(fn) !== 'function') {
        throw new Outcome({
          status: 'error',
          error: {
            message: 'The module must export a default function: export default async (event, ctx) => ...',
          },
          recycle: false,
        });
      }
      return (this.loaded = { fn, ctx, parse, stringify });
    } finally {
      for (const h of scratch) if (h.alive) h.dispose();
    }
  }

  /** One call of the default export with the event, its value as JSON text. */
  private async invoke(eventText: string): Promise<string> {
    const vm = this.vm;
    const { fn, ctx, parse, stringify } = this.loaded ?? (await this.load());
    // Every handle of the call is disposed at the end, whichever step threw.
    const owned: QuickJSHandle[] = [];
    const own = (h: QuickJSHandle) => (owned.push(h), h);
    try {
      const event = own(this.settle(vm.callFunction(parse, vm.undefined, own(vm.newString(eventText)))));
      const returned = own(this.settle(vm.callFunction(fn, vm.undefined, event, ctx)));
      const value = own(await this.pump(returned));
      return this.resultText(own(this.settle(vm.callFunction(stringify, vm.undefined, value))));
    } finally {
      for (const h of owned) if (h.alive) h.dispose();
    }
  }

  /**
   * A frozen `ctx` and a global `console` whose members are built on first use: most hooks touch
   * neither, and evaluating the prelude costs more than the rest of a call. Until then they are
   * accessors over host functions; `console` may be replaced like a plain global. `ctx.db`,
   * `ctx.fetch` and `console` act for the call running when they are used; `ctx.env` is that
   * call's secrets.
   */
  private lazyApi(): QuickJSHandle {
    const vm = this.vm;
    const ctx = vm.newObject();
    const members = {
      db: () => this.built().db.dup(),
      fetch: () => this.built().fetch.dup(),
      env: () => this.envOf(this.current).dup(),
      log: () => vm.getProp(this.built().console, 'log'),
    };
    for (const [key, get] of Object.entries(members)) vm.defineProp(ctx, key, { enumerable: true, get });
    const object = vm.getProp(vm.global, 'Object');
    const freeze = vm.getProp(object, 'freeze');
    try {
      this.settle(vm.callFunction(freeze, vm.undefined, ctx)).dispose();
    } finally {
      freeze.dispose();
      object.dispose();
    }
    vm.defineProp(vm.global, 'console', {
      configurable: true,
      enumerable: true,
      get: () => (this.replacedConsole ?? this.built().console).dup(),
      set: (value: QuickJSHandle) => {
        this.replacedConsole?.dispose();
        this.replacedConsole = value.dup();
      },
    });
    return ctx;
  }

  /** The prelude's frozen db, fetch, console and env maker, built once per interpreter. */
  private built(): NonNullable<Interpreter['api']> {
    if (this.api) return this.api;
    const vm = this.vm;
    const scratch: QuickJSHandle[] = [];
    try {
      const host = vm.newFunction('host', (kindHandle, argHandle) => {
        const call = this.current;
        const kind = vm.getString(kindHandle) as HostKind;
        const arg = vm.getString(argHandle);
        const deferred = vm.newPromise();
        call.pending.add(deferred);
        call.hostCall(kind, arg).then(
          (answer) => this.settleDeferred(call, deferred, () => vm.newString(answer), true),
          (err: HostCallError) => this.settleDeferred(call, deferred, () => this.hostError(err), false),
        );
        return deferred.handle;
      });
      scratch.push(host);
      const log = vm.newFunction('log', (levelHandle, textHandle) => {
        this.call?.logs.write(vm.getString(levelHandle) as LogLevel, vm.getString(textHandle));
      });
      scratch.push(log);
      const build = this.settle(vm.evalCode(PRELUDE, PRELUDE_FILE, { type: 'global' }));
      scratch.push(build);
      const cap = vm.newNumber(this.limits.maxLogBytes);
      scratch.push(cap);
      const made = this.settle(vm.callFunction(build, vm.undefined, host, log, cap));
      scratch.push(made);
      const part = (name: string) => this.own(vm.getProp(made, name));
      this.api = { db: part('db'), fetch: part('fetch'), console: part('console'), env: part('env') };
      return this.api;
    } catch (err) {
      // Out of memory or past the deadline while building: an exception where it was used (only
      // its name and message cross into the interpreter).
      const message = err instanceof Outcome ? (err.done.error?.message ?? err.done.status) : 'ctx failed';
      throw new Error(message, { cause: err });
    } finally {
      for (const h of scratch) if (h.alive) h.dispose();
    }
  }

  /** The call's secrets as a frozen object, made when first read. */
  private envOf(call: Call): QuickJSHandle {
    if (call.envHandle?.alive) return call.envHandle;
    const vm = this.vm;
    const text = vm.newString(JSON.stringify(call.env));
    try {
      call.envHandle = this.settle(vm.callFunction(this.built().env, vm.undefined, text));
      return call.envHandle;
    } finally {
      text.dispose();
    }
  }

  /** Settles a host call's promise; the value handle is made here and freed after use. */
  private settleDeferred(
    call: Call,
    deferred: QuickJSDeferredPromise,
    make: () => QuickJSHandle,
    ok: boolean,
  ): void {
    if (!call.pending.has(deferred) || !this.vm.alive) return;
    call.pending.delete(deferred);
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
    call.wake?.();
  }

  private hostError(err: HostCallError): QuickJSHandle {
    const vm = this.vm;
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
  private settle(result: ReturnType<QuickJSContext['evalCode']> | Failed): QuickJSHandle {
    if (!result.error) return result.value;
    const dumped = this.vm.dump(result.error) as
      { name?: string; message?: string; stack?: string } | unknown;
    result.error.dispose();
    throw new Outcome(failure(dumped));
  }

  /** Runs jobs until `handle` (a promise or a plain value) settles, waiting for host answers. */
  private async pump(handle: QuickJSHandle): Promise<QuickJSHandle> {
    const call = this.current;
    for (;;) {
      const state = this.vm.getPromiseState(handle);
      // A plain value comes back as the same handle; the caller's list disposes it once.
      if (state.type === 'fulfilled') return state.value;
      if (state.type === 'rejected') return this.settle({ error: state.error } as Failed);
      if (Date.now() > call.deadline) throw new Outcome(timeout(call.deadlineMs));
      if (this.rt.hasPendingJob()) {
        const ran = this.rt.executePendingJobs(JOBS_PER_TURN);
        if (ran.error) this.settle({ error: ran.error } as Failed);
        // Let host answers (IPC messages) in between turns of a long promise chain.
        if (call.pending.size > 0) await new Promise((r) => setImmediate(r));
        continue;
      }
      if (call.pending.size === 0) {
        throw new Outcome({
          status: 'error',
          error: { message: 'The returned promise never settles (nothing is left that could settle it)' },
          recycle: false,
        });
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, Math.max(0, call.deadline - Date.now()) + 1);
        call.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      call.wake = undefined;
    }
  }

  /** The JSON text of the returned value, refused past the result limit before it is copied out. */
  private resultText(serialized: QuickJSHandle): string {
    const vm = this.vm;
    const max = this.current.maxResultBytes;
    if (vm.typeof(serialized) !== 'string') return 'null';
    const lengthHandle = vm.getProp(serialized, 'length');
    const length = vm.getNumber(lengthHandle);
    lengthHandle.dispose();
    const text = length <= max ? vm.getString(serialized) : undefined;
    if (text === undefined || Buffer.byteLength(text) > max) {
      throw new Outcome({
        status: 'error',
        error: { message: `The returned value is larger than ${max} bytes as JSON` },
        recycle: false,
      });
    }
    return text;
  }
}
