// The deadline of one worker task about one project (WORKER_TASK_TIMEOUT_MS): the worker's lanes
// are shared by every tenant, so a task that does not end in time is given up and its lane goes
// back to the others. The task gets an abort signal to stop at its next step; whatever it still
// does after the deadline, nobody waits for it.

/** A worker task did not end within its deadline. */
export class TaskTimeoutError extends Error {
  readonly code = 'TASK_TIMEOUT';
  constructor(
    readonly what: string,
    readonly timeoutMs: number,
  ) {
    super(`${what} took longer than the worker's task limit of ${timeoutMs} ms and was stopped`);
    this.name = 'TaskTimeoutError';
  }
}

export async function withTaskDeadline<T>(
  timeoutMs: number,
  what: string,
  task: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const controller = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      const reason = new TaskTimeoutError(what, timeoutMs);
      controller.abort(reason);
      reject(reason);
    }, timeoutMs);
  });
  const running = task(controller.signal);
  running.catch(() => undefined); // a task given up may still fail later: nobody waits for it
  try {
    return await Promise.race([running, expired]);
  } finally {
    clearTimeout(timer);
  }
}
