// A restore loads its archive from one local copy, never from the store again: the archive may be
// in a bucket its project controls, which could serve other bytes on every read. The copy is
// bounded by the size the backup recorded and checked against its SHA-256 before anything reads it.
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';

export interface LocalCopy {
  file: string;
  /** Removes the copy and its directory. */
  cleanup(): Promise<void>;
}

/** Why a copy is refused (the job records the message). */
export class ArchiveMismatch extends Error {}

/**
 * Copies `source` to a temporary file: refused (and removed) past `expected.size` bytes, when it
 * takes longer than `deadlineMs`, or when its size or SHA-256 is not the backup's.
 */
export async function copyVerified(
  source: Readable,
  expected: { size: number; sha256: string },
  deadlineMs: number,
): Promise<LocalCopy> {
  const dir = await mkdtemp(path.join(tmpdir(), 'baas-restore-'));
  const cleanup = () => rm(dir, { recursive: true, force: true });
  const file = path.join(dir, 'archive.tar.gz');
  const hash = createHash('sha256');
  let size = 0;
  const timer = setTimeout(
    () => source.destroy(new ArchiveMismatch(`the archive was not read within ${deadlineMs} ms`)),
    deadlineMs,
  );
  try {
    await pipeline(
      source,
      async function* (chunks: AsyncIterable<Buffer>) {
        for await (const chunk of chunks) {
          size += chunk.length;
          if (size > expected.size) {
            throw new ArchiveMismatch(`the archive is larger than the backup's ${expected.size} bytes`);
          }
          hash.update(chunk);
          yield chunk;
        }
      },
      createWriteStream(file),
    );
    if (size !== expected.size) {
      throw new ArchiveMismatch(`the archive has ${size} bytes, the backup ${expected.size}`);
    }
    if (hash.digest('hex') !== expected.sha256) {
      throw new ArchiveMismatch('its SHA-256 does not match the backup');
    }
    return { file, cleanup };
  } catch (err) {
    await cleanup();
    throw err;
  } finally {
    clearTimeout(timer);
  }
}
