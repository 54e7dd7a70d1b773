// An in-process buffer written in batches, off the path that fills it: one write at a time, every
// `flushMs` or as soon as a batch is full (what comes during a write waits for the next), and the
// rest on close. What to do at the buffer's bound (drop, or wait) and how a failed batch is counted
// are the user's: the request log and the invocation log share this.

export interface BatchedWriterOptions<T> {
  /** Writes one batch; it handles (logs, counts) its own failure and does not throw. */
  writeBatch: (batch: T[]) => Promise<void>;
  /** Items per write; a full batch is written at once. */
  batchEntries: number;
  /** The longest an item waits before it is written. */
  flushMs: number;
  /** Told of each batch as it leaves the buffer, with how many items are left. */
  taken?: (batch: T[], left: number) => void;
  /** After a flush emptied the buffer. */
  drained?: () => void;
}

export function batchedWriter<T>(options: BatchedWriterOptions<T>) {
  const { writeBatch, batchEntries } = options;
  let buffer: T[] = [];
  let writing: Promise<void> | undefined;
  let soon = false;

  /**
   * Writes what is buffered when the write starts, a batch at a time; items that come meanwhile
   * wait for the next flush (the timer's, or a full batch's), so a stream of items is written once
   * per `flushMs` and not once per write's round trip. Called while a write is under way, it
   * follows that write. Resolves once everything buffered at the call is written.
   */
  function flush(): Promise<void> {
    if (writing) return writing.then(flush);
    if (!buffer.length) return Promise.resolve();
    writing = (async () => {
      let due = buffer.length;
      while (due > 0 && buffer.length) {
        const size = Math.min(due, batchEntries);
        const batch = buffer.length > size ? buffer.splice(0, size) : buffer;
        if (batch === buffer) buffer = [];
        due -= batch.length;
        options.taken?.(batch, buffer.length);
        await writeBatch(batch);
      }
      if (!buffer.length) options.drained?.();
    })().finally(() => (writing = undefined));
    return writing;
  }

  /** A flush on the next turn of the event loop (once, however many ask meanwhile). */
  function flushSoon(): void {
    if (soon) return;
    soon = true;
    setImmediate(() => {
      soon = false;
      void flush();
    });
  }

  const timer = setInterval(() => void flush(), options.flushMs);
  timer.unref();

  return {
    /** Buffers one item; a full batch is written on the next turn. */
    push(item: T): void {
      buffer.push(item);
      if (buffer.length >= batchEntries) flushSoon();
    },
    flush,
    flushSoon,
    /** Items waiting to be written (the batch being written not among them). */
    size: (): number => buffer.length,
    /** Stops the timer and writes everything, also what comes while it writes. */
    async close(): Promise<void> {
      clearInterval(timer);
      while (buffer.length || writing) await flush();
    },
  };
}
