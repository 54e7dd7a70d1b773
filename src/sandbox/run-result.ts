// How one call inside a runner ends when it does not return a value: the outcome an exception of
// the interpreter becomes (out of memory, or an error with the tenant's own stack lines), and
// the outcome of a call past its deadline.
import { PRELUDE_FILE } from './prelude.js';
import type { DoneMessage } from './protocol.js';

const MAX_ERROR_CHARS = 4096;

/** A call's end as the runner reports it (its log lines and `kept` are added by the caller). */
export type Result = Omit<DoneMessage, 't' | 'id' | 'logs' | 'logsTruncated' | 'kept'>;

/** Thrown inside the engine to end a call with `done`. */
export class Outcome extends Error {
  constructor(readonly done: Result) {
    super(done.status);
  }
}

/** True for the error a host-side (V8) stack overflow raises through the WebAssembly frames. */
export const hostStackOverflow = (err: unknown) =>
  err instanceof RangeError && /call stack/i.test(err.message);

export const timeout = (deadlineMs: number): Result => ({
  status: 'timeout',
  error: { message: `The function ran past its deadline of ${deadlineMs} ms` },
  recycle: true,
});

/** An exception of the interpreter as an outcome: out of memory is 'memory', anything else 'error'. */
export function failure(dumped: unknown): Result {
  const error =
    dumped && typeof dumped === 'object'
      ? (dumped as { name?: unknown; message?: unknown; stack?: unknown })
      : { message: String(dumped) };
  const name = typeof error.name === 'string' ? error.name : 'Error';
  const message = typeof error.message === 'string' ? error.message : String(error.message ?? dumped);
  const stack = typeof error.stack === 'string' ? tenantStack(error.stack) : undefined;
  // QuickJS reports running out of memory as an InternalError when it can still build one, and
  // with no exception value at all (null) when even that allocation failed.
  if ((name === 'InternalError' && message === 'out of memory') || dumped === null || dumped === undefined) {
    // The interpreter refused the allocation and is disposed; the pool replaces the runner only
    // if its memory grew (a WebAssembly memory never shrinks).
    return { status: 'memory', error: { message: 'The function ran out of memory' }, recycle: false };
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
