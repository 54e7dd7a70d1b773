// File storage on the public API: upload request, confirm, delete (secret key, or end users when
// the project allows it), and the filesystem store's own endpoints: signed uploads and public files.
import type { operations } from '../../generated/public.js';
import type { Handler } from '../http/types.js';
import { firstHeader } from '../http/headers.js';
import { notFound } from '../http/errors.js';
import type { Services } from '../services/index.js';

type Ops = operations;

/**
 * Served files: the stored type, never sniffed, and sandboxed (an uploaded page gets no origin).
 * CORS comes from the public CORS middleware (any origin: no cookie is read on these paths).
 */
const FILE_HEADERS = {
  'X-Content-Type-Options': 'nosniff',
  'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; sandbox",
  'Cross-Origin-Resource-Policy': 'cross-origin',
  'Cache-Control': 'public, max-age=300',
};

export function storageHandlers({ storage }: Services) {
  const requestUpload: Handler<Ops['requestUpload']> = async ({ body }, ctx) => {
    const data = await storage.uploads.requestUpload(ctx, body);
    return { status: 200, body: { success: true, data, message: 'Upload URL created' } };
  };

  const confirmUpload: Handler<Ops['confirmUpload']> = async ({ body }, ctx) => {
    const data = await storage.uploads.confirmUpload(ctx, body);
    return { status: 200, body: { success: true, data, message: data.message } };
  };

  const deleteFile: Handler<Ops['deleteFile']> = async ({ body }, ctx) => {
    await storage.uploads.deleteFile(ctx, body.path);
    return { status: 200, body: { success: true, data: {}, message: 'File deleted successfully' } };
  };

  const uploadObject: Handler<Ops['uploadObject']> = async ({ params, query, headers, rawBody }) => {
    const data = await storage.local.receiveUpload({
      projectId: params.projectId,
      fileName: params.fileName,
      expires: query.expires,
      maxSize: query.maxSize,
      signature: query.signature,
      contentType: firstHeader(headers, 'content-type'),
      contentLength: firstHeader(headers, 'content-length'),
      body: rawBody,
    });
    return {
      status: 200,
      body: { success: true, data, message: 'Upload received; confirm it next' },
    };
  };

  const getFile: Handler<Ops['getFile']> = async ({ params }) => {
    const file = await storage.local.openFile(params.projectId, params.fileName);
    if (!file) throw notFound('File not found', 'FILE_NOT_FOUND');
    return {
      status: 200,
      body: file.stream,
      headers: { ...FILE_HEADERS, 'Content-Type': file.contentType, 'Content-Length': String(file.size) },
    };
  };

  return { requestUpload, confirmUpload, deleteFile, uploadObject, getFile };
}
