// Backup and restore jobs (platform database, collection `backup_jobs`): state, progress, the
// stored archive, and for a restore its resume point. A worker leases a job with one conditional
// update; a job whose worker died is taken over once its lease has expired.
import type { Db } from 'mongodb';
import { ObjectId, toObjectId } from './ids.js';
import { registerPlatformIndexes } from './platform.js';
import { backupSchedulesRepo } from './backup-schedules.js';

const COLLECTION = 'backup_jobs';
registerPlatformIndexes(COLLECTION, [
  { key: { projectId: 1, kind: 1, createdAt: -1 }, name: 'project_kind' },
  { key: { state: 1, leaseUntil: 1 }, name: 'state_lease' },
]);

export type JobKind = 'backup' | 'restore';
export type JobState = 'queued' | 'running' | 'done' | 'failed';

/** A row a restore could not bring back as it was (services/backups/conflicts.ts). */
export interface Conflict {
  collection: string;
  /** The document's line in its part of the archive (1 = first). */
  row: number;
  field: string;
  reason: string;
}

/** A restore's conflicts: the first ones listed, all counted. */
export interface Conflicts {
  total: number;
  items: Conflict[];
}

export interface BackupJob {
  id: string;
  projectId: string;
  kind: JobKind;
  state: JobState;
  trigger: 'manual' | 'schedule';
  includeUsers: boolean;
  progress: { done: number; total: number };
  size: number | null;
  sha256: string | null;
  key: string | null;
  /**
   * Where the archive is: null in the operator's store, `<endpoint>|<bucket>` in the own bucket
   * of the project that was backed up (a restore: of `sourceProjectId`).
   */
  location: string | null;
  /** Per-part counts of a finished backup (collection or record kind -> lines). */
  counts: Record<string, number> | null;
  error: string | null;
  /** Restore: the backup read and the project written. */
  sourceBackupId: string | null;
  /** Restore: the project backed up (whose own bucket may hold the archive). */
  sourceProjectId: string | null;
  targetProjectId: string | null;
  /** Restore over its own project (the data there is replaced), not into a new one. */
  replace: boolean;
  /**
   * Restore: parts fully loaded so far (a resumed run skips them); `cleared` once a replacing
   * restore has removed the project's data (a resumed run does not clear again).
   */
  resume: { partsDone: number; cleared?: boolean };
  /** Restore: rows refused by a unique index and Refs to missing documents (null for backups). */
  conflicts: Conflicts | null;
  /** Restore into a new project: the functions it brought back disabled (null for backups). */
  disabledFunctions: { id: string; name: string }[] | null;
  attempts: number;
  createdAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
}

type JobDoc = Omit<
  BackupJob,
  'id' | 'projectId' | 'replace' | 'conflicts' | 'location' | 'sourceProjectId' | 'disabledFunctions'
> & {
  disabledFunctions?: BackupJob['disabledFunctions'];
  _id: ObjectId;
  replace?: boolean;
  location?: string | null;
  sourceProjectId?: string | null;
  conflicts?: Conflicts | null;
  projectId: ObjectId;
  owner: string | null;
  leaseUntil: Date | null;
};

const toJob = ({ _id, projectId, owner: _o, leaseUntil: _l, ...rest }: JobDoc): BackupJob => ({
  id: _id.toHexString(),
  projectId: projectId.toHexString(),
  ...rest,
  // Jobs written before restores in place and conflict reports.
  replace: rest.replace ?? false,
  location: rest.location ?? null,
  sourceProjectId: rest.sourceProjectId ?? null,
  conflicts: rest.conflicts ?? (rest.kind === 'restore' ? { total: 0, items: [] } : null),
  disabledFunctions: rest.disabledFunctions ?? (rest.kind === 'restore' ? [] : null),
});

export type NewJob = Pick<BackupJob, 'kind' | 'trigger' | 'includeUsers'> &
  Partial<
    Pick<
      BackupJob,
      | 'sourceBackupId'
      | 'sourceProjectId'
      | 'targetProjectId'
      | 'key'
      | 'location'
      | 'sha256'
      | 'size'
      | 'replace'
    >
  >;

