// The invocation log's buffer: batches in the order the calls ended, one write at a time, a bound
// past which the caller waits (nothing dropped for being buffered), a failed batch reported with
// its count, and close() writing what is left.
import { expect } from 'chai';
import { pino } from 'pino';
import { invocationLog } from '../../src/services/functions/invocation-log.js';
import type { InvocationRecord } from '../../src/services/functions/types.js';

const entry = (i: number, message = ''): Omit<InvocationRecord, 'id'> => ({
  projectId: 'p'.repeat(24),
  functionId: 'f'.repeat(24),
  trigger: 'beforeCreate',
  version: 1,
  status: 'ok',
  durationMs: i,
  error: null,
  logs: message ? [{ level: 'log', message, atMs: 0 }] : [],
  at: new Date(),
  expiresAt: new Date(),
});

const silent = pino({ level: 'silent' });

describe('invocation log buffer', () => {
  it('writes in batches, in order, one write at a time, with ids in the order of the calls', async () => {
    const writes: InvocationRecord[][] = [];
    let inFlight = 0;
    const log = invocationLog({
      write: async (batch) => {
        expect(++inFlight).to.equal(1);
        await new Promise((r) => setTimeout(r, 5));
        writes.push(batch);
        inFlight--;
      },
      log: silent,
      batchEntries: 4,
      flushMs: 60_000,
    });
    for (let i = 0; i < 10; i++) await log.add(entry(i));
    expect(log.stats().buffered).to.be.at.most(10);
    await log.close();
    expect(writes.flat().map((e) => e.durationMs)).to.deep.equal([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(writes.every((w) => w.length <= 4)).to.equal(true);
    const ids = writes.flat().map((e) => e.id);
    expect([...ids].sort()).to.deep.equal(ids);
    expect(log.stats()).to.deep.equal({ buffered: 0, bytes: 0, lost: 0 });
  });

  it('writes by itself within flushMs', async () => {
    const written: InvocationRecord[] = [];
    const log = invocationLog({
      write: async (batch) => void written.push(...batch),
      log: silent,
      flushMs: 20,
    });
    await log.add(entry(1));
    expect(written).to.have.length(0);
    await new Promise((r) => setTimeout(r, 80));
    expect(written).to.have.length(1);
    await log.close();
  });

  it('holds at most maxEntries: past it add() waits for the write under way instead of growing', async () => {
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    const written: InvocationRecord[] = [];
    const log = invocationLog({
      write: async (batch) => {
        await gate;
        written.push(...batch);
      },
      log: silent,
      batchEntries: 5,
      maxEntries: 10,
      flushMs: 60_000,
    });
    const adds: Promise<void>[] = [];
    let settled = 0;
    for (let i = 0; i < 25; i++) adds.push(log.add(entry(i)).then(() => void settled++));
    await new Promise((r) => setTimeout(r, 20));
    // The bound was reached at 10: a batch of 5 is being written (stuck), 5 are buffered, and
    // the other 15 callers wait, in order, for that write to end.
    expect(log.stats().buffered).to.equal(5);
    expect(settled).to.equal(10);
    open();
    await Promise.all(adds);
    await log.close();
    expect(written.map((e) => e.durationMs)).to.deep.equal(Array.from({ length: 25 }, (_, i) => i));
  });

  it('bounds the bytes too: large log lines make add() wait sooner', async () => {
    let writes = 0;
    const log = invocationLog({
      write: async () => void writes++,
      log: silent,
      batchEntries: 100,
      maxEntries: 1000,
      maxBytes: 64 * 1024,
      flushMs: 60_000,
    });
    for (let i = 0; i < 10; i++) await log.add(entry(i, 'x'.repeat(16 * 1024)));
    // 16 KiB each against a 64 KiB bound: written every fourth entry, never more held.
    expect(writes).to.be.at.least(2);
    expect(log.stats().bytes).to.be.below(64 * 1024);
    await log.close();
  });

  it('reports a batch the database refused with its count, and goes on with the next', async () => {
    const errors: unknown[] = [];
    const logger = pino({ level: 'error' }, { write: (line: string) => void errors.push(JSON.parse(line)) });
    let calls = 0;
    const written: InvocationRecord[] = [];
    const log = invocationLog({
      write: async (batch) => {
        if (calls++ === 0) throw new Error('database down');
        written.push(...batch);
      },
      log: logger,
      batchEntries: 3,
      flushMs: 60_000,
    });
    for (let i = 0; i < 3; i++) await log.add(entry(i));
    await log.flush();
    await log.add(entry(3));
    await log.close();
    expect(written.map((e) => e.durationMs)).to.deep.equal([3]);
    expect(log.stats().lost).to.equal(3);
    expect(errors).to.have.length(1);
    expect(errors[0]).to.deep.include({ entries: 3, msg: 'invocation log: writing a batch failed' });
  });

  it('writes at once what is added after close', async () => {
    const written: InvocationRecord[] = [];
    const log = invocationLog({ write: async (batch) => void written.push(...batch), log: silent });
    await log.close();
    await log.add(entry(7));
    expect(written.map((e) => e.durationMs)).to.deep.equal([7]);
  });
});
