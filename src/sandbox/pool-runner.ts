// A runner and the call it serves, as the pool keeps them (pool.ts): the records, the key of the
// interpreter a runner keeps warm, and the checks of one runner that need nothing of the pool (its
// memory after a call, its growth since it was ready, a streamed log line within the call's cap).
import type { RunnerProcess } from './launcher.js';
import type { LogLine } from './protocol.js';
import { residentBytes } from './outcome.js';
import type { SandboxJob, SandboxOutcome } from './types.js';

const RSS_AFTER_CALL_MS = 200;
/**
 * A runner whose call ran out of memory inside the interpreter is kept when its resident memory
 * grew less than this since it started: the allocation was refused before it took pages (a 1 GiB
 * buffer past the WebAssembly maximum). Replacing it costs a process start, which a tenant could
 * otherwise make happen as fast as it can call.
 */
const MEMORY_KEPT_GROWTH_BYTES = 96 * 1024 * 1024;
/** Room past a call's log cap for the runner's own "[log truncated]" line. */
const LOG_SLACK_BYTES = 256;

export interface Waiting {
  job: SandboxJob;
  submittedAt: number;
  resolve: (outcome: SandboxOutcome) => void;
  giveUp?: NodeJS.Timeout;
}

export interface Active extends Waiting {
  id: number;
  startedAt: number;
  killTimer: NodeJS.Timeout;
  dbCalls: number;
  fetches: number;
  /** The call's console lines as the runner sent them, and their size (capped here too). */
  logs: LogLine[];
  logBytes: number;
}

export interface Runner {
  proc: RunnerProcess;
  ready: boolean;
  active?: Active;
  retired?: boolean;
  /** When its resident memory was last read after a call (a /proc read is not free). */
  rssCheckedAt?: number;
  /** Its resident memory once it was ready. */
  readyRss?: number;
  /** The interpreter it kept after its last call, if any (warmKeyOf its job). */
  warmKey?: string;
  /** When its last call ended: the idle runner used longest ago is the one re-purposed first. */
  lastUsed: number;
}

/**
 * What a kept interpreter serves: the job's key under the limits it was made with (a runner makes
 * a new one when the plan's memory or log limit changed, and then needs the code).
 */
export const warmKeyOf = (job: SandboxJob) =>
  job.key === undefined ? undefined : `${job.key}|${job.limits.memoryBytes}|${job.limits.maxLogBytes}`;

/**
 * Whether a runner that just finished a call is past the RSS limit, read at most every
 * RSS_AFTER_CALL_MS per runner: its heap and WebAssembly memory are capped, and the watchdog
 * reads a busy runner every WATCH_INTERVAL_MS; this catches one that stays grown between calls.
 */
export function overMemory(runner: Runner, rssLimitBytes: number): boolean {
  const now = Date.now();
  if (runner.rssCheckedAt !== undefined && now - runner.rssCheckedAt < RSS_AFTER_CALL_MS) return false;
  runner.rssCheckedAt = now;
  return (residentBytes(runner.proc.pid) ?? 0) > rssLimitBytes;
}

/** Whether a runner's resident memory grew past MEMORY_KEPT_GROWTH_BYTES since it was ready. */
export function grown(runner: Runner, rssLimitBytes: number): boolean {
  const rss = residentBytes(runner.proc.pid);
  if (rss === undefined || runner.readyRss === undefined) return true;
  return rss - runner.readyRss > MEMORY_KEPT_GROWTH_BYTES || rss > rssLimitBytes;
}

/** One streamed console line, within the call's cap (the runner keeps to it; this holds if not). */
export function keepLog(active: Active, line: LogLine): void {
  const size = typeof line?.message === 'string' ? Buffer.byteLength(line.message) : Infinity;
  if (active.logBytes + size > active.job.limits.maxLogBytes + LOG_SLACK_BYTES) return;
  active.logBytes += size;
  const level = ['log', 'info', 'warn', 'error'].includes(line.level) ? line.level : 'log';
  active.logs.push({ level, message: line.message, atMs: Number(line.atMs) || 0 });
}
