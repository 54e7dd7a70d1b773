// The restore's local copy of its archive (no servers): the bytes are kept only when their size and
// SHA-256 are the backup's; a source past the recorded size is cut off there, a source that stalls
// is given up at the deadline, and every refused copy leaves nothing on disk.
import { expect } from 'chai';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { copyVerified } from '../../src/services/backups/local-copy.js';

/** The message a refused copy gives (fails the test when the copy is kept). */
async function refusal(copy: Promise<unknown>): Promise<string> {
  try {
    await copy;
  } catch (err) {
    return (err as Error).message;
  }
  throw new Error('the copy was kept');
}

describe('backups: the restore’s local copy of its archive', () => {
  const bytes = randomBytes(300_000);
  const expected = { size: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex') };
  const chunks = (data: Buffer, size = 16_384) =>
    Readable.from(
      Array.from({ length: Math.ceil(data.length / size) }, (_, i) =>
        data.subarray(i * size, (i + 1) * size),
      ),
    );
  let dir: string;
  let saved: string | undefined;
  // os.tmpdir() reads TMPDIR on each call: each test's copies go to a folder of its own.
  beforeEach(async () => {
    saved = process.env.TMPDIR;
    dir = await mkdtemp(path.join(tmpdir(), 'local-copy-test-'));
    process.env.TMPDIR = dir;
  });
  afterEach(async () => {
    if (saved === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = saved;
    await rm(dir, { recursive: true, force: true });
  });

  it('keeps the very bytes when size and SHA-256 match, and removes them on cleanup', async () => {
    const copy = await copyVerified(chunks(bytes), expected, 10_000);
    expect(path.dirname(path.dirname(copy.file))).to.equal(dir);
    expect(await readFile(copy.file)).to.deep.equal(bytes);
    await copy.cleanup();
    expect(await readdir(dir)).to.deep.equal([]);
  });

  it('refuses other bytes of the same size, and leaves nothing', async () => {
    const other = Buffer.from(bytes);
    other[150_000]! ^= 1;
    expect(await refusal(copyVerified(chunks(other), expected, 10_000))).to.equal(
      'its SHA-256 does not match the backup',
    );
    expect(await readdir(dir)).to.deep.equal([]);
  });

  it('stops reading a larger source at the recorded size, and leaves nothing', async () => {
    let pulled = 0;
    const endless = Readable.from(
      (function* () {
        for (;;) {
          pulled += 16_384;
          yield randomBytes(16_384);
        }
      })(),
    );
    expect(await refusal(copyVerified(endless, expected, 10_000))).to.equal(
      `the archive is larger than the backup's ${bytes.length} bytes`,
    );
    expect(pulled).to.be.below(bytes.length + 10 * 16_384);
    expect(await readdir(dir)).to.deep.equal([]);
  });

  it('refuses a shorter source, and one that stalls past the deadline, leaving nothing', async () => {
    expect(await refusal(copyVerified(chunks(bytes.subarray(1)), expected, 10_000))).to.equal(
      `the archive has ${bytes.length - 1} bytes, the backup ${bytes.length}`,
    );
    const stalled = new Readable({ read() {} });
    stalled.push(bytes.subarray(0, 1000));
    const started = Date.now();
    expect(await refusal(copyVerified(stalled, expected, 200))).to.equal(
      'the archive was not read within 200 ms',
    );
    expect(Date.now() - started).to.be.below(5_000);
    expect(await readdir(dir)).to.deep.equal([]);
  });
});
