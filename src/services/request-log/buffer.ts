// The request log's write path, off the request: a request's end pushes one plain object into
// an in-process buffer (nothing awaited, no id, no Date); the buffer is written with one
// insertMany every second, or as soon as it holds a batch. One write at a time: while the
// database is slow the buffer grows up to its bound, then new entries are dropped and counted
// rather than held in memory without end.
import { newId } from '../../db/ids.js';
import type { RequestLogEntry } from '../../db/request-logs.js';
import type { Logger } from '../../lib/logger.js';
import { batchedWriter } from '../../lib/batched-writer.js';

/** What the HTTP layer knows when a public API request (or a token's dashboard request) ends. */
export interface RecordedRequest {
  projectId: string;
  method: string;
  path: string;
  status: number;
  durationMs: number;
  keyKind: 'publishable' | 'secret' | 'accessToken' | null;
  userId: string | null;
  requestId: string;
  /** A dashboard request's personal access token prefix; left out on the public API. */
  accessToken?: string;
  /** Epoch milliseconds. */
  at: number;
  /** Why the request did not work as the caller meant, and what fixes it (a refused CORS credential). */
  note?: string;
}

export interface BufferOptions {
  write: (entries: RequestLogEntry[]) => Promise<void>;
  /** After a write, with the entries written per project (the count bound's trim). */
  written?: (perProject: Map<string, number>) => Promise<void>;
  bufferEntries: number;
  batchEntries?: number;
  flushMs?: number;
  log: Logger;
}

const MAX_PATH = 512;

export function requestLogBuffer(options: BufferOptions) {
  const { write, written, bufferEntries, log } = options;
  const batchEntries = Math.min(options.batchEntries ?? 500, bufferEntries);
  let dropped = 0;
  let droppedReported = 0;

  async function writeBatch(batch: RecordedRequest[]): Promise<void> {
    const entries: RequestLogEntry[] = batch.map((r) => ({
      // Ids made here, in the order the requests ended, keep the log's time order per process.
      id: newId(),
      projectId: r.projectId,
      at: new Date(r.at),
      method: r.method,
      path: r.path.length > MAX_PATH ? r.path.slice(0, MAX_PATH) : r.path,
      status: r.status,
      durationMs: r.durationMs,
      keyKind: r.keyKind,
      userId: r.userId,
      requestId: r.requestId,
      accessToken: r.accessToken ?? null,
      ...(r.note ? { note: r.note } : {}),
    }));
    try {
      await write(entries);
    } catch (err) {
      dropped += entries.length;
      log.warn({ err, entries: entries.length }, 'request log: writing a batch failed');
      return;
    }
    if (written) {
      const perProject = new Map<string, number>();
      for (const e of entries) perProject.set(e.projectId, (perProject.get(e.projectId) ?? 0) + 1);
      await written(perProject).catch((err: unknown) => log.warn({ err }, 'request log: trimming failed'));
    }
  }

  const writer = batchedWriter({
    writeBatch,
    batchEntries,
    flushMs: options.flushMs ?? 1000,
    drained() {
      if (dropped > droppedReported) {
        log.warn({ dropped: dropped - droppedReported, total: dropped }, 'request log: entries dropped');
        droppedReported = dropped;
      }
    },
  });

  return {
    /** Called as a request ends; never throws, never waits. */
    record(entry: RecordedRequest): void {
      if (writer.size() >= bufferEntries) {
        dropped++;
        return;
      }
      writer.push(entry);
    },
    flush: writer.flush,
    stats: () => ({ buffered: writer.size(), dropped }),
    close: writer.close,
  };
}

export type RequestLogBuffer = ReturnType<typeof requestLogBuffer>;
