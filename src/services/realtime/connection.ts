// One subscriber's Server-Sent Events stream: the replay on (re)connection, then live events,
// each checked against the read rules of the moment (the collection's current RLS mode, the
// token user, the filters); heartbeats; the end of the stream when the token expires or is
// revoked, the API key it was opened with stops being valid, or (dashboard) the member's session
// or membership ends; and a bound on what may wait unsent for a slow client, past which it is
// dropped, and on what all of the process's clients may have waiting (buffer-budget.ts).
import { Readable } from 'node:stream';
import type { LogEntry, OpenedLog } from '../../cache/index.js';
import type { CollectionDef, KeyKind } from '../types.js';
import type { BufferBudget } from './buffer-budget.js';
import type { HubEvent, WireEvent } from './hub.js';
import type { Predicate } from './matcher.js';

export interface ConnectionSettings {
  heartbeatMs: number;
  maxBufferedBytes: number;
  /** The process's bound on what all streams hold unsent. */
  budget: BufferBudget;
  /** Suggested reconnection delay for EventSource (`retry:`). */
  retryMs: number;
}

export interface Subscriber {
  keyKind: KeyKind;
  /** The token user, when a Bearer token came with the key. */
  userId?: string;
  filter?: Predicate;
  /** Token times in seconds; the stream ends at expiry and on revocation. */
  token?: { issuedAt?: number; expiresAt?: number };
}

export type EndReason =
  | 'TOKEN_EXPIRED'
  | 'TOKEN_REVOKED'
  | 'KEY_REVOKED'
  | 'SESSION_ENDED'
  | 'COLLECTION_DELETED'
  | 'SERVER_SHUTDOWN';

const END_MESSAGES: Record<EndReason, string> = {
  TOKEN_EXPIRED: 'The access token expired; reconnect with a fresh token',
  TOKEN_REVOKED: 'The access token was revoked; sign in again',
  KEY_REVOKED: 'The API key was rotated or the project deleted; reconnect with a current key',
  SESSION_ENDED:
    'The dashboard session ended (log-out, password change, expiry) or access to the project was removed; sign in again',
  COLLECTION_DELETED: 'The collection was deleted',
  SERVER_SHUTDOWN: 'The server is restarting; reconnect',
};

const eventId = (epoch: string, seq: number) => `${epoch}-${seq}`;

/** The `data:` of a document event as every subscriber receives it; a delete carries no document. */
function frameOf(event: HubEvent): string {
  const data = {
    type: event.type,
    id: event.id,
    at: event.at,
    document: event.type === 'document.deleted' ? null : event.doc,
  };
  return `id: ${eventId(event.epoch, event.seq)}\nevent: ${event.type}\ndata: ${JSON.stringify(data)}\n\n`;
}

export class Connection {
  readonly stream: Readable;
  // Pushed to directly (no transform step); what it holds unread is what waits for the client.
  private readonly out = new Readable({ read() {} });
  private epoch = '';
  private seq = 0;
  /** Live events that arrive before the replay is written. */
  private pending: HubEvent[] | undefined = [];
  private readonly timers: NodeJS.Timeout[] = [];
  private ended = false;

  constructor(
    private readonly settings: ConnectionSettings,
    private readonly subscriber: Subscriber,
    private readonly checks: {
      isRevoked?: () => Promise<boolean>;
      /** True once the API key the stream was opened with no longer opens it. */
      keyRevoked: () => Promise<boolean>;
      /** True once whoever opened the stream may no longer read it (a member's session). */
      accessEnded?: () => Promise<boolean>;
      onEnd: () => void;
    },
  ) {
    this.stream = this.out;
    this.out.on('close', () => this.finish());
    this.out.on('error', () => this.finish());
  }

  /** Hands live events to this subscriber (the hub's sink), written in one chunk. */
  readonly sink = (events: HubEvent[]): void => {
    if (this.pending) this.pending.push(...events);
    else this.write(events.map((event) => this.frame(event)).join(''));
  };

