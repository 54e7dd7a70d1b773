// The process side of realtime: one message-bus subscription per collection that has subscribers
// in this process, fanned out to them. Each event is parsed once and the collection definition
// (RLS mode, owner field) read once per batch of events, for every subscriber to check against;
// events of one collection are handed out in order, those that arrived together in one batch (one
// socket write per subscriber instead of one per event under load). While a collection has subscribers here, its replay
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

export type Sink = (events: HubEvent[]) => void;

export const streamName = (projectId: string, collection: string) => `rt:{${projectId}:${collection}}`;

interface Entry {
  projectId: string;
  collection: string;
  sinks: Set<Sink>;
  unsubscribe: Promise<() => Promise<void>>;
  /** Messages received and not yet handed out; drained by one loop at a time. */
  backlog: string[];
  draining: boolean;
}

export function realtimeHub(cache: Cache, definitions: DefinitionLookup, limits: LogLimits, log: Logger) {
  const entries = new Map<string, Entry>();

  function parse(message: string, def: CollectionDef | undefined): HubEvent | undefined {
    const parsed = parseLogMessage(message);
    if (!parsed) return undefined;
    try {
      return { ...(JSON.parse(parsed.payload) as WireEvent), epoch: parsed.epoch, seq: parsed.seq, def };
    } catch {
      return undefined;
    }
  }

  async function drain(entry: Entry): Promise<void> {
    entry.draining = true;
    try {
      while (entry.backlog.length > 0) {
        const def = await definitions(entry.projectId, entry.collection).catch((err: unknown) => {
          log.warn({ err, projectId: entry.projectId }, 'realtime: definition lookup failed');
          return null;
        });
        const messages = entry.backlog.splice(0);
        // Without the definition, access cannot be checked: nothing is sent (never too much).
        if (def === null) continue;
        const events = messages.map((m) => parse(m, def)).filter((e): e is HubEvent => e !== undefined);
        if (events.length) for (const sink of entry.sinks) sink(events);
      }
    } finally {
      entry.draining = false;
    }
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
          backlog: [],
          draining: false,
          unsubscribe: Promise.resolve(async () => undefined),
        };
        created.unsubscribe = cache.subscribe(name, (message) => {
          created.backlog.push(message);
          if (!created.draining) void drain(created);
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
