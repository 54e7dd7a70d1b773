// The deadline of operations on projects' own deployments (DECISIONS §7): a deployment that
// accepts connections and never answers must cost a request its deadline, not forever. The pools
// mark each database they hand out with its deadline (external-databases.ts); the data layer
// bounds every operation on a marked database with an abort signal whose reason is
// ExternalDbTimeoutError, which the error middleware answers with a 504 (errors.ts). The driver's
// own `timeoutMS` (CSOT) is ignored by the installed driver (6.22 declares it "has no effect"), so
// an abort signal it is; the pools' socket timeout is the backstop for the rest.
import { MongoNetworkTimeoutError, type Collection, type Db } from 'mongodb';

/** An operation on a project's own database did not end within its deadline. */
export class ExternalDbTimeoutError extends Error {
  readonly code = 'EXTERNAL_DB_TIMEOUT';
  constructor(readonly timeoutMs: number) {
    super(`the project's own database did not answer within ${timeoutMs} ms`);
    this.name = 'ExternalDbTimeoutError';
  }
}

/**
 * The abort signal as a write's option: the driver (6.22) honours `signal` on every operation
 * (execute_operation), though its types declare it on reads only.
 */
export const abortable = (signal?: AbortSignal): object => (signal ? { signal } : {});

const deadlines = new WeakMap<Db | Collection, number>();

/** Marks a database (or a collection handle of it) as a project's own, with its deadline. */
export function markExternal(target: Db | Collection, timeoutMs: number): void {
  deadlines.set(target, timeoutMs);
}

/** The deadline of operations on `target`, or undefined for the managed deployment. */
export const externalDeadlineOf = (target: Db | Collection): number | undefined => deadlines.get(target);

/**
 * Runs `op` under the deadline of `target` when it is a project's own database: `op` gets the
 * signal to hand to the driver, and the deadline is also raced here so that the caller is
 * answered on time whatever the driver does. Without a deadline `op` runs as it is.
 */
export async function underDeadline<T>(
  target: Db | Collection,
  op: (signal?: AbortSignal) => Promise<T>,
): Promise<T> {
  const timeoutMs = deadlines.get(target);
  if (timeoutMs === undefined) return op();
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      const reason = new ExternalDbTimeoutError(timeoutMs);
      controller.abort(reason);
      reject(reason);
    }, timeoutMs);
  });
  const running = op(controller.signal);
  running.catch(() => undefined); // settled after the deadline: nobody waits for it any more
  try {
    return await Promise.race([running, expired]);
  } catch (err) {
    if (controller.signal.aborted) throw controller.signal.reason;
    // The pool's socket timeout (the same deadline) fired first: the same answer.
    if (err instanceof MongoNetworkTimeoutError) throw new ExternalDbTimeoutError(timeoutMs);
    throw err;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A socket timeout of a project's own database where no single race bounds the work (a cursor's
 * batches, each bounded by the pool's socket timeout, the same value) as the 504 it is.
 */
export function asExternalTimeout(target: Db | Collection, err: unknown): unknown {
  const timeoutMs = deadlines.get(target);
  return timeoutMs !== undefined && err instanceof MongoNetworkTimeoutError
    ? new ExternalDbTimeoutError(timeoutMs)
    : err;
}
