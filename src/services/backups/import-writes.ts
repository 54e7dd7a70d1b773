// The writes of a collection import: rows inserted in batches tagged with the import's job id
// (db/import-rows.ts), the database quota reserved per batch (and row by row once a batch does not
// fit, to name the row that does not), then either kept (the rows' created events are sent then,
// so an import taken back never announced its rows, and the tag goes) or discarded (the
// tagged rows deleted and their bytes given back). A job whose process died is swept by the next
// import into the project or by the worker (`import-sweep`): discarded, or kept when it had started
// keeping.
import type { Database } from '../../db/client.js';
import {
  insertTagged,
  removeTagged,
  taggedBatches,
  taggedSizes,
  untagAll,
  withIds,
  type ImportJob,
  type ImportJobsRepo,
} from '../../db/import-rows.js';
import { newId } from '../../db/ids.js';
import { toDocument } from '../../db/stored-form.js';
import { ApiError } from '../../http/errors.js';
import type { DatabaseQuota } from '../data/quota.js';
import { toApi } from '../data/serialize.js';
import type { EventBus } from '../events.js';
import type { Project } from '../types.js';

const BATCH = 500;
/** A job that has not beaten for this long is taken as dead (it beats every HEARTBEAT_MS). */
export const STALE_MS = 2 * 60_000;
export const HEARTBEAT_MS = 15_000;
/** Imports one project may run at once, across every process (each holds memory and a database stream). */
export const MAX_IMPORTS_PER_PROJECT = 2;

export interface ImportWriteDeps {
  quota: DatabaseQuota;
  events: EventBus;
  jobs: ImportJobsRepo;
  dbFor(projectId: string): Promise<Database['platform']>;
}

export interface JobRef {
  id: string;
  projectId: string;
  collection: string;
  startedAt: Date;
}

/** What one batch did: rows written, rows a unique index refused, the row the quota stopped at. */
export interface BatchResult {
  written: number;
  refused: { row: number; field: string }[];
  quota?: { row: number; error: ApiError };
}

type Row = Record<string, unknown>;

const isQuota = (err: unknown): err is ApiError => err instanceof ApiError && err.code === 'QUOTA_EXCEEDED';

