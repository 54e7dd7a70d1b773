// The invocation log's write path, off the call: an ended invocation pushes its entry into an
// in-process buffer, written with one insertMany every `flushMs` or as soon as a batch is full,
// one write at a time. Nothing is dropped for being buffered: at the bound (entries or bytes) a
// caller waits for the write under way to make room; a batch the database refuses is logged with
// its count, as a single failed write was before. close() writes the rest.
import { newId } from '../../db/ids.js';
import type { Logger } from '../../lib/logger.js';
import { batchedWriter } from '../../lib/batched-writer.js';
import type { InvocationRecord, InvocationRequest } from './types.js';

const text = (v: unknown) => (typeof v === 'string' && v ? v.slice(0, 200) : null);

/**
 * What a run was for, from its event (operation, collection, the document: `documentId`, else the
 * first of `documentIds` or of `documents`) and its caller; method and path when a client's
 * request ran it. No body is kept.
 */
export function requestOf(
  event: Record<string, unknown>,
  caller: {
    keyKind: InvocationRequest['keyKind'];
    userId: string | null;
    request?: { method: string; path: string };
  },
): InvocationRequest {
  const first = (list: unknown) => (Array.isArray(list) ? list[0] : undefined);
  const doc = first(event.documents) as Record<string, unknown> | undefined;
  const documentId =
    text(event.documentId) ??
    text(first(event.documentIds)) ??
    (doc && typeof doc === 'object' ? text(doc._id ?? doc.id) : null) ??
    (event.document && typeof event.document === 'object'
      ? text((event.document as Record<string, unknown>)._id)
      : null);
  return {
    method: caller.request?.method ?? null,
    path: caller.request ? caller.request.path.slice(0, 500) : null,
    operation: text(event.operation),
    collection: text(event.collection),
    documentId,
    keyKind: caller.keyKind,
    userId: caller.userId,
  };
}

export interface InvocationLogOptions {
  write: (entries: InvocationRecord[]) => Promise<void>;
  log: Logger;
  /** The longest an entry waits before it is written. */
  flushMs?: number;
  /** Entries per insertMany; a full batch is written at once. */
  batchEntries?: number;
  /** Buffered at most, in entries and in (estimated) bytes; past either, add() waits. */
  maxEntries?: number;
  maxBytes?: number;
}

/** About what an entry holds in memory: its log lines and error, plus the fixed fields. */
const sizeOf = (entry: Omit<InvocationRecord, 'id'>) =>
  256 +
  entry.logs.reduce((sum, line) => sum + line.message.length + 48, 0) +
  (entry.error ? entry.error.message.length + (entry.error.stack?.length ?? 0) : 0) +
  (entry.request?.path?.length ?? 0) +
  (entry.refusal?.message.length ?? 0);

export function invocationLog(options: InvocationLogOptions) {
  const { write, log } = options;
  const batchEntries = options.batchEntries ?? 200;
  const maxEntries = Math.max(options.maxEntries ?? 2000, batchEntries);
  const maxBytes = options.maxBytes ?? 8 * 1024 * 1024;
  let bytes = 0;
  let closed = false;
  let lost = 0;
  /** The last caller waiting for room, while any is. */
  let room: Promise<void> | undefined;
  const full = () => writer.size() >= maxEntries || bytes >= maxBytes;

  async function writeBatch(batch: InvocationRecord[]): Promise<void> {
    try {
      await write(batch);
    } catch (err) {
      lost += batch.length;
      log.error({ err, entries: batch.length, lostSoFar: lost }, 'invocation log: writing a batch failed');
    }
  }

  const writer = batchedWriter({
    writeBatch,
    batchEntries,
    flushMs: options.flushMs ?? 200,
    taken: (batch, left) => {
      bytes = left ? bytes - batch.reduce((sum, e) => sum + sizeOf(e), 0) : 0;
    },
  });
  const { flush } = writer;

  return {
    /**
     * Buffers one entry (its id is made as it goes in, so the newest-first order holds). Resolves
     * at once, unless the buffer is at its bound: then once the write under way has made room.
     * After close() the entry is written before it resolves. Resolves to the entry's id.
     */
    async add(entry: Omit<InvocationRecord, 'id'>): Promise<string> {
      if (room || full()) {
        // Waiting callers go in in the order they came, after the one before them.
        const before = room;
        const mine = (async () => {
          await before;
          while (!closed && full()) await flush();
        })();
        room = mine;
        await mine;
        if (room === mine) room = undefined;
      }
      const record = { id: newId(), ...entry };
      if (closed) {
        await writeBatch([record]);
        return record.id;
      }
      bytes += sizeOf(record);
      writer.push(record);
      if (bytes >= maxBytes) writer.flushSoon();
      return record.id;
    },
    flush,
    stats: () => ({ buffered: writer.size(), bytes, lost }),
    async close(): Promise<void> {
      closed = true;
      await writer.close();
    },
  };
}

export type InvocationLog = ReturnType<typeof invocationLog>;
