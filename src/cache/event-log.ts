// Short replay logs for realtime streams: each stream (one collection of one project) has a capped
// list of its latest events under increasing sequence numbers, and publishes each event on the
// message bus channel of the same name in the same atomic step, so that the order on the bus is
// the order of the log. Events are kept only while someone listens: `open` marks the stream
// listened to for `ttlSeconds` (refreshed by open subscribers) under an epoch, and `append` drops
// events while no epoch exists. An event id is `<epoch>-<seq>`; an id of another epoch means the
// stream may have lost events in between, which the caller signals as a gap.
import type { Bus } from './bus.js';

export interface LogLimits {
  /** Events kept per stream. */
  capacity: number;
  /** How long a stream stays listened to (and its log kept) after its last open. */
  ttlSeconds: number;
}

export interface LogEntry {
  seq: number;
  payload: string;
}

export interface OpenedLog {
  epoch: string;
  /** The sequence number of the latest event (0 before the first). */
  seq: number;
  /** Events after the given position, when it could be served whole. */
  entries: LogEntry[];
  /** True when events after the given position are no longer all in the log. */
  gap: boolean;
}

export interface EventLog {
  /** Logs and publishes an event when the stream is listened to; returns its sequence number or 0. */
  append(stream: string, payload: string, limits: LogLimits): Promise<number>;
  /** Marks the stream listened to and reads the events after `after` (none without it). */
  open(stream: string, limits: LogLimits, after?: { epoch: string; seq: number }): Promise<OpenedLog>;
}

/** A bus message of a stream: `<epoch>-<seq> <payload>`. */
export function parseLogMessage(
  message: string,
): { epoch: string; seq: number; payload: string } | undefined {
  const space = message.indexOf(' ');
  const dash = message.lastIndexOf('-', space);
  if (space < 0 || dash < 0) return undefined;
  const seq = Number(message.slice(dash + 1, space));
  if (!Number.isInteger(seq)) return undefined;
  return { epoch: message.slice(0, dash), seq, payload: message.slice(space + 1) };
}

export const newEpoch = () => `${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;

/** Keys of one stream (a stream name with a `{hash tag}` keeps them in one Redis Cluster slot). */
const keysOf = (stream: string) => [`${stream}:epoch`, `${stream}:seq`, `${stream}:log`];

// KEYS epoch, seq, log; ARGV channel, payload, capacity, ttl.
export const APPEND_SCRIPT = `
local epoch = redis.call('GET', KEYS[1])
if not epoch then return 0 end
local seq = redis.call('INCR', KEYS[2])
local entry = seq .. ' ' .. ARGV[2]
redis.call('RPUSH', KEYS[3], entry)
redis.call('LTRIM', KEYS[3], -tonumber(ARGV[3]), -1)
redis.call('EXPIRE', KEYS[2], ARGV[4])
redis.call('EXPIRE', KEYS[3], ARGV[4])
redis.call('PUBLISH', ARGV[1], epoch .. '-' .. entry)
return seq`;

// KEYS epoch, seq, log; ARGV ttl, new epoch, asked epoch ('' for none), asked seq.
// Returns { epoch, seq, gap (0/1), entries... }.
export const OPEN_SCRIPT = `
local epoch = redis.call('GET', KEYS[1])
if not epoch then
  epoch = ARGV[2]
  redis.call('SET', KEYS[1], epoch, 'EX', ARGV[1])
else
  redis.call('EXPIRE', KEYS[1], ARGV[1])
