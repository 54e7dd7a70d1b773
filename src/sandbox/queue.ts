// The waiting line in front of the runners: one FIFO per project, served round robin, and a cap
// per project on calls running at once and on calls waiting. So one project saturating its share
// never delays another project's call by more than the time a runner takes to come free.

export class FunctionConcurrencyError extends Error {
  readonly code = 'FUNCTION_CONCURRENCY';
  constructor(readonly limit: number) {
    super(`Too many function calls of this project at once (at most ${limit} running or waiting)`);
  }
}

export interface QueueCaps {
  /** Calls of one project running at once. */
  running: number;
  /** Calls of one project waiting for a runner. */
  waiting: number;
}

interface Lane<T> {
  waiting: T[];
  running: number;
}

export class FairQueue<T> {
  private readonly lanes = new Map<string, Lane<T>>();
  /** Projects in the order they are served; the first one served moves to the back. */
  private readonly order: string[] = [];

  constructor(private readonly caps: QueueCaps) {}

  /** Queues an item, or throws FunctionConcurrencyError when the project is at its cap. */
  push(project: string, item: T): void {
    let lane = this.lanes.get(project);
    if (!lane) {
      lane = { waiting: [], running: 0 };
      this.lanes.set(project, lane);
      this.order.push(project);
    }
    if (lane.waiting.length >= this.caps.waiting) {
      throw new FunctionConcurrencyError(this.caps.running + this.caps.waiting);
    }
    lane.waiting.push(item);
  }

  /** The next item of the first project (in turn) that has one waiting and a running slot free. */
  take(): { project: string; item: T } | undefined {
    for (let i = 0; i < this.order.length; i++) {
      const project = this.order[i]!;
      const lane = this.lanes.get(project)!;
      if (lane.waiting.length === 0 || lane.running >= this.caps.running) continue;
      const item = lane.waiting.shift()!;
      lane.running++;
      this.order.splice(i, 1);
      this.order.push(project);
      return { project, item };
    }
    return undefined;
  }

  /** Removes a waiting item (it gave up); true when it was still waiting. */
  remove(project: string, item: T): boolean {
    const lane = this.lanes.get(project);
    const at = lane ? lane.waiting.indexOf(item) : -1;
    if (at < 0) return false;
    lane!.waiting.splice(at, 1);
    this.forget(project);
    return true;
  }

  /** A running item of the project finished. */
  finished(project: string): void {
    const lane = this.lanes.get(project);
    if (!lane) return;
    lane.running = Math.max(0, lane.running - 1);
    this.forget(project);
  }

  /** Every waiting item, removed (the pool is closing). */
  drain(): T[] {
    const all = [...this.lanes.values()].flatMap((lane) => lane.waiting.splice(0));
    for (const project of [...this.lanes.keys()]) this.forget(project);
    return all;
  }

  private forget(project: string): void {
    const lane = this.lanes.get(project);
    if (!lane || lane.waiting.length > 0 || lane.running > 0) return;
    this.lanes.delete(project);
    this.order.splice(this.order.indexOf(project), 1);
  }
}
