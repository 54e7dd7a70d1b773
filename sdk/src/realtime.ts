// A collection's events as they happen (`/api/realtime/{collection}`, Server-Sent Events), read
// with fetch so that the key and the user's token go in headers. One connection per
// subscription. A dropped connection is opened again with backoff and resumed from the last event
// id, so no event is lost while the service still has it (else a `reset` says to read again); a
// stream closed for an expired token is resumed with a fresh one.
import { MongobaasError } from './errors.js';
import { filterQuery, type Filter } from './filters.js';
import { errorOf, type Transport } from './transport.js';

export type ChangeType = 'document.created' | 'document.updated' | 'document.deleted' | 'document.restored';

export interface ChangeEvent<T> {
  type: ChangeType;
  /** The document's `_id`. */
  id: string;
  at: string;
  /** The document after the change; null for a delete. */
  document: T | null;
  /** The stream's event id (`<epoch>-<seq>`). */
  eventId: string;
}

export interface SubscribeOptions<T> {
  filter?: Filter<T>;
  onEvent: (event: ChangeEvent<T>) => void;
  /** The stream is live (after any missed events were replayed). */
  onReady?: () => void;
  /** Events may have been missed: read the collection again. */
  onReset?: () => void;
  /** The subscription ended for good (revoked, deleted, refused); no more reconnects. */
  onError?: (error: MongobaasError) => void;
  /** The first wait before a reconnect (default 500 ms), doubled up to 30 s. */
  backoffMs?: number;
}

export interface Subscription {
  close(): void;
}

interface Frame {
  id?: string;
  event: string;
  data: string;
}

/** Frames of a text/event-stream, as the HTML standard parses them. */
export async function* frames(body: ReadableStream<Uint8Array>): AsyncGenerator<Frame> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let frame: Frame = { event: 'message', data: '' };
  let hasData = false;
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    buffer += decoder.decode(value, { stream: true });
    let end: number;
    while ((end = buffer.search(/\r\n|\r|\n/)) >= 0) {
      const line = buffer.slice(0, end);
      buffer = buffer.slice(end + (buffer.startsWith('\r\n', end) ? 2 : 1));
      if (line === '') {
        if (hasData || frame.event !== 'message') yield frame;
        frame = { event: 'message', data: '' };
        hasData = false;
        continue;
      }
      if (line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + (line[colon + 1] === ' ' ? 2 : 1));
      if (field === 'data') {
        frame.data = hasData ? `${frame.data}\n${value}` : value;
        hasData = true;
      } else if (field === 'event') frame.event = value;
      else if (field === 'id') frame.id = value;
    }
  }
}

const FINAL = new Set(['TOKEN_REVOKED', 'KEY_REVOKED', 'COLLECTION_DELETED', 'SESSION_ENDED']);

export function subscribe<T>(
  http: Transport,
  collection: string,
  options: SubscribeOptions<T>,
): Subscription {
  const abort = new AbortController();
  let lastEventId: string | undefined;
  let closed = false;
  const first = options.backoffMs ?? 500;
  let delay = first;
  let expiredToken: string | undefined;

  const fail = (error: MongobaasError) => {
    closed = true;
    abort.abort();
    options.onError?.(error);
  };

  async function connect(): Promise<'again' | 'stop'> {
    let token = http.tokens ? await http.tokens.accessToken() : null;
    if (token && token === expiredToken && http.tokens) token = await http.tokens.renew(token);
    const headers: Record<string, string> = { 'x-api-key': http.key, accept: 'text/event-stream' };
    if (token) headers.authorization = `Bearer ${token}`;
    if (lastEventId) headers['last-event-id'] = lastEventId;
    const response = await http.rawFetch(
      http.href(`/api/realtime/${encodeURIComponent(collection)}`, filterQuery(options.filter)),
      {
        headers,
        signal: abort.signal,
      },
    );
    if (!response.ok || !response.body) {
      const error = await errorOf(response);
      if (response.status === 429 || response.status >= 500) return 'again';
      if (response.status === 401 && error.code === 'TOKEN_EXPIRED' && token && token !== expiredToken) {
        expiredToken = token;
        return 'again';
      }
      fail(error);
      return 'stop';
    }
    for await (const frame of frames(response.body)) {
      if (frame.id) lastEventId = frame.id;
      if (frame.event === 'ready') {
        delay = first;
        options.onReady?.();
      } else if (frame.event === 'reset') options.onReset?.();
      else if (frame.event === 'close') {
        const { reason, message } = JSON.parse(frame.data) as { reason: string; message: string };
        if (reason === 'TOKEN_EXPIRED') expiredToken = token ?? undefined;
        if (FINAL.has(reason)) {
          fail(new MongobaasError({ status: 0, code: reason, message }));
          return 'stop';
        }
        return 'again';
      } else if (frame.event.startsWith('document.')) {
        const event = JSON.parse(frame.data) as Omit<ChangeEvent<T>, 'eventId'>;
        options.onEvent({ ...event, eventId: frame.id ?? '' });
      }
    }
    return 'again';
  }

  void (async () => {
    while (!closed) {
      const next = await connect().catch(() => 'again' as const);
      if (next === 'stop' || closed) return;
      // Jittered, so a restarted server is not met by every client at once.
      await new Promise((resolve) => setTimeout(resolve, delay * (0.5 + Math.random() / 2)));
      delay = Math.min(delay * 2, 30_000);
    }
  })();

  return {
    close() {
      closed = true;
      abort.abort();
    },
  };
}
