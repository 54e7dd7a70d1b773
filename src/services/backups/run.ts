// Running one leased backup or restore job. A backup streams every part into the archive and
// stores it; a restore is ./restore-run.ts. Progress (documents done of total) is written as it
// goes, extending the lease.
import type { Database } from '../../db/client.js';
import { jobFailureMessage } from '../../db/errors.js';
import {
  countDocuments,
  dataCollections,
  dumpCollection,
  dumpPlatform,
  formatLine,
  internalFiles,
  PLATFORM_PARTS,
  projectSettings,
} from '../../db/backups.js';
import type { BackupJob, BackupJobsRepo } from '../../db/backup-jobs.js';
import { archiveKey, type ArchiveStore } from '../../storage/archives.js';
import type { CollectionDef } from '../types.js';
import { writeArchive, type PartSource } from './archive.js';
import { restore } from './restore-run.js';
import type { ArchivePlaces } from './places.js';
import type { RestoreRefsRepo } from '../../db/restore-refs.js';

const PROGRESS_EVERY = 500;
type Db = Database['platform'];

export interface RunDeps {
  jobs: BackupJobsRepo;
  /** The operator's store: the project's files, and archives kept there. */
  archives: ArchiveStore;
  places: ArchivePlaces;
  platform: Db;
  dbFor(projectId: string): Promise<Db>;
  listDefinitions(projectId: string): Promise<CollectionDef[]>;
  syncIndexes(projectId: string, def: CollectionDef): Promise<void>;
  recountUsage(projectId: string): Promise<void>;
  /** Keeps the newest backups of the project's plan; older ones are deleted. */
  applyRetention(projectId: string): Promise<void>;
  /** Tells every process that the project's definitions and settings changed (their caches). */
  changed(projectId: string): Promise<void>;
  /** Holds the project's public API back while this restore replaces its data. */
  setRestoring(projectId: string, restoreId: string): Promise<void>;
  /** Lets it go once that restore ended. */
  clearRestoring(projectId: string, restoreId: string): Promise<void>;
  /** Builds the end users' own indexes (unique email) before a restore loads them. */
  ensureUserIndexes(projectId: string): Promise<void>;
  refs: RestoreRefsRepo;
  /** A new webhook signing secret, sealed as stored (a webhook restored into a new project gets one). */
  newWebhookSecret(): string;
  /** A value sealed as a function's env and signing secret are stored (a restore into a new project). */
  sealFunctionValue(value: string): string;
  /** The bounds of one backup of the project (by the plan in force). */
  backupBounds(projectId: string, trigger: BackupJob['trigger']): Promise<BackupBounds>;
  /** How long a restore's one read of its archive may take (RESTORE_COPY_TIMEOUT_MS). */
  copyTimeoutMs: number;
}

export interface BackupBounds {
  /** The plan's database bytes: the documents' BSON size a backup may hold. */
  dataBytes: number;
  /** Bytes of parts the temporary folder may hold. */
  spoolBytes: number;
  /** What the plan's backup storage leaves for this archive (after retention, for a scheduled one). */
  archiveBytes: number;
}

export interface RunOptions {
  owner: string;
  leaseMs: number;
  now: () => Date;
  /** The job runner's seam: told after each batch of progress (tests stop the worker there). */
  onProgress?: (job: BackupJob, done: number) => Promise<void>;
}

