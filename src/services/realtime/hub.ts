// The process side of realtime: one message-bus subscription per collection that has subscribers
// in this process, fanned out to them. Each event is parsed once and the collection definition
// (RLS mode, owner field) read once per event, for every subscriber to check against; events of
// one collection are handed out in order. While a collection has subscribers here, its replay
// log is kept alive (should the cache lose it, later events come under a new epoch, which each
// subscriber reports to its client as a gap).
import type { Cache, LogLimits } from '../../cache/index.js';
import { parseLogMessage } from '../../cache/event-log.js';
import type { Logger } from '../../lib/logger.js';
import type { CollectionDef } from '../types.js';
import type { DefinitionLookup } from '../data/access.js';

export type DocumentEventName =
  'document.created' | 'document.updated' | 'document.deleted' | 'document.restored';

/** What the publisher puts on the bus for one document event. */
export interface WireEvent {
  type: DocumentEventName;
  id: string;
  at: string;
  /** The document after the change; for a delete, the document as trashed (never sent for it). */
  doc: Record<string, unknown> | null;
}

export interface HubEvent extends WireEvent {
  epoch: string;
  seq: number;
  /** The collection's definition when the event is handed out; undefined when it was deleted. */
  def: CollectionDef | undefined;
  /** The serialized `data:` of the event, shared by every subscriber that may see it. */
  frame?: string;
}

export type Sink = (event: HubEvent) => void;

export const streamName = (projectId: string, collection: string) => `rt:{${projectId}:${collection}}`;

interface Entry {
  projectId: string;
  collection: string;
  sinks: Set<Sink>;
  unsubscribe: Promise<() => Promise<void>>;
  queue: Promise<void>;
}

export function realtimeHub(cache: Cache, definitions: DefinitionLookup, limits: LogLimits, log: Logger) {
  const entries = new Map<string, Entry>();

  async function dispatch(entry: Entry, message: string): Promise<void> {
    const parsed = parseLogMessage(message);
    if (!parsed) return;
    let wire: WireEvent;
    try {
      wire = JSON.parse(parsed.payload) as WireEvent;
    } catch {
      return;
    }
    const def = await definitions(entry.projectId, entry.collection).catch((err: unknown) => {
      log.warn({ err, projectId: entry.projectId }, 'realtime: definition lookup failed');
      return undefined;
    });
    const event: HubEvent = { ...wire, epoch: parsed.epoch, seq: parsed.seq, def };
    for (const sink of entry.sinks) sink(event);
  }

  const keepAlive = setInterval(
    () => {
      for (const name of entries.keys()) {
        cache.eventLog
          .open(name, limits)
          .catch((err: unknown) => log.warn({ err }, 'realtime: keeping the replay log failed'));
      }
    },
    Math.max(1000, (limits.ttlSeconds * 1000) / 3),
  );
  keepAlive.unref();

  return {
    /** Adds a subscriber of a collection; resolves once the bus subscription is in place. */
    async join(projectId: string, collection: string, sink: Sink): Promise<() => void> {
      const name = streamName(projectId, collection);
      let entry = entries.get(name);
      if (!entry) {
        const created: Entry = {
          projectId,
          collection,
          sinks: new Set(),
          queue: Promise.resolve(),
          unsubscribe: Promise.resolve(async () => undefined),
        };
        created.unsubscribe = cache.subscribe(name, (message) => {
          created.queue = created.queue.then(() => dispatch(created, message));
        });
        created.unsubscribe.catch(() => {
          if (entries.get(name) === created) entries.delete(name);
        });
        entries.set(name, (entry = created));
      }
      entry.sinks.add(sink);
      const joined = entry;
      try {
        await joined.unsubscribe;
      } catch (err) {
        joined.sinks.delete(sink);
        throw err;
      }
      return () => {
        joined.sinks.delete(sink);
        if (joined.sinks.size > 0 || entries.get(name) !== joined) return;
        entries.delete(name);
        void joined.unsubscribe
          .then((stop) => stop())
          .catch((err: unknown) => log.warn({ err }, 'realtime: unsubscribe failed'));
      };
    },

    close(): void {
      clearInterval(keepAlive);
    },
  };
}

export type RealtimeHub = ReturnType<typeof realtimeHub>;
