// Backup archives in the internal object store, under `<projectId>/backup-<backupId>-<random>.tar.gz`
// (deleted with the project's files; the random part keeps the key unguessable should the bucket
// be readable by URL, and no file record names it, so the filesystem store never serves it). Both stores take a stream of known length and give one
// back; the S3 store also signs short-lived GET URLs, the filesystem store is read through the API.
import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import type { Readable } from 'node:stream';
import type { InternalStore } from './index.js';

const TYPE = 'application/gzip';

export interface ArchiveStore {
  put(key: string, file: string, size: number): Promise<void>;
  /** Stores a stream of known length (a restored file's bytes) with its content type. */
  putStream(key: string, body: Readable, size: number, contentType: string): Promise<void>;
  /** The public URL of a stored file, as the store gives it. */
  publicUrl(key: string): string | undefined;
  open(key: string): Promise<{ stream: Readable; size: number } | undefined>;
  /** A signed URL valid `expiresInSeconds`, or undefined when the store serves none. */
  downloadUrl(key: string, expiresInSeconds: number, fileName: string): Promise<string | undefined>;
  delete(key: string): Promise<void>;
}

export const archiveKey = (projectId: string, backupId: string) =>
  `${projectId}/backup-${backupId}-${randomBytes(16).toString('hex')}.tar.gz`;

export function archiveStore(store: InternalStore): ArchiveStore {
  return {
    async put(key, file, size) {
      if (store.backend === 's3') return store.put(key, createReadStream(file), size, TYPE);
      const written = await store.write(key, createReadStream(file), { contentType: TYPE, maxSize: size });
      if (!written.ok) throw new Error(`archive not stored: ${written.reason}`);
    },
    async putStream(key, body, size, contentType) {
      if (store.backend === 's3') return store.put(key, body, size, contentType);
      const written = await store.write(key, body, { contentType, maxSize: size });
      if (!written.ok) throw new Error(`file not stored: ${written.reason}`);
    },
    publicUrl: (key) => store.publicUrl(key),
    open: (key) => store.open(key),
    async downloadUrl(key, expiresInSeconds, fileName) {
      return store.backend === 's3' ? store.presignGet(key, expiresInSeconds, fileName) : undefined;
    },
    delete: (key) => store.delete(key),
  };
}
