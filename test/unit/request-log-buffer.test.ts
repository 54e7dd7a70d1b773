// The request log's buffer: batches, one write at a time, and a bound that drops (and counts)
// entries while the database is slow instead of holding them without end.
import { expect } from 'chai';
import { pino } from 'pino';
import { requestLogBuffer, type RecordedRequest } from '../../src/services/request-log/buffer.js';
import type { RequestLogEntry } from '../../src/db/request-logs.js';

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
