// What a project's stream regular expressions may cost the process. RE2 is linear in the text, but
// its cost per character grows with the pattern (`(a|aa){1000}b` takes about 30 µs a character):
// one test could still hold the event loop for seconds on a long value, and many streams multiply
// it. So a value longer than REGEX_MAX_CHARS is not matched (a single test stays within tens of
// milliseconds), and each project has a budget of matching time per second in each process (a
// token bucket). Past it, its regular-expression conditions do not match until the budget has
// refilled, logged once a minute: a project's filters can slow only its own streams.
import type { Logger } from '../../lib/logger.js';
import type { UserRegex } from '../../lib/user-regex.js';

/** Longest string a stream's `_regex` condition examines; a longer value does not match. */
export const REGEX_MAX_CHARS = 1024;
/** A project's bucket holds this many seconds of its budget (a burst after a quiet time). */
const BURST_SECONDS = 2;
const WARN_EVERY_MS = 60_000;
const MAX_TRACKED = 10_000;

/** Runs a project's regular expressions within its budget. */
export type RegexRunner = (re: UserRegex, text: string) => boolean;

export interface RegexBudgetOptions {
  /** Milliseconds of matching a project may use per second in one process. */
  msPerSecond: number;
  log: Logger;
  now?: () => number;
}

export function regexBudgets({ msPerSecond, log, now = () => performance.now() }: RegexBudgetOptions) {
  const capacity = msPerSecond * BURST_SECONDS;
  /** projectId -> milliseconds left and when that was computed. */
  const buckets = new Map<string, { left: number; at: number; warnedAt: number }>();

  function bucketOf(projectId: string) {
    let bucket = buckets.get(projectId);
    if (!bucket) {
      if (buckets.size >= MAX_TRACKED) buckets.delete(buckets.keys().next().value!);
      bucket = { left: capacity, at: now(), warnedAt: -Infinity };
      buckets.set(projectId, bucket);
    }
    return bucket;
  }

  return {
    /** The runner of one project's conditions. */
    of(projectId: string): RegexRunner {
      return (re, text) => {
        if (text.length > REGEX_MAX_CHARS) return false;
        const bucket = bucketOf(projectId);
        const started = now();
        bucket.left = Math.min(capacity, bucket.left + ((started - bucket.at) * msPerSecond) / 1000);
        bucket.at = started;
        if (bucket.left <= 0) {
          if (started - bucket.warnedAt >= WARN_EVERY_MS) {
            bucket.warnedAt = started;
            log.warn(
              { projectId, msPerSecond },
              'realtime filters: regular expressions over their time budget do not match for now',
            );
          }
          return false;
        }
        const matched = re.test(text);
        bucket.at = now();
        bucket.left -= bucket.at - started;
        return matched;
      };
    },
  };
}

export type RegexBudgets = ReturnType<typeof regexBudgets>;
