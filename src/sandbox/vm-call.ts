// One call inside an interpreter, as engine.ts and ctx-bridge.ts share it: what belongs to the
// call, and the steps that move QuickJS along for it (an exception turned into the call's outcome,
// the job queue pumped until a promise settles, the returned value copied out under its limit).
import type {
  QuickJSContext,
  QuickJSDeferredPromise,
  QuickJSHandle,
  QuickJSRuntime,
} from 'quickjs-emscripten-core';
import type { LogSink } from './log-sink.js';
import type { HostKind } from './protocol.js';
import { failure, Outcome, timeout } from './run-result.js';

const JOBS_PER_TURN = 256;

type Failed = { error: QuickJSHandle; value?: undefined };
export type HostCall = (kind: HostKind, arg: string) => Promise<string>;

/** What belongs to one call: its deadline, its console, its host calls in flight, its secrets. */
export interface Call {
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

/** The call running now; anything that acts for a call outside of one is refused. */
export function currentCall(call: Call | undefined): Call {
  if (!call) throw new Error('ctx is usable only during a call');
  return call;
}

/** Unwraps a call result, turning an exception into the invocation's outcome. */
export function settle(
  vm: QuickJSContext,
  result: ReturnType<QuickJSContext['evalCode']> | Failed,
): QuickJSHandle {
  if (!result.error) return result.value;
  const dumped = vm.dump(result.error) as { name?: string; message?: string; stack?: string } | unknown;
  result.error.dispose();
  throw new Outcome(failure(dumped));
}

/** Runs jobs until `handle` (a promise or a plain value) settles, waiting for host answers. */
export async function pump(
  rt: QuickJSRuntime,
  vm: QuickJSContext,
  call: Call,
  handle: QuickJSHandle,
): Promise<QuickJSHandle> {
  for (;;) {
    const state = vm.getPromiseState(handle);
    // A plain value comes back as the same handle; the caller's list disposes it once.
    if (state.type === 'fulfilled') return state.value;
    if (state.type === 'rejected') return settle(vm, { error: state.error } as Failed);
    if (Date.now() > call.deadline) throw new Outcome(timeout(call.deadlineMs));
    if (rt.hasPendingJob()) {
      const ran = rt.executePendingJobs(JOBS_PER_TURN);
      if (ran.error) settle(vm, { error: ran.error } as Failed);
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
export function resultText(vm: QuickJSContext, serialized: QuickJSHandle, max: number): string {
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
