// The hot-path side of usage: counts kept in this process's memory per project, UTC day and
// metric (one Map update, no I/O), flushed to MongoDB in one batched `$inc` every few seconds and
// at shutdown. Every process flushes its own counts, so the stored figures are the sum of all
// processes. A failed flush keeps the counts for the next one; a crash loses at most one
// interval's counts.
import type { UsageIncrement, UsageMetric, UsageRepo } from '../../db/usage.js';
import type { Logger } from '../../lib/logger.js';

export const FLUSH_INTERVAL_MS = 5_000;

export const utcDay = (at: Date) => at.toISOString().slice(0, 10);

const DAY_MS = 86_400_000;

export function usageCounter(
  repo: Pick<UsageRepo, 'increment'>,
  log: Logger,
  { nowMs = Date.now, intervalMs = FLUSH_INTERVAL_MS }: { nowMs?: () => number; intervalMs?: number } = {},
) {
  /** projectId -> day -> counts */
  let pending = new Map<string, Map<string, Partial<Record<UsageMetric, number>>>>();
  let timer: NodeJS.Timeout | undefined;
  let flushing: Promise<void> = Promise.resolve();

  // The day's key is formatted once per day, not per request.
  let day = '';
  let dayStart = 0;
  function today(): string {
    const t = nowMs();
    if (t < dayStart || t >= dayStart + DAY_MS) {
      dayStart = t - (t % DAY_MS);
      day = utcDay(new Date(t));
    }
    return day;
  }

  function addAt(projectId: string, day: string, metric: UsageMetric, n: number): void {
    let days = pending.get(projectId);
    if (!days) pending.set(projectId, (days = new Map()));
    let counts = days.get(day);
    if (!counts) days.set(day, (counts = {}));
    counts[metric] = (counts[metric] ?? 0) + n;
  }

  function scheduleFlush(): void {
    if (timer) return;
    timer = setTimeout(() => void flush(), intervalMs);
    timer.unref();
  }

  function add(projectId: string, metric: UsageMetric, n = 1): void {
    addAt(projectId, today(), metric, n);
    scheduleFlush();
  }

  async function write(): Promise<void> {
    const batch = pending;
    pending = new Map();
    const rows: UsageIncrement[] = [];
    for (const [projectId, days] of batch)
      for (const [day, counts] of days) rows.push({ projectId, day, counts });
    try {
      await repo.increment(rows);
    } catch (err) {
      // The batch is kept whole: losing it would undercount, and a batch that failed half-way
      // counts a few twice at worst (these figures are shown, never enforced as a quota).
      log.error({ err, rows: rows.length }, 'usage flush failed; counts kept for the next flush');
      for (const { projectId, day, counts } of rows)
        for (const [metric, n] of Object.entries(counts)) addAt(projectId, day, metric as UsageMetric, n);
      scheduleFlush();
    }
  }

  /** Writes what has been counted so far; concurrent calls are serialized. */
  function flush(): Promise<void> {
    clearTimeout(timer);
    timer = undefined;
    flushing = flushing.then(write);
    return flushing;
  }

  return { add, flush, stop: flush };
}

export type UsageCounter = ReturnType<typeof usageCounter>;
