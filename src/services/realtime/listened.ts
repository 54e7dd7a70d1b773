// Which realtime streams anyone listens to, known in every process, so that a write to a
// collection nobody streams costs no Redis call. Every open of a stream's log (a new subscriber,
// and each subscriber's keep-alive) marks the stream listened to for the log's time to live and
// pushes that to every process over the bus before the open returns (pushed-values.ts); a
// process that has not heard of a stream reads the mark, and trusts what it learned for
// LOCAL_VERSION_MS. A write appends its event only while the mark exists; the append itself still
// checks the log's epoch, so an event of a stream whose mark is older than its log is dropped as
// before. The mark expires with the log (set after it, with the same time to live).
import type { Cache, EventLog, LogLimits } from '../../cache/index.js';
import { pushedValues } from '../pushed-values.js';

const MAX_STREAMS = 20_000;

export function listenedStreams(cache: Cache, limits: LogLimits) {
  const marks = pushedValues<boolean>(cache, {
    channel: 'rt-listened',
    cacheKey: (stream) => `${stream}:listened`,
    decode: (text) => text !== null,
    encode: () => '1',
    maxNames: MAX_STREAMS,
    now: Date.now,
  });
  /** The cache's event log, whose opens mark their stream listened to in every process. */
  const eventLog: EventLog = {
    append: (stream, payload, logLimits) => cache.eventLog.append(stream, payload, logLimits),
    async open(stream, logLimits, after) {
      const opened = await cache.eventLog.open(stream, logLimits, after);
      await marks.set(stream, true, Math.max(limits.ttlSeconds, logLimits.ttlSeconds));
      return opened;
    },
  };
  /**
   * Events in the order they are handed over; each is built and appended only when its stream is
   * listened to. The decisions run one after the other, so the appends keep that order even when a
   * mark is read from the cache while a later event's is known locally.
   */
  let queue: Promise<unknown> = Promise.resolve();
  /** Decisions queued and not made yet. */
  let waiting = 0;
  function append(stream: string, payload: () => string, onError: (err: unknown) => void) {
    // Nothing queued and the mark known here (the usual case): decided now, without a promise.
    if (waiting === 0) {
      const listened = marks.peek(stream);
      if (listened === false) return;
      if (listened) {
        eventLog.append(stream, payload(), limits).catch(onError);
        return;
      }
    }
    waiting++;
    const decided = queue.then(() => marks.get(stream));
    // The next decision waits for this one, not for this append's reply: the append is sent first
    // (its reaction is the next in line once this decision is made), and `waiting` drops in that
    // same reaction, so an append decided at once afterwards is sent after it.
    queue = decided.catch(() => false);
    decided
      .then(
        (listened) => {
          waiting--;
          return listened ? eventLog.append(stream, payload(), limits) : 0;
        },
        (err: unknown) => {
          waiting--;
          throw err;
        },
      )
      .catch(onError);
  }
  return { eventLog, append };
}
