// The request log's buffer: batches, one write at a time, and a bound that drops (and counts)
// entries while the database is slow instead of holding them without end.
import { expect } from 'chai';
import { pino } from 'pino';
import { requestLogBuffer, type RecordedRequest } from '../../src/services/request-log/buffer.js';
import type { RequestLogEntry } from '../../src/db/request-logs.js';
import { batchedWriter } from '../../src/lib/batched-writer.js';

const entry = (i: number): RecordedRequest => ({
  projectId: i % 2 ? 'a' : 'b',
  method: 'GET',
  path: `/api/data/posts/${i}`,
  status: 200,
  durationMs: 1,
  keyKind: 'secret',
  userId: null,
  requestId: String(i),
  at: Date.now(),
});

describe('request log buffer', () => {
  const log = pino({ level: 'silent' });

  it('writes in batches, in order, one write at a time, and reports each project’s count', async () => {
    const writes: RequestLogEntry[][] = [];
    const perProject: Map<string, number>[] = [];
    let inFlight = 0;
    const buffer = requestLogBuffer({
      write: async (entries) => {
        inFlight++;
        expect(inFlight).to.equal(1);
        await new Promise((resolve) => setTimeout(resolve, 5));
        writes.push(entries);
        inFlight--;
      },
      written: async (counts) => void perProject.push(counts),
      bufferEntries: 100,
      batchEntries: 4,
      flushMs: 60_000,
      log,
    });
    for (let i = 0; i < 10; i++) buffer.record(entry(i));
    await buffer.close();
    expect(writes.map((w) => w.length)).to.deep.equal([4, 4, 2]);
    expect(writes.flat().map((e) => e.requestId)).to.deep.equal([
      '0',
      '1',
      '2',
      '3',
      '4',
      '5',
      '6',
      '7',
      '8',
      '9',
    ]);
    const ids = writes.flat().map((e) => e.id);
    expect([...ids].sort()).to.deep.equal(ids);
    expect(perProject[0]).to.deep.equal(
      new Map([
        ['b', 2],
        ['a', 2],
      ]),
    );
  });

  it('drops and counts entries beyond its bound while a write is stuck', async () => {
    let release: () => void = () => undefined;
    const stuck = new Promise<void>((resolve) => (release = resolve));
    let written = 0;
    const buffer = requestLogBuffer({
      write: async (entries) => {
        await stuck;
        written += entries.length;
      },
      bufferEntries: 10,
      batchEntries: 10,
      flushMs: 60_000,
      log,
    });
    for (let i = 0; i < 10; i++) buffer.record(entry(i));
    const first = buffer.flush();
    for (let i = 0; i < 25; i++) buffer.record(entry(i));
    expect(buffer.stats()).to.deep.equal({ buffered: 10, dropped: 15 });
    release();
    await first;
    await buffer.close();
    expect(written).to.equal(20);
  });

  it('counts a failed write as dropped and keeps going', async () => {
    let fail = true;
    const buffer = requestLogBuffer({
      write: async () => {
        if (fail) throw new Error('database down');
      },
      bufferEntries: 10,
      flushMs: 60_000,
      log,
    });
    buffer.record(entry(1));
    buffer.record(entry(2));
    await buffer.flush();
    fail = false;
    buffer.record(entry(3));
    await buffer.close();
    expect(buffer.stats()).to.deep.equal({ buffered: 0, dropped: 2 });
  });
});

describe('batched writer: a write takes what was buffered when it started', () => {
  it('leaves what comes during a write to the next flush, instead of writing again at once', async () => {
    const writes: number[][] = [];
    let release!: () => void;
    const writer = batchedWriter<number>({
      writeBatch: async (batch) => {
        writes.push(batch);
        if (writes.length === 1) await new Promise<void>((resolve) => (release = resolve));
      },
      batchEntries: 100,
      flushMs: 60_000,
    });
    for (let i = 0; i < 3; i++) writer.push(i);
    const first = writer.flush();
    // Requests that end while the first write is under way.
    for (let i = 3; i < 6; i++) writer.push(i);
    release();
    await first;
    expect(writes).to.deep.equal([[0, 1, 2]]);
    expect(writer.size()).to.equal(3);
    await writer.flush();
    expect(writes).to.deep.equal([
      [0, 1, 2],
      [3, 4, 5],
    ]);
    await writer.close();
  });

  it('a flush asked during a write follows it and writes what it found; close writes everything', async () => {
    const writes: number[][] = [];
    const writer = batchedWriter<number>({
      writeBatch: async (batch) => {
        writes.push(batch);
        await new Promise((resolve) => setTimeout(resolve, 5));
      },
      batchEntries: 2,
      flushMs: 60_000,
    });
    for (let i = 0; i < 3; i++) writer.push(i);
    const first = writer.flush();
    writer.push(3);
    await writer.flush();
    await first;
    expect(writes.flat()).to.deep.equal([0, 1, 2, 3]);
    writer.push(4);
    writer.push(5);
    writer.push(6);
    await writer.close();
    expect(writes.flat()).to.deep.equal([0, 1, 2, 3, 4, 5, 6]);
    expect(writes.every((batch) => batch.length <= 2)).to.equal(true);
  });
});
