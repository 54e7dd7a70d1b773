// Files (`/api/storage`): the presigned flow in one call (ask for a URL, PUT the bytes there,
// confirm), with upload progress where the platform reports it (XMLHttpRequest in a browser),
// and delete.
import { MongobaasError } from './errors.js';
import type { Transport } from './transport.js';

export interface UploadOptions {
  /** The file's name (a File's own name by default). */
  filename?: string;
  /** The MIME type (a Blob's own type, else application/octet-stream). */
  contentType?: string;
  /** Bytes; required for a stream, read from a Blob or buffer otherwise. */
  size?: number;
  /** Bytes sent so far, and the total. */
  onProgress?: (sent: number, total: number) => void;
  signal?: AbortSignal;
}

export interface StoredFile {
  /** `<projectId>/<uuid>_<name>`: keep it to delete the file. */
  path: string;
  /** The public URL, or null when the project's bucket has none (then `warning` says so). */
  url: string | null;
  size: number;
  provider: 'internal' | 'external';
  warning?: string;
}

interface Ticket {
  signedUrl: string;
  filePath: string;
}

type Body = Blob | ArrayBuffer | Uint8Array | ReadableStream<Uint8Array>;

const sizeOf = (body: Body): number | undefined =>
  body instanceof Blob ? body.size : body instanceof ReadableStream ? undefined : body.byteLength;

export class Storage {
  constructor(private readonly http: Transport) {}

  async upload(body: Body, options: UploadOptions = {}): Promise<StoredFile> {
    const size = options.size ?? sizeOf(body);
    if (size === undefined) throw new TypeError('upload: give `size` with a stream');
    const filename =
      options.filename ?? (typeof File !== 'undefined' && body instanceof File ? body.name : undefined);
    if (!filename) throw new TypeError('upload: give `filename` (a Blob or buffer has no name)');
    const contentType =
      options.contentType || (body instanceof Blob && body.type) || 'application/octet-stream';
    const ticket = await this.http.data<Ticket>('POST', '/api/storage/upload-request', {
      body: { filename, contentType, size },
      signal: options.signal,
    });
    await this.put(ticket.signedUrl, body, contentType, size, options);
    return this.http.data<StoredFile>('POST', '/api/storage/upload-confirm', {
      body: { filePath: ticket.filePath, size },
      signal: options.signal,
    });
  }

  /** Deletes the file for good and gives its bytes back to the project's storage. */
  async remove(path: string): Promise<void> {
    await this.http.data('DELETE', '/api/storage/file', { body: { path } });
  }

  private async put(url: string, body: Body, contentType: string, size: number, options: UploadOptions) {
    if (options.onProgress && typeof XMLHttpRequest !== 'undefined' && !(body instanceof ReadableStream)) {
      return putWithProgress(url, body, contentType, options.onProgress, options.signal);
    }
    const init: RequestInit & { duplex?: 'half' } = {
      method: 'PUT',
      headers: { 'content-type': contentType },
      body: body as BodyInit,
      signal: options.signal,
    };
    if (body instanceof ReadableStream) init.duplex = 'half';
    options.onProgress?.(0, size);
    const response = await this.http.rawFetch(url, init).catch((cause: unknown) => {
      throw new MongobaasError({
        status: 0,
        code: 'NETWORK_ERROR',
        message: `The upload failed: ${String(cause)}`,
        cause,
      });
    });
    if (!response.ok) {
      throw new MongobaasError({
        status: response.status,
        code: 'UPLOAD_FAILED',
        message: `The store refused the upload (${response.status}): ${(await response.text()).slice(0, 200)}`,
      });
    }
    options.onProgress?.(size, size);
  }
}

function putWithProgress(
  url: string,
  body: Blob | ArrayBuffer | Uint8Array,
  contentType: string,
  onProgress: (sent: number, total: number) => void,
  signal: AbortSignal | undefined,
): Promise<void> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('PUT', url);
    xhr.setRequestHeader('content-type', contentType);
    xhr.upload.onprogress = (event) => onProgress(event.loaded, event.total);
    xhr.onload = () =>
      xhr.status >= 200 && xhr.status < 300
        ? resolve()
        : reject(
            new MongobaasError({
              status: xhr.status,
              code: 'UPLOAD_FAILED',
              message: `The store refused the upload (${xhr.status})`,
            }),
          );
    xhr.onerror = () =>
      reject(new MongobaasError({ status: 0, code: 'NETWORK_ERROR', message: 'The upload failed' }));
    signal?.addEventListener('abort', () => xhr.abort());
    xhr.send(body as XMLHttpRequestBodyInit);
  });
}
