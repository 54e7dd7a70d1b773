// Helpers of the backup suites: a whole project database as canonical Extended JSON (to compare
// types as well as values), hand-made archives (to try what the server must refuse), and a bucket
// server that serves a different archive on the second read.
import tar from 'tar-stream';
import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createGzip } from 'node:zlib';
import { BSON, type Db } from 'mongodb';

/**
 * Every collection's documents by `_id`, in canonical Extended JSON (each value carries its type:
 * `$oid`, `$date`, `$numberDecimal`, `$numberLong`, `$binary`...), parsed so that a deep equal
 * compares types and values but not the order of fields (the server may put `_id` first).
 */
export async function dumpDatabase(db: Db): Promise<Record<string, unknown[]>> {
  const names = (await db.listCollections({}, { nameOnly: true }).toArray())
    .map((c) => c.name)
    .filter((n) => !n.startsWith('system.'))
    .sort();
  const out: Record<string, unknown[]> = {};
  for (const name of names) {
    const docs = await db.collection(name).find({}).sort({ _id: 1 }).toArray();
    out[name] = docs.map((d) => JSON.parse(BSON.EJSON.stringify(d, { relaxed: false })) as unknown);
  }
  return out;
}

/** A tar.gz holding only this manifest. */
export async function packArchive(manifest: object): Promise<Buffer> {
  const pack = tar.pack();
  const text = Buffer.from(JSON.stringify(manifest));
  pack.entry({ name: 'manifest.json', size: text.length }, text);
  pack.finalize();
  const chunks: Buffer[] = [];
  for await (const chunk of pack.pipe(createGzip())) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** A tar.gz of a manifest listing `parts` with their real sizes, line counts and SHA-256, then the parts. */
export async function packParts(
  header: { project: { id: string; name: string }; includesUsers?: boolean; formatVersion?: number },
  parts: { name: string; body: Buffer }[],
): Promise<Buffer> {
  const manifest = {
    formatVersion: 1,
    createdAt: new Date().toISOString(),
    includesUsers: false,
    ...header,
    parts: parts.map(({ name, body }) => ({
      name,
      count: name.startsWith('files/') ? 0 : body.toString('utf8').split('\n').length - 1,
      size: body.length,
      sha256: createHash('sha256').update(body).digest('hex'),
      ...(name.startsWith('data/') ? { bsonBytes: body.length } : {}),
    })),
  };
  const pack = tar.pack();
  const text = Buffer.from(JSON.stringify(manifest));
  pack.entry({ name: 'manifest.json', size: text.length }, text);
  for (const { name, body } of parts) pack.entry({ name, size: body.length }, body);
  pack.finalize();
  const chunks: Buffer[] = [];
  for await (const chunk of pack.pipe(createGzip())) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Records as the JSON Lines of a part (canonical Extended JSON, as a backup writes them). */
export const jsonLines = (...docs: object[]) =>
  Buffer.from(docs.map((d) => `${BSON.EJSON.stringify(d, { relaxed: false })}\n`).join(''));

/**
 * An S3 lookalike in front of the stack's S3 server that forwards every request as it is (the
 * Host header kept, so signatures still hold) except the GETs of a backup archive once armed:
 * the first one gets the real object, every later one `bytes` (a bucket its tenant controls,
 * serving a different archive on the second read).
 */
export async function swappingS3Proxy(upstream: string) {
  const to = new URL(upstream);
  let swap: Buffer | undefined;
  let servedSinceArmed = 0;
  let archiveGets = 0;
  const server = http.createServer((req, res) => {
    const isArchive = req.method === 'GET' && /\/backup-[0-9a-f]{24}-[0-9a-f]+\.tar\.gz/.test(req.url ?? '');
    if (isArchive) archiveGets += 1;
    const swapThis = isArchive && swap !== undefined && servedSinceArmed++ >= 1;
    const up = http.request(
      { host: to.hostname, port: to.port, method: req.method, path: req.url, headers: req.headers },
      (upRes) => {
        if (!swapThis || upRes.statusCode !== 200) {
          res.writeHead(upRes.statusCode ?? 502, upRes.headers);
          upRes.pipe(res);
          return;
        }
        upRes.resume();
        const headers = Object.fromEntries(
          Object.entries(upRes.headers).filter(
            ([name]) => !/^(content-length|etag|content-md5|x-amz-checksum-.*)$/.test(name),
          ),
        );
        res.writeHead(200, { ...headers, 'content-length': String(swap!.length) });
        res.end(swap);
      },
    );
    up.on('error', () => res.destroy());
    req.pipe(up);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    /** From the next GET of an archive on, every GET after the first serves `bytes`. */
    swapAfterFirstRead(bytes: Buffer) {
      swap = bytes;
      servedSinceArmed = 0;
    },
    stopSwapping() {
      swap = undefined;
    },
    get archiveGets() {
      return archiveGets;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/**
 * The same gzip stream grown to exactly `size` bytes by a comment in its header (which readers
 * skip), so that a different archive can have the size a backup recorded.
 */
export function padGzip(gz: Buffer, size: number): Buffer {
  const pad = size - gz.length - 1;
  if (pad < 0 || gz[3] !== 0) throw new Error(`cannot pad ${gz.length} bytes of gzip to ${size}`);
  const header = Buffer.from(gz.subarray(0, 10));
  header[3] = 0x10; // FCOMMENT
  return Buffer.concat([header, Buffer.alloc(pad, 0x61), Buffer.from([0]), gz.subarray(10)]);
}
