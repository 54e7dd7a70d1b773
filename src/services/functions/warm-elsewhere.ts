// A saved version readied in every process that runs functions, not only in the one that saved it
// (issue 44): with separate roles, a save goes through the dashboard's process while hooks and
// callables run in the public one and triggers in the worker. The saving process publishes the
// function's ids on the bus; a process whose runners have started (it has run a function) reads
// the function, scoped by its project, and readies it; a process that never ran one starts no
// runner for it. Delivery is at most once, as the bus's is: a missed message costs one cold first
// call (whose start does not count against the call's deadline), nothing else.
import { randomUUID } from 'node:crypto';
import type { Cache } from '../../cache/index.js';
import type { Logger } from '../../lib/logger.js';

const CHANNEL = 'functions:warm';
/** Project and function ids are object ids in hex; anything else on the channel is not ours. */
const OBJECT_ID = /^[0-9a-f]{24}$/;

export interface WarmElsewhereDeps {
  bus: Pick<Cache, 'publish' | 'subscribe'>;
  /** Whether this process's runners have started. */
  started: () => boolean;
  /** Reads the function of that project and readies its active version here. */
  ready: (projectId: string, functionId: string) => Promise<void>;
  log: Logger;
}

export function warmElsewhere({ bus, started, ready, log }: WarmElsewhereDeps) {
  /** This process's own messages come back to it (and a memory bus has no other process). */
  const self = randomUUID();
  let unsubscribe: Promise<(() => Promise<void>) | undefined> | undefined;
  let closed = false;

  function onMessage(message: string) {
    const [from, projectId, functionId, extra] = message.split(' ');
    if (
      from === self ||
      extra !== undefined ||
      !OBJECT_ID.test(projectId ?? '') ||
      !OBJECT_ID.test(functionId ?? '')
    )
      return;
    if (closed || !started()) return;
    ready(projectId!, functionId!).catch((err: unknown) =>
      log.warn({ err, functionId }, 'readying a function saved in another process failed'),
    );
  }

  return {
    /** Tells the other processes that this function's active version changed. Never throws. */
    announce(projectId: string, functionId: string): void {
      bus
        .publish(CHANNEL, `${self} ${projectId} ${functionId}`)
        .catch((err: unknown) => log.warn({ err, functionId }, 'announcing a saved function failed'));
    },
    /** Starts listening (once per process); a bus that cannot subscribe leaves saves warm here only. */
    listen(): void {
      if (closed) return;
      unsubscribe ??= bus.subscribe(CHANNEL, onMessage).catch((err: unknown) => {
        log.warn({ err }, 'listening for functions saved in other processes failed');
        unsubscribe = undefined;
        return undefined;
      });
    },
    /**
     * Stops listening without waiting on the bus: with the cache unreachable neither the pending
     * subscription nor an unsubscribe would ever answer (closing the cache drops both anyway).
     */
    close(): void {
      closed = true;
      void unsubscribe?.then((stop) => stop?.()).catch(() => undefined);
      unsubscribe = undefined;
    },
  };
}
