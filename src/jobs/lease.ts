// One run per job and period however many workers fire the schedule: a run first claims
// `{ job, period }` in `job_runs` (db/job-runs.ts); the others skip it. A run that fails gives
// its claim back so the next tick retries; one that dies keeps it until the lease expires.
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import type { JobRunsRepo } from '../db/job-runs.js';
import type { Logger } from '../lib/logger.js';
import type { Job } from './worker.js';

export type RunOutcome = 'ran' | 'skipped';

export interface LeasedJob extends Job {
  /** Runs the period that `at` falls in, unless another run has it or had it. */
  runAt(at: Date): Promise<RunOutcome>;
}

export const workerId = () => `${hostname()}:${process.pid}:${randomBytes(3).toString('hex')}`;

/** The period a run covers: the time floored to the job's interval (ISO text, UTC). */
export function periodOf(at: Date, every: 'month' | 'day' | 'hour' | { minutes: number }): string {
  const iso = at.toISOString();
  if (every === 'month') return iso.slice(0, 7);
  if (every === 'day') return iso.slice(0, 10);
  if (every === 'hour') return iso.slice(0, 13);
  const step = every.minutes * 60_000;
  return new Date(Math.floor(at.getTime() / step) * step).toISOString().slice(0, 16);
}

export function leased(
  runs: JobRunsRepo,
  owner: string,
  log: Logger,
  job: {
    name: string;
    schedule: string;
    leaseMs: number;
    period(at: Date): string;
    work(at: Date): Promise<void>;
  },
  now: () => Date = () => new Date(),
): LeasedJob {
  async function runAt(at: Date): Promise<RunOutcome> {
    const period = job.period(at);
    if (!(await runs.claim(job.name, period, owner, at, job.leaseMs))) {
      log.debug({ job: job.name, period }, 'job run held by another worker; skipped');
      return 'skipped';
    }
    try {
      await job.work(at);
    } catch (err) {
      await runs.release(job.name, period, owner).catch(() => undefined);
      // Kept for the operator's overview: the released run itself leaves no trace.
      await runs
        .recordFailure(job.name, owner, now(), (err as Error).message ?? String(err))
        .catch(() => undefined);
      throw err;
    }
    await runs.finish(job.name, period, owner, now());
    return 'ran';
  }
  return {
    name: job.name,
    schedule: job.schedule,
    runAt,
    async run() {
      await runAt(now());
    },
  };
}