  /**
   * Writes the start of the stream: a gap notice or the replay (checked against `def`, the
   * definition the stream was opened under), `ready`, then what came live meanwhile.
   */
  start(opened: OpenedLog, def: CollectionDef, afterSeq: number | undefined): void {
    this.write(`retry: ${this.settings.retryMs}\n\n`);
    this.epoch = opened.epoch;
    if (opened.gap) {
      this.seq = opened.seq;
      this.reset('EVENTS_MISSED');
    } else {
      this.seq = afterSeq ?? opened.seq;
      for (const entry of opened.entries) this.replay(entry, def);
      this.seq = Math.max(this.seq, opened.seq);
    }
    const id = eventId(this.epoch, this.seq);
    this.write(`id: ${id}\nevent: ready\ndata: ${JSON.stringify({ lastEventId: id })}\n\n`);
    const pending = this.pending ?? [];
    this.pending = undefined;
    this.write(pending.map((event) => this.frame(event)).join(''));
    this.timers.push(setInterval(() => void this.heartbeat(), this.settings.heartbeatMs));
    const expiresAt = this.subscriber.token?.expiresAt;
    if (expiresAt !== undefined) {
      this.timers.push(
        setTimeout(() => this.end('TOKEN_EXPIRED'), Math.max(0, expiresAt * 1000 - Date.now())),
      );
    }
  }

  /** Sends a closing event and ends the stream (the client decides whether to reconnect). */
  end(reason: EndReason): void {
    if (this.ended) return;
    this.write(`event: close\ndata: ${JSON.stringify({ reason, message: END_MESSAGES[reason] })}\n\n`);
    this.out.push(null);
    this.finish();
  }

  private replay(entry: LogEntry, def: CollectionDef): void {
    let wire: WireEvent;
    try {
      wire = JSON.parse(entry.payload) as WireEvent;
    } catch {
      return;
    }
    this.write(this.frame({ ...wire, epoch: this.epoch, seq: entry.seq, def }));
  }

  /** What this subscriber gets of an event: its frame, a gap notice before it, or nothing. */
  private frame(event: HubEvent): string {
    if (this.ended) return '';
    let out = '';
    if (event.epoch !== this.epoch) {
      // The log was lost and started again: what happened in between cannot be told.
      this.epoch = event.epoch;
      this.seq = event.seq - 1;
      out = this.resetFrame('EVENTS_MISSED');
    }
    if (event.seq <= this.seq) return out; // already sent (in the replay)
    this.seq = event.seq;
    if (!event.def) {
      queueMicrotask(() => this.end('COLLECTION_DELETED'));
      return out;
    }
    if (!this.visible(event)) return out;
    return out + (event.frame ??= frameOf(event));
  }

  /** Exactly the read rules: RLS private mode, no trashed document, the filters. */
  private visible(event: HubEvent): boolean {
    const { def, doc } = event;
    if (!def || !doc) return false;
    if (event.type !== 'document.deleted' && doc.isDeleted === true) return false;
    const { keyKind, userId, filter } = this.subscriber;
    if (keyKind !== 'secret' && def.rls.enabled && def.rls.mode === 'private') {
      if (!userId || doc[def.rls.ownerField] !== userId) return false;
    }
    return filter ? filter(doc) : true;
  }

  private reset(reason: string): void {
    this.write(this.resetFrame(reason));
  }

  private resetFrame(reason: string): string {
    const id = eventId(this.epoch, this.seq);
    return `id: ${id}\nevent: reset\ndata: ${JSON.stringify({ reason, lastEventId: id })}\n\n`;
  }

  private async heartbeat(): Promise<void> {
    this.write(': ping\n\n');
    if (this.ended) return;
    try {
      if (await this.checks.keyRevoked()) this.end('KEY_REVOKED');
      else if (this.checks.isRevoked && (await this.checks.isRevoked())) this.end('TOKEN_REVOKED');
      else if (this.checks.accessEnded && (await this.checks.accessEnded())) this.end('SESSION_ENDED');
    } catch {
      // the cache or the database is unreachable: the next heartbeat asks again, and the token's
      // expiry still ends the stream
    }
  }

  /**
   * Queues a chunk, or drops the client when too much already waits for it, or when the process
   * is over its bound and this client has not read what it was sent before (a fast reader, with
   * nothing waiting, is never the one dropped).
   */
  private write(chunk: string): void {
    if (this.ended || chunk === '') return;
    const waiting = this.out.readableLength;
    if (waiting > this.settings.maxBufferedBytes) return this.drop();
    this.out.push(chunk);
    const within = this.settings.budget.set(this, this.out.readableLength, this.measure);
    if (!within && waiting > 0) this.drop();
  }

  private readonly measure = () => this.out.readableLength;

  private drop(): void {
    this.out.destroy();
    this.finish();
  }

  private finish(): void {
    if (this.ended) return;
    this.ended = true;
    this.settings.budget.remove(this);
    for (const timer of this.timers) clearInterval(timer);
    this.checks.onEnd();
  }
}