export function backupJobsRepo(db: Db) {
  const jobs = db.collection<JobDoc>(COLLECTION);
  const schedules = backupSchedulesRepo(db);
  const one = (projectId: string, id: string) => {
    const [pid, _id] = [toObjectId(projectId), toObjectId(id)];
    return pid && _id ? { _id, projectId: pid } : undefined;
  };

  return {
    /** What the project's scheduled backups hold (kept and removed with its jobs). */
    schedule: schedules,

    async create(projectId: string, input: NewJob, now = new Date()): Promise<BackupJob> {
      const doc: JobDoc = {
        _id: new ObjectId(),
        projectId: new ObjectId(projectId),
        state: 'queued',
        progress: { done: 0, total: 0 },
        size: null,
        sha256: null,
        key: null,
        location: null,
        counts: null,
        error: null,
        sourceBackupId: null,
        sourceProjectId: null,
        targetProjectId: null,
        resume: { partsDone: 0 },
        replace: false,
        conflicts: input.kind === 'restore' ? { total: 0, items: [] } : null,
        attempts: 0,
        createdAt: now,
        startedAt: null,
        finishedAt: null,
        owner: null,
        leaseUntil: null,
        ...input,
      };
      await jobs.insertOne(doc);
      return toJob(doc);
    },

    async get(projectId: string, id: string): Promise<BackupJob | undefined> {
      const filter = one(projectId, id);
      const doc = filter && (await jobs.findOne(filter));
      return doc ? toJob(doc) : undefined;
    },

    async list(projectId: string, kind: JobKind): Promise<BackupJob[]> {
      const pid = toObjectId(projectId);
      if (!pid) return [];
      const docs = await jobs.find({ projectId: pid, kind }).sort({ createdAt: -1, _id: -1 }).toArray();
      return docs.map(toJob);
    },

    /** A job of the project of that kind (or of either) still queued or running, if any. */
    async active(projectId: string, kind?: JobKind): Promise<BackupJob | undefined> {
      const doc = await jobs.findOne({
        projectId: new ObjectId(projectId),
        ...(kind ? { kind } : {}),
        state: { $in: ['queued', 'running'] },
      });
      return doc ? toJob(doc) : undefined;
    },

    /** Leases the oldest queued job, or a running one whose lease has expired (its worker died). */
    async claimNext(owner: string, now: Date, leaseMs: number): Promise<BackupJob | undefined> {
      const doc = await jobs.findOneAndUpdate(
        {
          $or: [{ state: 'queued' }, { state: 'running', leaseUntil: { $lte: now } }],
        },
        {
          $set: { state: 'running', owner, leaseUntil: new Date(now.getTime() + leaseMs), startedAt: now },
          $inc: { attempts: 1 },
        },
        { sort: { createdAt: 1 }, returnDocument: 'after' },
      );
      return doc ? toJob(doc) : undefined;
    },

    /** Records progress and extends the lease; false when this owner lost the job. */
    async progress(
      id: string,
      owner: string,
      changes: Partial<Pick<BackupJob, 'progress' | 'resume' | 'conflicts' | 'disabledFunctions'>>,
      leaseUntil: Date,
    ): Promise<boolean> {
      const res = await jobs.updateOne(
        { _id: new ObjectId(id), owner, state: 'running' },
        { $set: { ...changes, leaseUntil } },
      );
      return res.matchedCount === 1;
    },

    async finish(
      id: string,
      owner: string,
      outcome: Partial<
        Pick<
          BackupJob,
          | 'size'
          | 'sha256'
          | 'key'
          | 'location'
          | 'counts'
          | 'progress'
          | 'resume'
          | 'conflicts'
          | 'disabledFunctions'
        >
      > &
        Pick<BackupJob, 'state'> & { error?: string | null },
      now = new Date(),
    ): Promise<boolean> {
      const res = await jobs.updateOne(
        { _id: new ObjectId(id), owner, state: 'running' },
        { $set: { ...outcome, finishedAt: now, leaseUntil: null } },
      );
      return res.matchedCount === 1;
    },

    async remove(projectId: string, id: string): Promise<BackupJob | undefined> {
      const filter = one(projectId, id);
      const doc = filter && (await jobs.findOneAndDelete({ ...filter, state: { $ne: 'running' } }));
      return doc ? toJob(doc) : undefined;
    },

    /** Forgets every job of a deleted project (its archives go with its files), and its schedule's settings. */
    async removeAll(projectId: string): Promise<void> {
      const pid = toObjectId(projectId);
      if (pid) await jobs.deleteMany({ projectId: pid });
      await schedules.remove(projectId);
    },

    /** Finished backups beyond the newest `keep` of a trigger (retention by count). */
    async beyond(projectId: string, trigger: BackupJob['trigger'], keep: number): Promise<BackupJob[]> {
      const docs = await jobs
        .find({
          projectId: new ObjectId(projectId),
          kind: 'backup',
          trigger,
          state: { $in: ['done', 'failed'] },
        })
        .sort({ createdAt: -1, _id: -1 })
        .skip(keep)
        .toArray();
      return docs.map(toJob);
    },

    /** Bytes of the project's done backups' archives (at most the plan's kept count of each trigger). */
    async keptBytes(projectId: string): Promise<number> {
      const pid = toObjectId(projectId);
      if (!pid) return 0;
      const docs = await jobs
        .find({ projectId: pid, kind: 'backup', state: 'done' }, { projection: { size: 1 } })
        .toArray();
      return docs.reduce((sum, doc) => sum + (doc.size ?? 0), 0);
    },

    /** Backups of a trigger that take a place (all but failed ones). */
    async countKept(projectId: string, trigger: BackupJob['trigger']): Promise<number> {
      return jobs.countDocuments({
        projectId: new ObjectId(projectId),
        kind: 'backup',
        trigger,
        state: { $ne: 'failed' },
      });
    },
  };
}

export type BackupJobsRepo = ReturnType<typeof backupJobsRepo>;
