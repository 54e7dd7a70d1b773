// /api/realtime/:collectionName: a collection's document events as Server-Sent Events.
import type { operations } from '../../generated/public.js';
import type { Handler } from '../http/types.js';
import { firstHeader } from '../http/headers.js';
import type { Services } from '../services/index.js';

/** No caching or buffering by proxies (nginx reads X-Accel-Buffering), so events flow at once. */
export const STREAM_HEADERS = {
  'Content-Type': 'text/event-stream; charset=utf-8',
  'Cache-Control': 'no-cache, no-transform',
  'X-Accel-Buffering': 'no',
};

export function realtimeHandlers(services: Services) {
  const streamDocuments: Handler<operations['streamDocuments']> = async ({ params, query, headers }, ctx) => {
    const stream = await services.realtime.open(
      ctx,
      params.collectionName,
      query as Record<string, unknown>,
      firstHeader(headers, 'last-event-id'),
    );
    return { status: 200, body: stream, headers: STREAM_HEADERS };
  };
  return { streamDocuments };
}
