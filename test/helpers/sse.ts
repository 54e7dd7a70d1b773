// A Server-Sent Events client for the realtime tests, over plain node:http so that a test can
// also stop reading (a slow client) or see the server drop the connection. A 200 stream is
// recorded for the response-coverage check like the JSON client's answers.
import http from 'node:http';
import { expect } from 'chai';
import { exercised } from './client.js';

export interface SseEvent {
  id?: string;
  event: string;
  data: any;
}

export class SseStream {
  readonly events: SseEvent[] = [];
  /** Comment lines received (heartbeats). */
  comments = 0;
  ended = false;
  private buffer = '';
  private waiters: (() => void)[] = [];

  private constructor(
    readonly req: http.ClientRequest,
    readonly res: http.IncomingMessage,
  ) {
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => this.feed(chunk));
    const done = () => {
      this.ended = true;
      this.wake();
    };
    res.on('end', done);
    res.on('close', done);
    res.on('error', done);
  }

  /** Opens a stream (recorded as `operation`'s 200); resolves with the stream on 200, rejects with the status and body otherwise. */
  static open(
    url: string,
    headers: Record<string, string> = {},
    operation: { role: 'public' | 'dashboard'; operationId: string } = {
      role: 'public',
      operationId: 'streamDocuments',
    },
  ): Promise<SseStream> {
    return new Promise((resolve, reject) => {
      const req = http.get(url, { headers: { accept: 'text/event-stream', ...headers }, agent: false });
      req.on('error', reject);
      req.on('response', (res) => {
        if (res.statusCode !== 200) {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => (body += c));
          res.on('end', () =>
            reject(
              Object.assign(new Error(`status ${res.statusCode}: ${body}`), { status: res.statusCode, body }),
            ),
          );
          return;
        }
        expect(res.headers['content-type']).to.match(/^text\/event-stream/);
        expect(res.headers['x-request-id']).to.be.a('string');
        let seen = exercised.get(operation.role);
        if (!seen) exercised.set(operation.role, (seen = new Set()));
        seen.add(`${operation.operationId} 200`);
        resolve(new SseStream(req, res));
      });
    });
  }

  private feed(chunk: string) {
    this.buffer += chunk;
    let end: number;
    while ((end = this.buffer.indexOf('\n\n')) >= 0) {
      const block = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(end + 2);
      const event: SseEvent = { event: 'message', data: undefined };
      let data: string | undefined;
      let onlyComments = true;
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) continue;
        onlyComments = false;
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'id') event.id = value;
        else if (field === 'event') event.event = value;
        else if (field === 'data') data = data === undefined ? value : `${data}\n${value}`;
      }
      if (onlyComments) this.comments += 1;
      else if (data !== undefined) {
        event.data = JSON.parse(data);
        this.events.push(event);
      }
    }
    this.wake();
  }

  private wake() {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }

  private async until(test: () => boolean, ms: number, what: string) {
    const deadline = Date.now() + ms;
    while (!test()) {
      if (Date.now() > deadline) {
        throw new Error(
          `timed out waiting for ${what}; got ${JSON.stringify(this.events.map((e) => e.event))}`,
        );
      }
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 50);
      });
    }
  }

  /** Waits until `count` events of these types (all events when none named) have arrived. */
  async waitFor(count: number, types?: string[], ms = 5000): Promise<SseEvent[]> {
    const of = () => this.events.filter((e) => !types || types.includes(e.event));
    await this.until(() => of().length >= count, ms, `${count} events ${types?.join(',') ?? ''}`);
    return of();
  }

  /** The document events received so far. */
  documents(): SseEvent[] {
    return this.events.filter((e) => e.event.startsWith('document.'));
  }

  async waitEnded(ms = 5000): Promise<void> {
    await this.until(() => this.ended, ms, 'the end of the stream');
  }

  async waitComments(count: number, ms = 5000): Promise<void> {
    await this.until(() => this.comments >= count, ms, `${count} comments`);
  }

  /** Stops reading: what the server sends piles up in the socket buffers, then in the server. */
  pause(): void {
    this.res.pause();
  }

  close(): void {
    this.req.destroy();
  }
}

/** The stream URL of a collection, with query parameters. */
export function streamUrl(base: string, collection: string, query: Record<string, string> = {}): string {
  const url = new URL(`/api/realtime/${collection}`, base);
  for (const [k, v] of Object.entries(query)) url.searchParams.set(k, v);
  return url.toString();
}

/** A short pause, for "nothing more arrives" checks. */
export const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
