// Reading a backup archive back, one line at a time: the whole file's SHA-256, the manifest's
// format version, and each part's size, count and SHA-256 are checked. A restore reads an archive
// twice: a verifying pass that writes nothing, then the pass that loads it (services/backups).
import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import { createGunzip } from 'node:zlib';
import tar from 'tar-stream';
import { badRequest } from '../../http/errors.js';
import { READABLE_VERSIONS, RECORD_KINDS, type Manifest, type ManifestPart } from './archive.js';

const MAX_MANIFEST_BYTES = 4 * 1024 * 1024;
// Only what a backup writes: the platform record kinds a restore has a writer for, one part per
// collection of the project's database (an external database's may have any MongoDB name; never a
// `system.` one), the bytes of a file by its id.
const PART_NAME = new RegExp(
  `^(platform/(${RECORD_KINDS.join('|')})\\.jsonl|data/(?!system\\.)[A-Za-z0-9_][A-Za-z0-9_.-]{0,119}\\.jsonl|files/[0-9a-f]{24})$`,
);

const refused = (reason: string) => badRequest(`The archive is refused: ${reason}`);

function checkManifest(value: unknown): Manifest {
  const m = value as Manifest;
  if (!m || typeof m !== 'object') throw refused('manifest.json is not an object');
  if (!READABLE_VERSIONS.includes(m.formatVersion)) {
    throw refused(
      `unknown format version ${String(m.formatVersion)} (this server reads ${READABLE_VERSIONS.join(' and ')})`,
    );
  }
  if (!m.project || typeof m.project.id !== 'string' || !Array.isArray(m.parts)) {
    throw refused('manifest.json lacks the project or the parts');
  }
  for (const part of m.parts) {
    if (!PART_NAME.test(String(part?.name))) throw refused(`unknown part ${String(part?.name)}`);
    // Version 1 had no hooks and functions: such a part is no backup's.
    if (m.formatVersion === 1 && part.name === 'platform/functions.jsonl')
      throw refused('a format version 1 archive holds no platform/functions.jsonl');
  }
  return m;
}

async function* linesOf(entry: AsyncIterable<Buffer>, part: ManifestPart): AsyncGenerator<string> {
  const hash = createHash('sha256');
  const decoder = new StringDecoder('utf8');
  let size = 0;
  let count = 0;
  let rest = '';
  for await (const chunk of entry) {
    hash.update(chunk);
    size += chunk.length;
    const text = rest + decoder.write(chunk);
    const lines = text.split('\n');
    rest = lines.pop()!;
    for (const line of lines) {
      count += 1;
      yield line;
    }
  }
  rest += decoder.end();
  if (rest) throw refused(`part ${part.name} does not end with a new line`);
  const sha256 = hash.digest('hex');
  if (size !== part.size || count !== part.count || sha256 !== part.sha256) {
    throw refused(`part ${part.name} does not match its checksum in the manifest`);
  }
}

/** The bytes of a `files/` part, checked against the manifest at their end. */
async function* bytesOf(entry: AsyncIterable<Buffer>, part: ManifestPart): AsyncGenerator<Buffer> {
  const hash = createHash('sha256');
  let size = 0;
  for await (const chunk of entry) {
    hash.update(chunk);
    size += chunk.length;
    yield chunk;
  }
  if (size !== part.size || hash.digest('hex') !== part.sha256) {
    throw refused(`part ${part.name} does not match its checksum in the manifest`);
  }
}

export const isFilePart = (name: string) => name.startsWith('files/');

export interface ReadHandlers {
  /** Told of the manifest before any part; may refuse it (throw). */
  manifest(manifest: Manifest): Promise<void> | void;
  /** Consumes every line of one part (the checks run as the last line is read). */
  part(part: ManifestPart, lines: AsyncIterable<string>): Promise<void>;
  /** Consumes the bytes of a file part (`files/<fileId>`). */
  file(part: ManifestPart, bytes: AsyncIterable<Buffer>): Promise<void>;
}

/**
 * Reads an archive through `handlers`; throws a 400 naming the problem for a corrupted or unknown
 * archive. `sha256`, when given, is the checksum the whole file must have (checked at its end).
 */
export async function readArchive(
  source: Readable,
  handlers: ReadHandlers,
  sha256?: string,
): Promise<Manifest> {
  const whole = createHash('sha256');
  source.on('data', (chunk: Buffer) => whole.update(chunk));
  const gunzip = createGunzip();
  const extract = tar.extract();
  source.on('error', (err) => extract.destroy(err));
  gunzip.on('error', () => extract.destroy(refused('it is not a gzip file, or it is cut short')));
  source.pipe(gunzip).pipe(extract);
  let manifest: Manifest | undefined;
  const seen = new Set<string>();
  try {
    for await (const entry of extract) {
      const name = entry.header.name;
      if (!manifest) {
        if (name !== 'manifest.json') throw refused('manifest.json is not its first entry');
        const chunks: Buffer[] = [];
        let size = 0;
        for await (const chunk of entry as AsyncIterable<Buffer>) {
          size += chunk.length;
          if (size > MAX_MANIFEST_BYTES) throw refused('manifest.json is too large');
          chunks.push(chunk);
        }
        let parsed: unknown;
        try {
          parsed = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        } catch {
          throw refused('manifest.json is not JSON');
        }
        manifest = checkManifest(parsed);
        await handlers.manifest(manifest);
        continue;
      }
      const part = manifest.parts.find((p) => p.name === name);
      if (!part || seen.has(name)) throw refused(`unexpected entry ${name}`);
      seen.add(name);
      const chunks = entry as AsyncIterable<Buffer>;
      if (isFilePart(name)) await handlers.file(part, bytesOf(chunks, part));
      else await handlers.part(part, linesOf(chunks, part));
    }
  } catch (err) {
    source.destroy();
    if (err instanceof Error && 'status' in err) throw err;
    throw refused(err instanceof Error ? err.message : 'it cannot be read');
  }
  if (!manifest) throw refused('it has no manifest.json');
  const missing = manifest.parts.find((p) => !seen.has(p.name));
  if (missing) throw refused(`part ${missing.name} is missing`);
  if (sha256 && whole.digest('hex') !== sha256) throw refused('its SHA-256 does not match the backup');
  return manifest;
}

/** The verifying pass: every check, nothing written. */
export const verifyArchive = (
  source: Readable,
  check: (manifest: Manifest) => void,
  sha256?: string,
): Promise<Manifest> =>
  readArchive(
    source,
    {
      manifest: check,
      async part(_part, lines) {
        for await (const _line of lines);
      },
      async file(_part, bytes) {
        for await (const _chunk of bytes);
      },
    },
    sha256,
  );
