// The message bus between processes: Redis pub/sub when REDIS_URL is set, an in-process emitter
// otherwise. Delivery is at most once and only to processes listening at the time (pub/sub keeps
// nothing); what must survive a restart or a missed message belongs in the database. Subscribers
// of one process share one Redis subscription per channel: node-redis sends SUBSCRIBE once for
// the first listener of a channel and UNSUBSCRIBE after the last one leaves.
import { EventEmitter } from 'node:events';

export type BusHandler = (message: string) => void;

export interface Bus {
  /** Sends a message to every current subscriber of the channel, in every process. */
  publish(channel: string, message: string): Promise<void>;
  /** Calls handler for each message on the channel until the returned function is called. */
  subscribe(channel: string, handler: BusHandler): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

/** What the bus needs of a Redis connection that subscribes. */
export interface Subscriber {
  subscribe(channel: string, listener: BusHandler): Promise<unknown>;
  unsubscribe(channel: string, listener: BusHandler): Promise<unknown>;
  /** Closes at once: a subscriber has no replies to wait for, and a graceful close waits forever for a server that is gone. */
  destroy(): void;
}

/**
 * Publishes through `publish` (the cache's client); subscribes on a second connection, opened on
 * first use. `openSubscriber` hands the connection over at once with the promise of its connect,
 * so that closing can destroy one still connecting: a server gone while it connected would keep
 * its connect retrying, and a close that waited for it would wait forever.
 */
export function redisBus(
  publish: (channel: string, message: string) => Promise<unknown>,
  openSubscriber: () => { subscriber: Subscriber; connected: Promise<unknown> },
): Bus {
  let opened: Subscriber | undefined;
  let subscriber: Promise<Subscriber> | undefined;
  let closed = false;
  const connection = () => {
    // A subscriber opened after close would keep the process alive: refused.
    if (closed) return Promise.reject(new Error('The message bus is closed'));
    if (subscriber) return subscriber;
    const { subscriber: sub, connected } = openSubscriber();
    opened = sub;
    return (subscriber = connected.then(
      () => sub,
      (err: unknown) => {
        // The next subscribe tries again (a close destroyed it: refused then anyway).
        if (opened === sub) [opened, subscriber] = [undefined, undefined];
        throw err;
      },
    ));
  };
  return {
    async publish(channel, message) {
      await publish(channel, message);
    },
    async subscribe(channel, handler) {
      const sub = await connection();
      // A listener of its own, so the same handler on two channels (or twice) unsubscribes apart.
      const listener: BusHandler = (message) => handler(message);
      await sub.subscribe(channel, listener);
      return async () => {
        await sub.unsubscribe(channel, listener);
      };
    },
    async close() {
      closed = true;
      const sub = opened;
      [opened, subscriber] = [undefined, undefined];
      // Connected or still connecting: destroyed at once (a pending connect then fails).
      sub?.destroy();
    },
  };
}

/** One process: messages go straight to this process's subscribers, asynchronously as with Redis. */
export function memoryBus(): Bus {
  const emitter = new EventEmitter();
  emitter.setMaxListeners(0); // a channel may have as many listeners as there are subscribers
  return {
    async publish(channel, message) {
      setImmediate(() => emitter.emit(channel, message));
    },
    async subscribe(channel, handler) {
      emitter.on(channel, handler);
      return async () => {
        emitter.off(channel, handler);
      };
    },
    async close() {
      emitter.removeAllListeners();
    },
  };
}
