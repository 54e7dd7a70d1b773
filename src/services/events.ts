// The one seam for side effects after a successful change (CONVENTIONS §14): services emit
// events, listeners (webhooks, usage accounting, ...) subscribe. A failing listener is logged and
// never fails the request that emitted the event.
import type { Logger } from '../lib/logger.js';

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
}

export type Listener = (event: ServiceEvent) => Promise<void> | void;

const settled = Promise.resolve();
const done = () => undefined;

export function createEventBus(log: Logger) {
  const listeners: Listener[] = [];
  return {
    on(listener: Listener): void {
      listeners.push(listener);
    },
    /** Settles once every listener has; listeners that answer at once cost no promise of their own. */
    emit(event: ServiceEvent): Promise<void> {
      const failed = (err: unknown) =>
        log.error({ err, event: event.name, projectId: event.projectId }, 'event listener failed');
      let pending: Promise<void>[] | undefined;
      for (const listener of listeners) {
        try {
          const result = listener(event);
          if (result) (pending ??= []).push(result.catch(failed));
        } catch (err) {
          failed(err);
        }
      }
      return pending ? Promise.all(pending).then(done) : settled;
    },
  };
}

export type EventBus = ReturnType<typeof createEventBus>;
