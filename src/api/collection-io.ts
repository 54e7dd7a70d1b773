// Export and import of one collection, JSON Lines or CSV (services/backups/collection-io.ts): on
// the dashboard for project members, on the public API with the secret key. The import's body is
// streamed into the import unless it is JSON.
import type { Readable } from 'node:stream';
import type { operations } from '../../generated/dashboard.js';
import type { operations as PublicOps } from '../../generated/public.js';
import { ApiError } from '../http/errors.js';
import type { Handler } from '../http/types.js';
import type { RequestContext } from '../services/context.js';
import type { Services } from '../services/index.js';

type Ops = operations;
type Format = 'jsonl' | 'csv';
type Mode = 'all-or-nothing' | 'skip-invalid';

const mediaType = (value: string | string[] | undefined) =>
  String(value ?? '')
    .split(';')[0]!
    .trim()
    .toLowerCase();

/** The JSON form of an import (the text inside the body), as both documents define it. */
interface JsonImport {
  format: Format;
  mode?: Mode;
  owner?: string;
  content: string;
}

function collectionIo({ backups }: Services) {
  /** `projectId`: the dashboard's; null for the secret key's project. */
  async function exportOf(
    ctx: RequestContext,
    projectId: string | null,
    name: string,
    query: { format?: Format; escapeFormulas?: boolean },
  ) {
    const format = query.format ?? 'jsonl';
    const stream = await backups.io.exportCollection(ctx, projectId, name, format, {
      escapeFormulas: query.escapeFormulas,
    });
    return {
      status: 200 as const,
      body: stream,
      headers: {
        'Content-Type': format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson',
        'Content-Disposition': `attachment; filename="${name}.${format}"`,
      },
    };
  }

  async function importInto(
    ctx: RequestContext,
    projectId: string | null,
    name: string,
    request: {
      query: { mode?: Mode; owner?: string };
      body: JsonImport | undefined;
      headers: Record<string, string | string[] | undefined>;
      rawBody: Readable;
    },
  ) {
    const { query, body, headers, rawBody } = request;
    // JSON: the older form, the text inside a body koa-body has read (within the body limit).
    // JSON Lines or CSV: the body itself, unread so far, streamed into the import.
    const json = mediaType(headers['content-type']) === 'application/json';
    let result;
    try {
      result = await backups.io.importCollection(ctx, projectId, name, {
        format: json ? body!.format : mediaType(headers['content-type']) === 'text/csv' ? 'csv' : 'jsonl',
        mode: (json ? body!.mode : undefined) ?? query.mode ?? 'all-or-nothing',
        owner: (json ? body!.owner : undefined) ?? query.owner,
        // Not destroyed when the import stops reading early: the answer must still go out.
        body: json ? [body!.content] : rawBody.iterator({ destroyOnReturn: false }),
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
    return { status: 200 as const, body: { success: true as const, data: result, message } };
  }

  const exportCollection: Handler<Ops['exportCollection']> = ({ params, query }, ctx) =>
    exportOf(ctx, params.projectId, params.collectionName, query);
  const importCollection: Handler<Ops['importCollection']> = ({ params, ...request }, ctx) =>
    importInto(ctx, params.projectId, params.collectionName, request);
  const exportProjectCollection: Handler<PublicOps['exportProjectCollection']> = ({ params, query }, ctx) =>
    exportOf(ctx, null, params.collectionName, query);
  const importProjectCollection: Handler<PublicOps['importProjectCollection']> = (
    { params, ...request },
    ctx,
  ) => importInto(ctx, null, params.collectionName, request);

  return {
    dashboard: { exportCollection, importCollection },
    key: { exportProjectCollection, importProjectCollection },
  };
}

export const collectionIoHandlers = (services: Services) => collectionIo(services).dashboard;
export const publicCollectionIoHandlers = (services: Services) => collectionIo(services).key;
