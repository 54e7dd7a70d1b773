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
// Its `ctx` and `console` are ctx-bridge.ts; the steps of one call, vm-call.ts.
import type {
  QuickJSContext,
  QuickJSHandle,
  QuickJSRuntime,
  QuickJSWASMModule,
} from 'quickjs-emscripten-core';
import { CtxBridge } from './ctx-bridge.js';
import { loadDeadlineMs } from './protocol.js';
import { LogSink } from './log-sink.js';
import type { DoneMessage, LogLine, RunLimits, RunMessage } from './protocol.js';
import { hostStackOverflow, Outcome, timeout, type Result } from './run-result.js';
import { currentCall, pump, resultText, settle, type Call, type HostCall } from './vm-call.js';

export type { HostCall } from './vm-call.js';

export const FUNCTION_FILE = 'function.js';
/** Calls one interpreter serves before it is replaced (bounds what its heap accumulates). */
const MAX_CALLS_PER_INTERPRETER = 1000;

export type CallResult = Omit<DoneMessage, 't' | 'id'>;

export class Interpreter {
  private readonly rt: QuickJSRuntime;
  private readonly vm: QuickJSContext;
  /** Handles that live as long as the interpreter. */
  private readonly owned: QuickJSHandle[] = [];
  private loaded?: { fn: QuickJSHandle; ctx: QuickJSHandle; parse: QuickJSHandle; stringify: QuickJSHandle };
  private readonly bridge: CtxBridge;
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
    this.bridge = new CtxBridge(
      this.vm,
      limits,
      () => this.call,
      (h) => this.own(h),
    );
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
    this.bridge.dispose();
    this.vm.dispose();
    this.rt.dispose();
  }

  private get current(): Call {
    return currentCall(this.call);
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
    const ctx = this.own(this.bridge.lazyApi());
    const scratch: QuickJSHandle[] = [];
    try {
      const evaluated = settle(vm, vm.evalCode(this.code, FUNCTION_FILE, { type: 'module' }));
      scratch.push(evaluated);
      const exports = await pump(this.rt, vm, this.current, evaluated);
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
      const event = own(settle(vm, vm.callFunction(parse, vm.undefined, own(vm.newString(eventText)))));
      const returned = own(settle(vm, vm.callFunction(fn, vm.undefined, event, ctx)));
      const value = own(await pump(this.rt, vm, this.current, returned));
      const serialized = own(settle(vm, vm.callFunction(stringify, vm.undefined, value)));
      return resultText(vm, serialized, this.current.maxResultBytes);
    } finally {
      for (const h of owned) if (h.alive) h.dispose();
    }
  }
}