export function importWrites(deps: ImportWriteDeps) {
  /** Beats for the job until the returned function is called. */
  function heartbeat(job: JobRef): () => void {
    const timer = setInterval(() => void deps.jobs.beat(job.id).catch(() => undefined), HEARTBEAT_MS);
    timer.unref();
    return () => clearInterval(timer);
  }

  /**
   * Runs a keep or a discard beating all along, so that no sweeper takes the job over while it
   * runs (a discard measures and deletes in passes that may outlast the stale time).
   */
  async function beating(job: JobRef, work: () => Promise<void>): Promise<void> {
    const stop = heartbeat(job);
    try {
      await work();
    } finally {
      stop();
    }
  }

  async function insertCharged(project: Project, job: JobRef, docs: Row[], bytes: number) {
    const db = await deps.dbFor(job.projectId);
    return deps.quota.within(
      project,
      bytes,
      () => insertTagged(db, job.collection, docs, job.id),
      (res) => res.bytes,
    );
  }

  /**
   * Keeps the job's rows: their created events are announced and sent 500 at a time, then the
   * tag goes in one update. A keep cut short by a crash is done again by the sweep, whose events
   * repeat those sent already (at least once, as for any announced event).
   */
  const keep = (job: JobRef) => beating(job, () => keepNow(job));
  async function keepNow(job: JobRef): Promise<void> {
    const db = await deps.dbFor(job.projectId);
    await deps.jobs.beat(job.id, 'committing');
    for await (const docs of taggedBatches(db, job.collection, job, BATCH)) {
      const intents = docs.map((doc) => ({
        name: 'document.created' as const,
        projectId: job.projectId,
        collection: job.collection,
        documentId: String(doc._id),
        at: doc.createdAt instanceof Date ? doc.createdAt : new Date(),
      }));
      const announcement = await deps.events.announce(intents);
      await announcement.emit(
        intents.map((intent, i) => ({ ...intent, document: toApi(toDocument(docs[i]!)) })),
      );
      await deps.jobs.beat(job.id);
    }
    // The quota was charged for the rows as written, tag included: the tag's bytes go back.
    const freed = await untagAll(db, job.collection, job);
    if (freed) await deps.quota.chargeProject(job.projectId, -freed);
    await deps.jobs.end(job.id);
  }

  /** Deletes the job's rows and gives their bytes back to the project's quota. */
  const discard = (job: JobRef) => beating(job, () => discardNow(job));
  async function discardNow(job: JobRef): Promise<void> {
    const db = await deps.dbFor(job.projectId);
    const bytes = await removeTagged(db, job.collection, job);
    if (bytes) await deps.quota.chargeProject(job.projectId, -bytes);
    await deps.jobs.end(job.id);
  }

  return {
    /**
     * Registers an import, refused (429 TOO_MANY_IMPORTS) when the project has as many running
     * already. The job is written first and the live ones counted after: of imports starting at
     * the same moment some may be refused that need not have been, but never one too many runs.
     */
    async start(projectId: string, collection: string): Promise<JobRef> {
      const job = { id: newId(), projectId, collection, startedAt: new Date() };
      await deps.jobs.start({ _id: job.id, projectId, collection, startedAt: job.startedAt });
      if ((await deps.jobs.live(projectId, new Date(Date.now() - STALE_MS))) > MAX_IMPORTS_PER_PROJECT) {
        await deps.jobs.end(job.id);
        throw new ApiError(
          429,
          'TOO_MANY_IMPORTS',
          `This project already runs ${MAX_IMPORTS_PER_PROJECT} imports, the most it may run at once: retry once one ends`,
          undefined,
          { 'Retry-After': '5' },
        );
      }
      return job;
    },

    heartbeat,

    /** Writes one batch of validated rows (`doc` completed with its system fields). */
    async insert(project: Project, job: JobRef, rows: { row: number; doc: Row }[]): Promise<BatchResult> {
      if (!rows.length) return { written: 0, refused: [] };
      const docs = withIds(rows.map(({ doc }) => doc));
      const sizes = taggedSizes(docs, job.id);
      const total = sizes.reduce((a, b) => a + b, 0);
      const rowOf = (index: number) => rows[index]!.row;
      try {
        const res = await insertCharged(project, job, docs, total);
        return {
          written: docs.length - res.refused.length,
          refused: res.refused.map((r) => ({ row: rowOf(r.index), field: r.field })),
        };
      } catch (err) {
        if (!isQuota(err)) throw err;
      }
      // The batch does not fit: row by row, up to the first that does not.
      const result: BatchResult = { written: 0, refused: [] };
      for (let i = 0; i < docs.length; i++) {
        try {
          const res = await insertCharged(project, job, [docs[i]!], sizes[i]!);
          if (res.refused.length) result.refused.push({ row: rowOf(i), field: res.refused[0]!.field });
          else result.written += 1;
        } catch (err) {
          if (!isQuota(err)) throw err;
          result.quota = { row: rowOf(i), error: err };
          return result;
        }
      }
      return result;
    },

    keep,
    discard,

    /**
     * Finishes the jobs (of one project, or all: the worker) whose process died: kept if they
     * were keeping, else discarded. Returns how many it finished.
     */
    async sweep(projectId?: string): Promise<number> {
      const stale = await deps.jobs.stale(projectId, new Date(Date.now() - STALE_MS));
      let swept = 0;
      let failure: unknown;
      for (const record of stale) {
        if (!(await deps.jobs.claim(record))) continue;
        const job = {
          id: record._id,
          projectId: record.projectId,
          collection: record.collection,
          startedAt: record.startedAt,
        };
        // One job that cannot be finished now (its project's database unreachable) does not hold
        // back the others; it is stale again in 2 minutes and taken by a later sweep.
        try {
          await (record.state === 'committing' ? keep(job) : discard(job));
          swept += 1;
        } catch (err) {
          failure ??= err;
        }
      }
      if (failure) throw failure;
      return swept;
    },
  };
}

export type ImportWrites = ReturnType<typeof importWrites>;
export type { ImportJob };
