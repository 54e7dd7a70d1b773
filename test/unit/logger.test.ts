import { spawn } from 'node:child_process';
import { expect } from 'chai';
import { repoPath } from '../../src/lib/paths.js';
import { isoTime } from '../../src/lib/logger.js';

/** Runs a script that logs through createLogger in a process of its own; resolves with each stdout chunk and its time. */
function run(script: string) {
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    cwd: repoPath(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const started = Date.now();
  const chunks: { at: number; text: string }[] = [];
  child.stdout.on('data', (chunk: Buffer) =>
    chunks.push({ at: Date.now() - started, text: chunk.toString() }),
  );
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise<{ chunks: typeof chunks; lines: Record<string, unknown>[]; stderr: string }>((resolve) =>
    child.once('close', () => {
      const lines = chunks
        .map((c) => c.text)
        .join('')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      resolve({ chunks, lines, stderr });
    }),
  );
}

const logger = `import { createLogger } from './src/lib/logger.ts'; const log = createLogger('info');`;
/** Counts the write system calls to stdout and tells their number on stderr at exit. */
const countWrites = `import fs from 'node:fs'; let writes = 0; const write = fs.writeSync;
  fs.writeSync = (fd, ...rest) => { if (fd === 1) writes++; return write(fd, ...rest); };
  process.on('exit', () => process.stderr.write('writes ' + writes));`;

describe('logger (lines written in batches)', function () {
  this.timeout(20_000);

  it('writes many lines in few writes, and what is buffered at process.exit', async () => {
    const { lines, stderr } = await run(
      `${countWrites} ${logger} for (let i = 0; i < 500; i++) log.info({ i }, 'request'); log.info('last'); process.exit(0);`,
    );
    expect(lines).to.have.length(501);
    expect(lines.map((l) => l.i).slice(0, 500)).to.deep.equal([...Array(500).keys()]);
    expect(lines.at(-1)?.msg).to.equal('last');
    // One write per 4 KiB of lines (about 60 of these short ones), not one per line.
    const writes = Number(/writes (\d+)/.exec(stderr)?.[1]);
    expect(writes).to.be.within(1, 20);
  });

  it('writes a lone line within its flush interval while the process goes on', async () => {
    const { chunks, lines } = await run(
      `${logger} log.info('alone'); setTimeout(() => log.info('later'), 1500); setTimeout(() => {}, 2000);`,
    );
    expect(lines.map((l) => l.msg)).to.deep.equal(['alone', 'later']);
    // The first line arrived long before the second one was logged, not with it at exit.
    expect(chunks[0]!.text).to.include('alone').and.not.include('later');
    expect(chunks[1]!.at - chunks[0]!.at).to.be.above(1000);
  });

  it('writes what is buffered when an uncaught error ends the process', async () => {
    const { lines } = await run(`${logger} log.warn('before the crash'); throw new Error('boom');`);
    expect(lines.map((l) => l.msg)).to.deep.equal(['before the crash']);
  });

  it('writes the time as Date#toISOString does, across milliseconds, seconds and days', () => {
    const day = Date.UTC(2026, 10, 24);
    const times = [day - 1, day, day + 7, day + 10, day + 99, day + 100, day + 999, day + 1000, day + 61_001];
    // In order and back again: the cached second must follow the clock both ways.
    for (const t of [...times, ...times.reverse()]) {
      expect(isoTime(t)).to.equal(`,"time":"${new Date(t).toISOString()}"`);
    }
  });
});
