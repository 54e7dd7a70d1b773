// The public API as object store when the internal provider is the filesystem: it receives the
// bytes PUT to a signed upload URL, and serves confirmed files publicly at /files/<path>.
import type { Readable } from 'node:stream';
import { ApiError } from '../../http/errors.js';
import type { FilesRepo } from '../../db/files.js';
import type { FsObjectStore, InternalStore } from '../../storage/index.js';
import { parseFilePath } from './paths.js';

// Signed upload URLs are used from browsers of any origin (the signature is the credential): the
// public CORS middleware grants every origin on these paths, errors included.
const refused = (status: number, code: string, message: string) => new ApiError(status, code, message);

export interface UploadInput {
  projectId: string;
  fileName: string;
  expires: number;
  maxSize: number;
  signature: string;
  contentType: string | undefined;
  contentLength: string | undefined;
  body: Readable;
}

export interface ServedFile {
  stream: Readable;
  size: number;
  contentType: string;
}

export function localFilesService(files: FilesRepo, internal: InternalStore) {
  const fsStore = (): FsObjectStore | undefined => (internal.backend === 'fs' ? internal : undefined);

  return {
    /** Stores the body of a PUT to a signed upload URL (filesystem store only). */
    async receiveUpload(input: UploadInput): Promise<{ path: string; size: number }> {
      const store = fsStore();
      if (!store) {
        throw refused(404, 'NOT_FOUND', 'Uploads go directly to the storage bucket on this installation');
      }
      const key = `${input.projectId}/${input.fileName}`;
      const check = parseFilePath(key)
        ? store.verifyUpload({
            key,
            contentType: input.contentType,
            maxSize: input.maxSize,
            expires: input.expires,
            signature: input.signature,
          })
        : ({ ok: false, reason: 'signature' } as const);
      if (!check.ok) {
        input.body.resume();
        throw check.reason === 'expired'
          ? refused(403, 'URL_EXPIRED', 'The upload URL has expired; request a new one')
          : refused(
              403,
              'SIGNATURE_MISMATCH',
              'The upload URL signature does not match (tampered URL, or a Content-Type other than the one requested)',
            );
      }
      // Only a pending upload takes bytes: once confirmed (and charged) or removed, never again.
      const open = async () => {
        const record = await files.findByPath(input.projectId, key);
        return record?.state === 'pending' && record.backend === 'fs' ? record : undefined;
      };
      const closed = () =>
        refused(
          403,
          'UPLOAD_CLOSED',
          'This upload URL is no longer valid: the upload was confirmed or removed',
        );
      const record = await open();
      if (!record) {
        input.body.resume();
        throw closed();
      }
      const length = input.contentLength === undefined ? undefined : Number(input.contentLength);
      const result = await store.write(key, input.body, {
        contentType: record.contentType,
        maxSize: input.maxSize,
        contentLength: Number.isFinite(length) ? length : undefined,
        mayCommit: async () => (await open()) !== undefined,
      });
      if (!result.ok && result.reason === 'closed') throw closed();
      if (!result.ok && result.reason === 'aborted') {
        throw refused(400, 'UPLOAD_ABORTED', 'The upload was interrupted before the body was complete');
      }
      if (!result.ok) {
        throw refused(
          413,
          'PAYLOAD_TOO_LARGE',
          `The body is larger than the ${input.maxSize} bytes requested`,
        );
      }
      return { path: key, size: result.size };
    },

    /** A confirmed file of the filesystem store, or undefined (404, also for folders). */
    async openFile(projectId: string, fileName: string): Promise<ServedFile | undefined> {
      const store = fsStore();
      const key = `${projectId}/${fileName}`;
      if (!store || !parseFilePath(key)) return undefined;
      const record = await files.findConfirmed(key);
      if (!record || record.provider !== 'internal' || record.backend !== 'fs') return undefined;
      const opened = await store.open(key);
      return opened && { ...opened, contentType: record.contentType };
    },
  };
}

export type LocalFilesService = ReturnType<typeof localFilesService>;
