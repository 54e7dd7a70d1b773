// What happened lately, counted in two fixed windows: the current one and the one before it (a
// window that ended longer ago counts as empty). Cheap enough for every request; the leases of
// the rate limits (requests) and of the database quota (bytes) size their batches by it.

export interface RecentCount {
  /** Adds `amount` at `now` (ms), starting a new window when the current one is over. */
  add(amount: number, now: number): void;
  /** The current window and the one before it together. */
  total(): number;
  /**
   * Per second over the last window's length: the current window, plus the part of the previous
   * one that still falls within that length.
   */
  perSecond(now: number): number;
}

export function recentCount(windowMs: number, start = 0): RecentCount {
  let windowStart = start;
  let current = 0;
  let previous = 0;
  return {
    add(amount, now) {
      const elapsed = now - windowStart;
      if (elapsed >= windowMs) {
        previous = elapsed < 2 * windowMs ? current : 0;
        current = 0;
        windowStart = now;
      }
      current += amount;
    },
    total: () => current + previous,
    perSecond(now) {
      const elapsed = Math.min(Math.max(now - windowStart, 1), windowMs);
      return ((previous * (1 - elapsed / windowMs) + current) * 1_000) / windowMs;
    },
  };
}