end
redis.call('EXPIRE', KEYS[2], ARGV[1])
redis.call('EXPIRE', KEYS[3], ARGV[1])
local seq = tonumber(redis.call('GET', KEYS[2]) or '0')
if ARGV[3] == '' then return { epoch, seq, 0 } end
local after = tonumber(ARGV[4])
if ARGV[3] ~= epoch or after > seq then return { epoch, seq, 1 } end
if after == seq then return { epoch, seq, 0 } end
local head = redis.call('LINDEX', KEYS[3], 0)
if not head then return { epoch, seq, 1 } end
local first = tonumber(string.match(head, '^(%d+)'))
if first > after + 1 then return { epoch, seq, 1 } end
local out = { epoch, seq, 0 }
for _, entry in ipairs(redis.call('LRANGE', KEYS[3], after + 1 - first, -1)) do
  table.insert(out, entry)
end
return out`;

export interface ScriptRunner {
  run(script: string, keys: string[], args: string[]): Promise<unknown>;
}

function entryOf(raw: string): LogEntry {
  const space = raw.indexOf(' ');
  return { seq: Number(raw.slice(0, space)), payload: raw.slice(space + 1) };
}

export function redisEventLog(runner: ScriptRunner): EventLog {
  return {
    async append(stream, payload, limits) {
      const args = [stream, payload, String(limits.capacity), String(limits.ttlSeconds)];
      return Number(await runner.run(APPEND_SCRIPT, keysOf(stream), args));
    },
    async open(stream, limits, after) {
      const args = [String(limits.ttlSeconds), newEpoch(), after?.epoch ?? '', String(after?.seq ?? 0)];
      const reply = (await runner.run(OPEN_SCRIPT, keysOf(stream), args)) as (string | number)[];
      const [epoch, seq, gap, ...entries] = reply;
      return {
        epoch: String(epoch),
        seq: Number(seq),
        gap: Number(gap) === 1,
        entries: entries.map((raw) => entryOf(String(raw))),
      };
    },
  };
}

/** One process: the same rules over in-memory lists, publishing on the in-process bus. */
export function memoryEventLog(bus: Pick<Bus, 'publish'>): EventLog & { close(): void } {
  interface State {
    epoch?: string;
    epochUntil: number;
    seq: number;
    entries: LogEntry[];
    keptUntil: number;
  }
  const streams = new Map<string, State>();
  const sweep = setInterval(() => {
    const now = Date.now();
    for (const [name, state] of streams) if (state.keptUntil <= now) streams.delete(name);
  }, 60_000);
  sweep.unref();
  const stateOf = (stream: string) => {
    const now = Date.now();
    let state = streams.get(stream);
    if (!state || state.keptUntil <= now) {
      state = { epochUntil: 0, seq: 0, entries: [], keptUntil: 0 };
      streams.set(stream, state);
    }
    if (state.epochUntil <= now) state.epoch = undefined;
    return state;
  };
  return {
    async append(stream, payload, limits) {
      const state = stateOf(stream);
      if (!state.epoch) return 0;
      const seq = ++state.seq;
      state.entries.push({ seq, payload });
      if (state.entries.length > limits.capacity)
        state.entries.splice(0, state.entries.length - limits.capacity);
      state.keptUntil = Math.max(state.keptUntil, Date.now() + limits.ttlSeconds * 1000);
      await bus.publish(stream, `${state.epoch}-${seq} ${payload}`);
      return seq;
    },
    async open(stream, limits, after) {
      const state = stateOf(stream);
      const until = Date.now() + limits.ttlSeconds * 1000;
      state.epoch ??= newEpoch();
      state.epochUntil = until;
      state.keptUntil = until;
      const base = { epoch: state.epoch, seq: state.seq };
      if (!after) return { ...base, entries: [], gap: false };
      if (after.epoch !== state.epoch || after.seq > state.seq) return { ...base, entries: [], gap: true };
      const first = state.entries[0]?.seq;
      if (after.seq === state.seq) return { ...base, entries: [], gap: false };
      if (first === undefined || first > after.seq + 1) return { ...base, entries: [], gap: true };
      return { ...base, entries: state.entries.slice(after.seq + 1 - first), gap: false };
    },
    close() {
      clearInterval(sweep);
      streams.clear();
    },
  };
}