export function jobRunner(deps: RunDeps, opts: RunOptions) {
  const lease = () => new Date(opts.now().getTime() + opts.leaseMs);
  const report = async (job: BackupJob, changes: Parameters<BackupJobsRepo['progress']>[2]) => {
    if (!(await deps.jobs.progress(job.id, opts.owner, changes, lease()))) {
      throw new Error(`backup job ${job.id} was taken over by another worker`);
    }
    if (changes.progress) await opts.onProgress?.(job, changes.progress.done);
  };

  async function backup(job: BackupJob, stop?: AbortSignal): Promise<void> {
    const db = await deps.dbFor(job.projectId);
    const collections = (await dataCollections(db)).filter((name) => job.includeUsers || name !== 'users');
    let total = 0;
    for (const name of collections) total += await countDocuments(db, name);
    const progress = { done: 0, total };
    await report(job, { progress });
    const about = await projectSettings(deps.platform, job.projectId);
    if (!about) throw new Error('the project no longer exists');
    const bounds = await deps.backupBounds(job.projectId, job.trigger);
    let dataBytes = 0;
    // The documents' size is bounded by the plan whatever holds them (a project's own database has
    // no quota): the dump stops past it rather than fill the worker's disk and the store.
    async function* bounded(lines: ReturnType<typeof dumpCollection>) {
      for await (const line of lines) {
        dataBytes += line.bsonBytes;
        if (dataBytes > bounds.dataBytes)
          throw new Error(
            `the project's documents pass the plan's database size of ${bounds.dataBytes} bytes (databaseBytes); the backup was stopped`,
          );
        yield line;
      }
    }
    async function* parts(): AsyncGenerator<PartSource> {
      yield {
        name: 'platform/project.jsonl',
        lines: (async function* () {
          yield formatLine({ name: about!.name, settings: about!.settings });
        })(),
      };
      for (const part of PLATFORM_PARTS) {
        yield { name: `platform/${part}.jsonl`, lines: dumpPlatform(deps.platform, part, job.projectId) };
      }
      for (const name of collections) {
        stop?.throwIfAborted();
        yield { name: `data/${name}.jsonl`, lines: bounded(dumpCollection(db, name)) };
      }
      for await (const file of internalFiles(deps.platform, job.projectId)) {
        yield { name: `files/${file.id}`, bytes: async () => (await deps.archives.open(file.path))?.stream };
      }
    }
    let partName = '';
    const archive = await writeArchive(
      {
        project: { id: job.projectId, name: about.name },
        createdAt: opts.now().toISOString(),
        includesUsers: job.includeUsers,
      },
      (async function* () {
        for await (const part of parts()) {
          partName = part.name;
          yield part;
        }
      })(),
      async () => {
        stop?.throwIfAborted();
        if (!partName.startsWith('data/')) return;
        progress.done += 1;
        if (progress.done % PROGRESS_EVERY === 0) await report(job, { progress: { ...progress } });
      },
      bounds.spoolBytes,
    );
    try {
      if (archive.size > bounds.archiveBytes) {
        throw new Error(
          `the backup (${archive.size} bytes) does not fit in the plan's backup storage (backupBytes): ${Math.max(0, bounds.archiveBytes)} bytes are left; delete older backups`,
        );
      }
      const key = archiveKey(job.projectId, job.id);
      const { archives, location } = await deps.places.forNew(job.projectId);
      await archives.put(key, archive.file, archive.size);
      const counts = Object.fromEntries(archive.manifest.parts.map((p) => [p.name, p.count]));
      await deps.jobs.finish(job.id, opts.owner, {
        state: 'done',
        key,
        location,
        size: archive.size,
        sha256: archive.sha256,
        counts,
        progress: { done: progress.done, total: progress.done },
      });
    } finally {
      await archive.cleanup();
    }
    await deps.applyRetention(job.projectId);
  }

  /** Records the job as failed; false when this worker no longer had it (finished, taken over). */
  async function fail(job: BackupJob, err: unknown): Promise<boolean> {
    const message = jobFailureMessage(err);
    const recorded = await deps.jobs.finish(job.id, opts.owner, { state: 'failed', error: message });
    // Only the worker that still had the job lets the project go (another may be loading it);
    // a crash right here leaves the mark to the public API's check of the job (stillRestoring).
    if (recorded && job.kind === 'restore' && job.replace) await deps.clearRestoring(job.projectId, job.id);
    // A failed restore is not retried: its pending Refs are of no use (unless another worker has it).
    if (recorded && job.kind === 'restore') await deps.refs.clear(job.id).catch(() => undefined);
    return recorded;
  }

  /**
   * Runs one leased job to its end; a failure is recorded on the job (the archive is kept clean).
   * `stop` is the worker's task deadline: the job stops at its next line or part, and its lease
   * is no longer kept alive.
   */
  async function run(job: BackupJob, stop?: AbortSignal): Promise<void> {
    // Packing and storing the archive write no progress: the lease is also kept alive by a beat.
    const beat = setInterval(() => {
      deps.jobs.progress(job.id, opts.owner, {}, lease()).catch(() => undefined);
    }, opts.leaseMs / 3);
    stop?.addEventListener('abort', () => clearInterval(beat), { once: true });
    try {
      if (job.kind === 'backup') await backup(job, stop);
      else
        await restore(deps, job, {
          report,
          finish: (outcome) => deps.jobs.finish(job.id, opts.owner, outcome),
        });
    } catch (err) {
      await fail(job, stop?.aborted ? stop.reason : err);
      throw err;
    } finally {
      clearInterval(beat);
    }
  }
  return Object.assign(run, { fail });
}
