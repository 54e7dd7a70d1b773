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
  /** On a job's `last-failure` record: why its last failed run failed. */
  error?: string;
}

/** A job's last run as the operator sees it. */
export interface JobRunSummary {
  job: string;
  period: string;
  startedAt: Date;
  finishedAt: Date | null;
  leaseUntil: Date;
  /** The last failure, when one happened (a failed run gives its lease back, so it keeps no run). */
  lastFailure: { at: Date; error: string } | null;
}

const FAILURE = 'last-failure';

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

    /** Remembers why a run failed (one record per job, replaced by the next failure). */
    async recordFailure(job: string, owner: string, now: Date, error: string): Promise<void> {
      const _id = `${job}:${FAILURE}`;
      const doc = { job, period: FAILURE, owner, startedAt: now, leaseUntil: now, finishedAt: now, error };
      await runs.replaceOne({ _id }, doc, { upsert: true });
    },

    /** Each job's latest run and last failure, for jobs named in `jobs`. */
    async latest(jobs: string[]): Promise<JobRunSummary[]> {
      const docs = await runs
        .find({ job: { $in: jobs } })
        .sort({ startedAt: -1 })
        .limit(2000)
        .toArray();
      const out = new Map<string, JobRunSummary>();
      for (const doc of docs) {
        const row = out.get(doc.job);
        if (doc.period === FAILURE) {
          const lastFailure = { at: doc.startedAt, error: doc.error ?? '' };
          if (row) row.lastFailure = lastFailure;
          else
            out.set(doc.job, {
              job: doc.job,
              period: '',
              startedAt: doc.startedAt,
              finishedAt: null,
              leaseUntil: doc.leaseUntil,
              lastFailure,
            });
        } else if (!row || !row.period) {
          const { job, period, startedAt, finishedAt, leaseUntil } = doc;
          out.set(job, {
            job,
            period,
            startedAt,
            finishedAt,
            leaseUntil,
            lastFailure: row?.lastFailure ?? null,
          });
        }
      }
      return [...out.values()];
    },

    async find(job: string, period: string) {
      return runs.findOne({ _id: `${job}:${period}` });
    },

    /** Keeps the collection small: finished runs older than `before`. */
    async pruneBefore(before: Date): Promise<number> {
      return (await runs.deleteMany({ finishedAt: { $ne: null, $lt: before }, period: { $ne: FAILURE } }))
        .deletedCount;
    },
  };
}

export type JobRunsRepo = ReturnType<typeof jobRunsRepo>;
