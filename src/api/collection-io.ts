// Export and import of one collection on the dashboard (members): JSON Lines or CSV
// (services/backups/collection-io.ts); the import's body is streamed unless it is JSON.
import type { operations } from '../../generated/dashboard.js';
import { ApiError } from '../http/errors.js';
import type { Handler } from '../http/types.js';
import type { Services } from '../services/index.js';

type Ops = operations;

const mediaType = (value: string | string[] | undefined) =>
  String(value ?? '')
    .split(';')[0]!
    .trim()
    .toLowerCase();

export function collectionIoHandlers({ backups }: Services) {
  const exportCollection: Handler<Ops['exportCollection']> = async ({ params, query }, ctx) => {
    const format = query.format ?? 'jsonl';
    const stream = await backups.io.exportCollection(ctx, params.projectId, params.collectionName, format);
    return {
      status: 200,
      body: stream,
      headers: {
        'Content-Type': format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson',
        'Content-Disposition': `attachment; filename="${params.collectionName}.${format}"`,
      },
    };
  };

  const importCollection: Handler<Ops['importCollection']> = async (
    { params, query, body, headers, rawBody },
    ctx,
  ) => {
    // JSON: the older form, the text inside a body koa-body has read (within the body limit).
    // JSON Lines or CSV: the body itself, unread so far, streamed into the import.
    const json = mediaType(headers['content-type']) === 'application/json';
    let result;
    try {
      result = await backups.io.importCollection(ctx, params.projectId, params.collectionName, {
        format: json ? body.format : mediaType(headers['content-type']) === 'text/csv' ? 'csv' : 'jsonl',
        mode: (json ? body.mode : undefined) ?? query.mode ?? 'all-or-nothing',
        owner: (json ? body.owner : undefined) ?? query.owner,
        // Not destroyed when the import stops reading early: the answer must still go out.
        body: json ? [body.content] : rawBody.iterator({ destroyOnReturn: false }),
      });
    } catch (err) {
      // Refused before the whole body was read (a 413, a 403 at the quota): the rest is not read,
      // so the connection closes after the answer instead of carrying it into the next request.
      if (json || rawBody.readableEnded || !(err instanceof ApiError)) throw err;
      throw new ApiError(err.status, err.code, err.message, err.details, {
        ...err.headers,
        Connection: 'close',
      });
    }
    const message = `${result.imported} rows imported, ${result.rejectedRows} rows rejected`;
    return { status: 200, body: { success: true, data: result, message } };
  };

  return { exportCollection, importCollection };
}
