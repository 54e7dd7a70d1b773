// Leases of worker job runs (collection `job_runs`, one document per job and period): a run
// claims `{ job, period }` with a unique insert, so when several workers fire the same schedule
// only one does the work. A run that died keeps its lease until it expires; then another worker
// may take the period over. A finished period is never run again.
import type { Db } from 'mongodb';
import { isDuplicateKey } from './errors.js';

interface RunDoc {
  _id: string; // job:period
  job: string;
  period: string;
  owner: string;
  startedAt: Date;
  leaseUntil: Date;
  finishedAt: Date | null;
}

export function jobRunsRepo(db: Db) {
  const runs = db.collection<RunDoc>('job_runs');

  return {
    /** True when this owner holds the run of `job` for `period` (new, or taken over after expiry). */
    async claim(job: string, period: string, owner: string, now: Date, leaseMs: number): Promise<boolean> {
      const _id = `${job}:${period}`;
      const leaseUntil = new Date(now.getTime() + leaseMs);
      try {
        await runs.insertOne({ _id, job, period, owner, startedAt: now, leaseUntil, finishedAt: null });
        return true;
      } catch (err) {
        if (!isDuplicateKey(err)) throw err;
      }
      const taken = await runs.findOneAndUpdate(
        { _id, finishedAt: null, leaseUntil: { $lte: now } },
        { $set: { owner, startedAt: now, leaseUntil } },
      );
      return taken !== null;
    },

    async finish(job: string, period: string, owner: string, now: Date): Promise<void> {
      await runs.updateOne({ _id: `${job}:${period}`, owner }, { $set: { finishedAt: now } });
    },

    /** Gives an unfinished lease back at once (the run failed), so the next tick may retry. */
    async release(job: string, period: string, owner: string): Promise<void> {
      await runs.deleteOne({ _id: `${job}:${period}`, owner, finishedAt: null });
    },

    async find(job: string, period: string) {
      return runs.findOne({ _id: `${job}:${period}` });
    },

    /** Keeps the collection small: finished runs older than `before`. */
    async pruneBefore(before: Date): Promise<number> {
      return (await runs.deleteMany({ finishedAt: { $ne: null, $lt: before } })).deletedCount;
    },
  };
}

export type JobRunsRepo = ReturnType<typeof jobRunsRepo>;
