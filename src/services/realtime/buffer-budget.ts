// What all of one process's realtime streams may hold unsent together
// (REALTIME_MAX_BUFFERED_BYTES_PER_PROCESS): each stream's own bound times many slow readers could
// still take the process's memory. A stream tells its figure at each write; the figures of the
// others may be stale (their readers took bytes since), so past the cap they are measured again
// before anyone is dropped, at most every REMEASURE_MS, which keeps a process that stays over the
// cap from measuring every stream on every write.

const REMEASURE_MS = 100;

export class BufferBudget {
  private total = 0;
  private measuredAt = 0;
  private readonly held = new Map<object, { bytes: number; measure: () => number }>();

  constructor(
    private readonly cap: number,
    private readonly now: () => number = Date.now,
  ) {}

  /** Records what `owner` holds unsent now; false when the process is over its cap. */
  set(owner: object, bytes: number, measure: () => number): boolean {
    const entry = this.held.get(owner);
    this.total += bytes - (entry?.bytes ?? 0);
    if (entry) entry.bytes = bytes;
    else this.held.set(owner, { bytes, measure });
    if (this.total <= this.cap) return true;
    const t = this.now();
    if (t - this.measuredAt >= REMEASURE_MS) {
      this.measuredAt = t;
      this.total = 0;
      for (const other of this.held.values()) this.total += other.bytes = other.measure();
    }
    return this.total <= this.cap;
  }

  remove(owner: object): void {
    const entry = this.held.get(owner);
    if (!entry) return;
    this.total -= entry.bytes;
    this.held.delete(owner);
  }

  /** Bytes counted now (the last figures told). */
  get bytes(): number {
    return this.total;
  }
}
