// The filesystem object store (the default `internal` provider). Uploads go to a signed, expiring
// URL of the public API itself (HMAC over key, content type, size limit and expiry, with a key
// derived from ENCRYPTION_KEY); the public API serves the files. Layout under STORAGE_DIR:
// `objects/<key>`, `meta/<key>.json` (content type), `tmp/` for uploads in progress.
import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { copyFile, mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { deriveKey } from '../lib/secrets.js';
import type {
  FsObjectStore,
  ObjectInfo,
  PresignInput,
  UploadCheck,
  UploadCheckInput,
  WriteOptions,
  WriteResult,
} from './types.js';

/** `<project_id>/<name>`: one level, a safe character set, no dot segments. */
const KEY = /^[0-9a-f]{24}\/[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/;
const PREFIX = /^[0-9a-f]{24}$/;

export const UPLOAD_ROUTE = '/api/storage/objects/';

export interface FsStoreOptions {
  dir: string;
  /** Base URL of the public API (PUBLIC_URL). */
  publicUrl: string;
  encryptionKey: Buffer;
}

export function fsStore({ dir, publicUrl, encryptionKey }: FsStoreOptions): FsObjectStore {
  const root = path.resolve(dir);
  const objects = path.join(root, 'objects');
  const meta = path.join(root, 'meta');
  const tmp = path.join(root, 'tmp');
  const signingKey = deriveKey(encryptionKey, 'storage-upload-url-v1');
  const base = publicUrl.replace(/\/+$/, '');

  /** The file of a key, or undefined for anything that is not a well-formed key inside the store. */
  function fileOf(folder: string, key: string, suffix = ''): string | undefined {
    if (!KEY.test(key) || key.includes('..')) return undefined;
    const file = path.join(folder, ...key.split('/')) + suffix;
    return file.startsWith(folder + path.sep) ? file : undefined;
  }

  const sign = (key: string, contentType: string, maxSize: number, expires: number) =>
    createHmac('sha256', signingKey)
      .update(['v1', 'PUT', key, contentType.trim(), String(maxSize), String(expires)].join('\n'))
      .digest('base64url');

  return {
    backend: 'fs',

    async presignPut({ key, contentType, size, expiresInSeconds, now = new Date() }: PresignInput) {
      if (!fileOf(objects, key)) throw new Error(`Invalid object key ${key}`);
      const expires = Math.floor(now.getTime() / 1000) + expiresInSeconds;
      const query = new URLSearchParams({
        expires: String(expires),
        maxSize: String(size),
        signature: sign(key, contentType, size, expires),
      });
      return { url: `${base}${UPLOAD_ROUTE}${key}?${query}`, expiresAt: new Date(expires * 1000) };
    },

    verifyUpload({ key, contentType, maxSize, expires, signature, now = new Date() }: UploadCheckInput) {
      const expected = Buffer.from(sign(key, contentType ?? '', maxSize, expires));
      const given = Buffer.from(signature);
      if (expected.length !== given.length || !timingSafeEqual(expected, given)) {
        return { ok: false, reason: 'signature' } satisfies UploadCheck;
      }
      if (expires * 1000 < now.getTime()) return { ok: false, reason: 'expired' } satisfies UploadCheck;
      return { ok: true } satisfies UploadCheck;
    },

    async write(
      key: string,
      body: Readable,
      { contentType, maxSize, contentLength, mayCommit }: WriteOptions,
    ) {
      const target = fileOf(objects, key);
      const metaFile = fileOf(meta, key, '.json');
      if (!target || !metaFile) throw new Error(`Invalid object key ${key}`);
      if (contentLength !== undefined && contentLength > maxSize) {
        body.resume(); // drain, so the client gets the answer instead of a reset connection
        return { ok: false, reason: 'too-large' } satisfies WriteResult;
      }
      await mkdir(tmp, { recursive: true });
      const temp = path.join(tmp, randomUUID());
      let size: number | 'too-large' | 'aborted';
      try {
        size = await receive(body, temp, maxSize);
      } catch (err) {
        await rm(temp, { force: true });
        throw err;
      }
      if (typeof size !== 'number') {
        await rm(temp, { force: true });
        return { ok: false, reason: size } satisfies WriteResult;
      }
      if (mayCommit && !(await mayCommit())) {
        await rm(temp, { force: true });
        return { ok: false, reason: 'closed' } satisfies WriteResult;
      }
      try {
        await mkdir(path.dirname(target), { recursive: true });
        await mkdir(path.dirname(metaFile), { recursive: true });
        await writeFile(metaFile, JSON.stringify({ contentType, size }));
        await rename(temp, target);
      } catch (err) {
        await rm(temp, { force: true });
        throw err;
      }
      return { ok: true, size } satisfies WriteResult;
    },

    async head(key: string): Promise<ObjectInfo | undefined> {
      const file = fileOf(objects, key);
      const metaFile = fileOf(meta, key, '.json');
      if (!file || !metaFile) return undefined;
      const info = await stat(file).catch(() => undefined);
      if (!info?.isFile()) return undefined;
      const stored = await readFile(metaFile, 'utf8')
        .then((text) => JSON.parse(text) as { contentType?: string })
        .catch(() => ({ contentType: undefined }));
      return { size: info.size, contentType: stored.contentType };
    },

    async open(key: string) {
      const file = fileOf(objects, key);
      if (!file) return undefined;
      const info = await stat(file).catch(() => undefined);
      if (!info?.isFile()) return undefined;
      return { stream: createReadStream(file), size: info.size };
    },

    async copy(source: string, target: string) {
      const [from, to] = [fileOf(objects, source), fileOf(objects, target)];
      const [fromMeta, toMeta] = [fileOf(meta, source, '.json'), fileOf(meta, target, '.json')];
      if (!from || !to || !fromMeta || !toMeta) throw new Error(`Invalid object key ${source} or ${target}`);
      if (!(await stat(from).catch(() => undefined))?.isFile()) return false;
      await mkdir(path.dirname(to), { recursive: true });
      await mkdir(path.dirname(toMeta), { recursive: true });
      await copyFile(fromMeta, toMeta).catch(() => undefined);
      await copyFile(from, to);
      return true;
    },

    async delete(key: string) {
      const file = fileOf(objects, key);
      const metaFile = fileOf(meta, key, '.json');
      if (!file || !metaFile) return;
      await rm(file, { force: true });
      await rm(metaFile, { force: true });
    },

    async deletePrefix(prefix: string) {
      if (!PREFIX.test(prefix)) throw new Error(`Invalid prefix ${prefix}`);
      await rm(path.join(objects, prefix), { recursive: true, force: true });
      await rm(path.join(meta, prefix), { recursive: true, force: true });
    },

    publicUrl: (key: string) => `${base}/files/${key}`,
  };
}

/**
 * Streams the body into `file`, with backpressure. Returns the size; 'too-large' once more than
 * `maxSize` bytes arrived (the rest of the body is then drained, not destroyed, so the client still
 * reads the answer); 'aborted' when the client went away. Rejects on disk errors only.
 */
function receive(body: Readable, file: string, maxSize: number): Promise<number | 'too-large' | 'aborted'> {
  return new Promise((resolve, reject) => {
    const out = createWriteStream(file, { flags: 'wx' });
    let size = 0;
    let done = false;
    const finish = (value: number | 'too-large' | 'aborted' | Error) => {
      if (done) return;
      done = true;
      if (value instanceof Error) reject(value);
      else resolve(value);
    };
    const stop = (value: 'too-large' | 'aborted') => {
      out.destroy();
      body.resume();
      finish(value);
    };
    body.on('data', (chunk: Buffer) => {
      if (done) return;
      size += chunk.length;
      if (size > maxSize) return stop('too-large');
      if (!out.write(chunk)) {
        body.pause();
        out.once('drain', () => body.resume());
      }
    });
    body.once('end', () => {
      if (!done) out.end();
    });
    body.once('error', () => stop('aborted'));
    body.once('aborted', () => stop('aborted'));
    out.once('finish', () => finish(size));
    out.once('error', (err) => finish(err));
  });
}
