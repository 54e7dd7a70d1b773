// The `ctx` and global `console` of one interpreter (engine.ts): accessors over host functions
// until first use, then the prelude's frozen db, fetch, console and env, each acting for the call
// running when it is used; host answers settled back into the interpreter's promises.
import type { QuickJSContext, QuickJSDeferredPromise, QuickJSHandle } from 'quickjs-emscripten-core';
import { PRELUDE, PRELUDE_FILE } from './prelude.js';
import type { HostCallError, HostKind, LogLevel, RunLimits } from './protocol.js';
import { Outcome } from './run-result.js';
import { currentCall, settle, type Call } from './vm-call.js';

export class CtxBridge {
  private api?: { db: QuickJSHandle; fetch: QuickJSHandle; console: QuickJSHandle; env: QuickJSHandle };
  private replacedConsole?: QuickJSHandle;

  constructor(
    private readonly vm: QuickJSContext,
    private readonly limits: Pick<RunLimits, 'maxLogBytes'>,
    /** The call running now, if any. */
    private readonly active: () => Call | undefined,
    /** Keeps a handle for as long as the interpreter lives. */
    private readonly own: (h: QuickJSHandle) => QuickJSHandle,
  ) {}

  /** Frees what the bridge holds besides the interpreter's own handles. */
  dispose(): void {
    if (this.replacedConsole?.alive) this.replacedConsole.dispose();
  }

  private get current(): Call {
    return currentCall(this.active());
  }

  /**
   * A frozen `ctx` and a global `console` whose members are built on first use: most hooks touch
   * neither, and evaluating the prelude costs more than the rest of a call. Until then they are
   * accessors over host functions; `console` may be replaced like a plain global. `ctx.db`,
   * `ctx.fetch` and `console` act for the call running when they are used; `ctx.env` is that
   * call's secrets.
   */
  lazyApi(): QuickJSHandle {
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
      settle(vm, vm.callFunction(freeze, vm.undefined, ctx)).dispose();
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
  private built(): NonNullable<CtxBridge['api']> {
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
        this.active()?.logs.write(vm.getString(levelHandle) as LogLevel, vm.getString(textHandle));
      });
      scratch.push(log);
      const build = settle(vm, vm.evalCode(PRELUDE, PRELUDE_FILE, { type: 'global' }));
      scratch.push(build);
      const cap = vm.newNumber(this.limits.maxLogBytes);
      scratch.push(cap);
      const made = settle(vm, vm.callFunction(build, vm.undefined, host, log, cap));
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
      call.envHandle = settle(vm, vm.callFunction(this.built().env, vm.undefined, text));
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
}
