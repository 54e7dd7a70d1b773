// The backup archive (docs/backups.md): a tar.gz of `manifest.json` first, then one JSON Lines
// part per collection and platform record kind. Parts are spooled to a temporary directory while
// counted and hashed (tar needs each size up front), then packed and gzipped into one file whose
// SHA-256 is the archive's checksum. Memory stays bounded: one line at a time, with backpressure;
// the temporary disk too: past `maxSpoolBytes` of parts the write stops (and the folder goes).
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { once } from 'node:events';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import tar from 'tar-stream';

/** Version 2 added `platform/functions.jsonl` (hooks and functions); a version 1 archive still restores. */
export const FORMAT_VERSION = 2;
export const READABLE_VERSIONS: readonly number[] = [1, 2];

/** The platform parts an archive may hold (`platform/<kind>.jsonl`); a restore reads no other. */
export const RECORD_KINDS = [
  'project',
  'collections',
  'webhooks',
  'mail_templates',
  'files',
  'functions',
] as const;
export type RecordKind = (typeof RECORD_KINDS)[number];

export interface ManifestPart {
  /** Path inside the archive, e.g. `data/posts.jsonl`. */
  name: string;
  /** Lines (documents or records). */
  count: number;
  /** Bytes of the part. */
  size: number;
  sha256: string;
  /** BSON bytes of the documents (data parts only): what a restore charges to the quota. */
  bsonBytes?: number;
}

export interface Manifest {
  formatVersion: number;
  project: { id: string; name: string };
  createdAt: string;
  includesUsers: boolean;
  parts: ManifestPart[];
}

/**
 * One part to write: its lines, and optionally the BSON size of each line's document; or (a
 * file's bytes, `files/<fileId>`) a stream of bytes, counted as 0 lines.
 */
export type PartSource =
  | { name: string; lines: AsyncIterable<{ line: string; bsonBytes?: number }> }
  | { name: string; bytes: () => Promise<AsyncIterable<Buffer> | undefined> };

export interface WrittenArchive {
  file: string;
  size: number;
  sha256: string;
  manifest: Manifest;
  /** Removes the temporary directory. */
  cleanup(): Promise<void>;
}

async function writeLine(out: NodeJS.WritableStream, text: string | Buffer) {
  if (!out.write(text)) await once(out, 'drain');
}

/** Writes every part, then the archive; `onLine` is told of each line written (progress). */
export async function writeArchive(
  header: Omit<Manifest, 'parts' | 'formatVersion'>,
  parts: AsyncIterable<PartSource>,
  onLine: () => Promise<void> | void = () => undefined,
  maxSpoolBytes = Infinity,
): Promise<WrittenArchive> {
  const dir = await mkdtemp(path.join(tmpdir(), 'baas-backup-'));
  const cleanup = () => rm(dir, { recursive: true, force: true });
  let spooled = 0;
  let out: ReturnType<typeof createWriteStream> | undefined;
  const spool = (bytes: number) => {
    spooled += bytes;
    if (spooled > maxSpoolBytes)
      throw new Error(
        `the backup passed its temporary space of ${maxSpoolBytes} bytes (the plan's database and storage sizes) and was stopped`,
      );
  };
  try {
    const written: (ManifestPart & { file: string })[] = [];
    for await (const part of parts) {
      const file = path.join(dir, `part-${written.length}`);
      out = createWriteStream(file);
      const hash = createHash('sha256');
      let count = 0;
      let size = 0;
      let bsonBytes = 0;
      if ('bytes' in part) {
        const stream = await part.bytes();
        if (!stream) {
          out.destroy();
          continue; // the object is gone: its record stays, without bytes
        }
        for await (const chunk of stream) {
          hash.update(chunk);
          size += chunk.length;
          spool(chunk.length);
          await writeLine(out, chunk);
        }
      } else {
        for await (const { line, bsonBytes: bytes } of part.lines) {
          const text = `${line}\n`;
          hash.update(text);
          const length = Buffer.byteLength(text);
          size += length;
          spool(length);
          count += 1;
          bsonBytes += bytes ?? 0;
          await writeLine(out, text);
          await onLine();
        }
      }
      out.end();
      await once(out, 'finish');
      written.push({
        name: part.name,
        count,
        size,
        sha256: hash.digest('hex'),
        ...(part.name.startsWith('data/') ? { bsonBytes } : {}),
        file,
      });
    }
    const manifest: Manifest = {
      formatVersion: FORMAT_VERSION,
      ...header,
      parts: written.map(({ file: _file, ...part }) => part),
    };
    const file = path.join(dir, 'backup.tar.gz');
    const pack = tar.pack();
    const hash = createHash('sha256');
    const done = pipeline(
      pack,
      createGzip(),
      async function* (chunks: AsyncIterable<Buffer>) {
        for await (const chunk of chunks) {
          hash.update(chunk);
          yield chunk;
        }
      },
      createWriteStream(file),
    );
    const manifestText = Buffer.from(JSON.stringify(manifest, null, 2));
    pack.entry({ name: 'manifest.json', size: manifestText.length }, manifestText);
    for (const part of written) {
      const entry = pack.entry({ name: part.name, size: part.size });
      await pipeline(createReadStream(part.file), entry);
    }
    pack.finalize();
    await done;
    return { file, size: (await stat(file)).size, sha256: hash.digest('hex'), manifest, cleanup };
  } catch (err) {
    // A part that failed midway leaves its file open: closed (its pending write's error ignored)
    // before the folder goes.
    if (out && !out.closed) {
      out.on('error', () => undefined);
      const closed = once(out, 'close').catch(() => undefined);
      out.destroy();
      await closed;
    }
    await cleanup();
    throw err;
  }
}
