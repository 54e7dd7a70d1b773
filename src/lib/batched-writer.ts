// An in-process buffer written in batches, off the path that fills it: one write at a time, every
// `flushMs` or as soon as a batch is full, and the rest on close. What to do at the buffer's bound
// (drop, or wait) and how a failed batch is counted are the user's: the request log and the
// invocation log share this.

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

  /** Writes what is buffered, a batch at a time; resolves once the buffer was empty. */
  function flush(): Promise<void> {
    if (writing) return writing;
    if (!buffer.length) return Promise.resolve();
    writing = (async () => {
      while (buffer.length) {
        const batch = buffer.length > batchEntries ? buffer.splice(0, batchEntries) : buffer;
        if (batch === buffer) buffer = [];
        options.taken?.(batch, buffer.length);
        await writeBatch(batch);
      }
      options.drained?.();
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
    async close(): Promise<void> {
      clearInterval(timer);
      await flush();
    },
  };
}
