// The one seam for side effects after a successful change (CONVENTIONS §14): services emit
// events, listeners (webhooks, usage accounting, ...) subscribe. A failing listener is logged and
// never fails the request that emitted the event. A change whose events must survive a crash is
// announced first (`announce`): durable listeners record an intent before the change is written
// and confirm it with the event after; the intent outlives a process that dies in between.
import type { Logger } from '../lib/logger.js';
import { isExternalTimeout } from '../db/errors.js';

export type EventName =
  'document.created' | 'document.updated' | 'document.deleted' | 'document.restored' | 'user.created';

export interface ServiceEvent {
  name: EventName;
  projectId: string;
  collection: string;
  documentId: string;
  /** The document after the change (without secret fields), or null for a delete. */
  document: Record<string, unknown> | null;
  /** For a delete: the document as moved to the trash, so listeners can tell who could read it. */
  removed?: Record<string, unknown>;
  at: Date;
  /**
   * Who made a change through the data API (absent for imports, restores and sign-ups): the
   * after-triggers run with these rights, one function deeper (docs/functions.md).
   */
  actor?: EventActor;
}

export interface EventActor {
  keyKind: 'publishable' | 'secret';
  userId: string | null;
  /** The writer's function depth: 0 for a client, 1 when a function's ctx.db wrote. */
  depth: number;
}

export type Listener = (event: ServiceEvent) => Promise<void> | void;

/** What a change is about to cause: its event time is the one the change writes. */
export type EventIntent = Pick<
  ServiceEvent,
  'name' | 'projectId' | 'collection' | 'documentId' | 'at' | 'actor'
>;

/** A listener whose work must not be lost between the change and the event (the webhook outbox). */
export interface DurableListener<T = unknown> {
  /** Before the change: records the intents (a failure fails the change); its answer goes on. */
  intend(intents: EventIntent[]): Promise<T>;
  /**
   * After the change, with the events of the intents that happened (same name, ids and time);
   * the intents without an event are dropped.
   */
  confirm(recorded: T, events: ServiceEvent[]): Promise<void>;
  /** The change failed: what `intend` recorded goes. */
  abandon(recorded: T): Promise<void>;
  /** An event emitted without an announcement. */
  emit: Listener;
}

export interface Announcement {
  /** The change succeeded: plain listeners hear the events, durable ones confirm. */
  emit(events: ServiceEvent[]): Promise<void>;
  abandon(): Promise<void>;
}

const settled = Promise.resolve();
const done = () => undefined;

export function createEventBus(log: Logger) {
  const listeners: Listener[] = [];
  /** The listeners that are not durable ones (an announced event goes to these as it is). */
  const plain: Listener[] = [];
  const durables: DurableListener[] = [];
  const logged = (what: string) => (err: unknown) => log.error({ err }, what);
  const bus = {
    on(listener: Listener): void {
      listeners.push(listener);
      plain.push(listener);
    },
    onDurable<T>(listener: DurableListener<T>): void {
      durables.push(listener as DurableListener);
      listeners.push(listener.emit);
    },
    /** Before a change: durable listeners record its intents. Throws when one cannot. */
    async announce(intents: EventIntent[]): Promise<Announcement> {
      const recorded = await Promise.all(durables.map((d) => d.intend(intents)));
      return {
        async emit(events) {
          await Promise.all([
            ...durables.map((d, i) =>
              d.confirm(recorded[i], events).catch(logged('event confirmation failed')),
            ),
            ...events.map((event) => emitTo(plain, event)),
          ]);
        },
        async abandon() {
          await Promise.all(
            durables.map((d, i) => d.abandon(recorded[i]).catch(logged('intent abandon failed'))),
          );
        },
      };
    },
    /** Announces a change's events, makes the change, and takes the announcement back if it fails. */
    async announced<T>(
      intents: EventIntent[],
      change: () => Promise<T>,
    ): Promise<{ result: T; announcement: Announcement }> {
      const announcement = await bus.announce(intents);
      try {
        return { result: await change(), announcement };
      } catch (err) {
        // A deadline on a project's own database leaves the outcome unknown (the write may have
        // landed): the intents stay, and the worker's recovery checks the document later.
        if (!isExternalTimeout(err)) await announcement.abandon();
        throw err;
      }
    },
    /** Settles once every listener has; listeners that answer at once cost no promise of their own. */
    emit(event: ServiceEvent): Promise<void> {
      return emitTo(listeners, event);
    },
  };
  function emitTo(targets: Listener[], event: ServiceEvent): Promise<void> {
    const failed = (err: unknown) =>
      log.error({ err, event: event.name, projectId: event.projectId }, 'event listener failed');
    let pending: Promise<void>[] | undefined;
    for (const listener of targets) {
      try {
        const result = listener(event);
        if (result) (pending ??= []).push(result.catch(failed));
      } catch (err) {
        failed(err);
      }
    }
    return pending ? Promise.all(pending).then(done) : settled;
  }
  return bus;
}

export type EventBus = ReturnType<typeof createEventBus>;
