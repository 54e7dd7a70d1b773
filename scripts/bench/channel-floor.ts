// What one call to a runner process costs the service's process at the least: the channel alone
// (src/sandbox/channel.ts, JSON lines over a unix socket), with messages shaped like a hook's
// `run` and `done`, and nothing else (no pool, no interpreter, no log). Four child processes
// answer each `run` at once with a `done`, one call in flight each, as the pool's runners do.
// Measured closed (as many calls as the children answer) and paced at the given rates, the
// parent's CPU per call read from process.cpuUsage; a paced measure's own timer is measured
// without calls and taken off. The floor of what a hooked create adds to the API (bench/PROFILE.md).
//
//   npx tsx scripts/bench/channel-floor.ts [--seconds 5] [--rates 1000,2600]
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, connect, type Socket } from 'node:net';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { jsonLines, type Channel } from '../../src/sandbox/channel.js';
import type { DoneMessage, RunMessage } from '../../src/sandbox/protocol.js';

const RUNNERS = 4;
const MAX_LINE = 1024 * 1024;

if (process.argv[2] === 'child') {
  const socket = connect(process.argv[3]!);
  const channel: Channel<DoneMessage> = jsonLines<RunMessage, DoneMessage>(
    socket,
    (msg) =>
      channel.send({
        t: 'done',
        id: msg.id,
        status: 'ok',
        value: 'null',
        logs: [],
        logsTruncated: false,
        recycle: false,
        kept: true,
      }),
    MAX_LINE,
    () => process.exit(1),
  );
  socket.on('close', () => process.exit(0));
} else {
  const { values } = parseArgs({
    options: { seconds: { type: 'string', default: '5' }, rates: { type: 'string', default: '1000,2600' } },
  });
  const seconds = Math.min(Math.max(Number(values.seconds), 1), 60);
  const event = JSON.stringify({
    trigger: 'beforeCreate',
    collection: 'items',
    operation: 'create',
    documents: [{ name: 'item-1', price: 3, tags: ['a', 'b'] }],
    caller: {
      keyKind: 'secret',
      userId: null,
      ip: '127.0.0.1',
      request: { method: 'POST', path: '/api/data/items' },
    },
  });
  const run = (id: number): RunMessage => ({
    t: 'run',
    id,
    key: '65f1c2a4b7e8d9001234567b:beforeItems:3:4f2a9c',
    event,
    env: {},
    limits: {
      deadlineMs: 5000,
      memoryBytes: 32 << 20,
      stackBytes: 512 << 10,
      maxResultBytes: 1 << 20,
      maxLogBytes: 64 << 10,
    },
  });

  const dir = mkdtempSync(join(os.tmpdir(), 'channel-floor-'));
  const path = join(dir, 'socket');
  const channels: Channel<RunMessage>[] = [];
  const idle: number[] = [];
  let sent = 0;
  let answered = 0;
  /** Calls due and not yet sent (paced), or Infinity (closed). */
  let due = 0;
  let sending = true;
  const pump = () => {
    while (sending && due >= 1 && idle.length > 0) {
      due--;
      channels[idle.pop()!]!.send(run(++sent));
    }
  };
  const server = createServer((socket: Socket) => {
    const index = channels.length;
    channels.push(
      jsonLines<DoneMessage, RunMessage>(
        socket,
        () => {
          answered++;
          idle.push(index);
          pump();
        },
        MAX_LINE,
        () => socket.destroy(),
      ),
    );
    idle.push(index);
  });
  await new Promise<void>((resolve) => server.listen(path, resolve));
  const self = fileURLToPath(import.meta.url);
  const children: ChildProcess[] = Array.from({ length: RUNNERS }, () =>
    spawn(process.execPath, ['--import', 'tsx', self, 'child', path], { stdio: 'inherit' }),
  );
  const connectBy = Date.now() + 30_000;
  while (channels.length < RUNNERS) {
    if (Date.now() > connectBy) {
      for (const child of children) child.kill();
      throw new Error(`only ${channels.length} of ${RUNNERS} children connected within 30 s`);
    }
    await new Promise((r) => setTimeout(r, 20));
  }

  /** Parent CPU µs per call and calls per second over one measure; rate 0 is closed. */
  const measure = async (rate: number, withCalls: boolean) => {
    sending = withCalls;
    const [cpu, before] = [process.cpuUsage(), answered];
    const started = performance.now();
    /** Calls the pace has asked for so far (the timer fires about once a millisecond). */
    let asked = 0;
    const ticker =
      rate > 0
        ? setInterval(() => {
            const target = Math.floor((rate * (performance.now() - started)) / 1000);
            due += target - asked;
            asked = target;
            pump();
          }, 1)
        : undefined;
    if (rate === 0) {
      due = Infinity;
      pump();
    }
    await new Promise((r) => setTimeout(r, seconds * 1000));
    const used = process.cpuUsage(cpu);
    const elapsed = (performance.now() - started) / 1000;
    clearInterval(ticker);
    due = 0;
    const calls = withCalls ? answered - before : asked;
    return { perSecond: calls / elapsed, micros: (used.user + used.system) / calls };
  };

  await measure(0, true); // warm-up
  const closed = await measure(0, true);
  console.log(
    `closed: ${Math.round(closed.perSecond)} calls/s, ${closed.micros.toFixed(1)} µs of CPU per call`,
  );
  for (const rate of values.rates
    .split(',')
    .map(Number)
    .filter((r) => r > 0)) {
    const timer = await measure(rate, false);
    const paced = await measure(rate, true);
    console.log(
      `paced at ${rate}/s: ${Math.round(paced.perSecond)} calls/s, ${(paced.micros - timer.micros).toFixed(1)} µs of CPU per call ` +
        `(${paced.micros.toFixed(1)} with the pacing timer's ${timer.micros.toFixed(1)})`,
    );
  }
  for (const child of children) child.kill();
  server.close();
  rmSync(dir, { recursive: true, force: true });
}
