// Backups of a project on request (dashboard admins): queue, list, download, delete, and restore
// into a new project. The worker runs the jobs (src/jobs/backup-runner.ts, ./run.ts). A restore
// verifies the whole archive and the caller's quotas before anything is written.
import type { BackupJob, BackupJobsRepo } from '../../db/backup-jobs.js';
import type { ArchivePlaces } from './places.js';
import { limitsOf, type PlanTable } from '../../lib/plan-table.js';
import { badRequest, conflict, forbidden, notFound, quotaExceeded } from '../../http/errors.js';
import type { RequestContext } from '../context.js';
import type { PlanLimits, PlanName, Project } from '../types.js';
import { requireDeveloper, type ProjectsService } from '../projects.js';
import { verifyForRestore } from './restore-check.js';
import type { Manifest } from './archive.js';
import { counted } from '../../lib/words.js';

export const DOWNLOAD_SECONDS = 300;

export interface BackupServiceDeps {
  jobs: BackupJobsRepo;
  places: ArchivePlaces;
  projects: ProjectsService;
  planOf(project: Project): Promise<PlanName>;
  plans: PlanTable;
}

/** What the API shows of a job (the object key stays inside). */
export const toView = ({
  key: _key,
  resume: _resume,
  attempts: _attempts,
  location,
  sourceProjectId: _source,
  ...job
}: BackupJob) => ({ ...job, storage: location ? ('external' as const) : ('internal' as const) });

export function backupService(deps: BackupServiceDeps) {
  async function requireBackup(project: Project, id: string): Promise<BackupJob> {
    const job = await deps.jobs.get(project.id, id);
    if (!job || job.kind !== 'backup') throw notFound('No such backup', 'BACKUP_NOT_FOUND');
    return job;
  }

  async function requireDone(project: Project, id: string): Promise<BackupJob & { key: string }> {
    const job = await requireBackup(project, id);
    if (job.state !== 'done' || !job.key)
      throw conflict(`The backup is ${job.state}, not done`, 'BACKUP_NOT_READY');
    return job as BackupJob & { key: string };
  }

  /** The store of a backup's archive (404 when it is in a bucket the project no longer uses). */
  async function storeOf(project: Project, job: BackupJob) {
    const archives = await deps.places.at(project.id, job.location);
    if (!archives)
      throw notFound('The backup archive is in a bucket the project no longer uses', 'BACKUP_NOT_FOUND');
    return archives;
  }

  async function openArchive(project: Project, job: BackupJob & { key: string }) {
    const opened = await (await storeOf(project, job)).open(job.key);
    if (!opened) throw notFound('The backup archive is gone', 'BACKUP_NOT_FOUND');
    return opened;
  }

  /** The plan's schedule and what the scheduled backups hold (end users: opt-in). */
  async function schedule(project: Project) {
    const { every, kept } = deps.plans.get(await deps.planOf(project)).backups;
    return { every, kept, ...(await deps.jobs.schedule.get(project.id)) };
  }

  return {
    async create(
      project: Project,
      input: { includeUsers?: boolean },
      trigger: BackupJob['trigger'] = 'manual',
    ) {
      // A restore writing into the project would leave half of it in the archive: wait for it too.
      if (await deps.jobs.active(project.id)) {
        throw conflict(
          'A backup or restore of this project is already queued or running',
          'BACKUP_IN_PROGRESS',
        );
      }
      const { kept } = deps.plans.get(await deps.planOf(project)).backups;
      if (trigger === 'manual' && (await deps.jobs.countKept(project.id, 'manual')) >= kept) {
        throw forbidden(
          `Plan limit reached: the plan keeps ${counted(kept, 'backup')} made on request; delete one first`,
          'PLAN_LIMIT',
        );
      }
      // The kept archives fill the plan's backup storage: a new one could not be kept. (One that
      // would pass it once made fails in the worker, before anything is stored.)
      const { backupBytes } = await deps.projects.limitsOf(project);
      const keptBytes = await deps.jobs.keptBytes(project.id);
      if (trigger === 'manual' && keptBytes >= backupBytes) {
        throw quotaExceeded(
          `Backup storage full: the project's backups take ${keptBytes} of the plan's ${backupBytes} bytes (backupBytes); delete one first`,
        );
      }
      return deps.jobs.create(project.id, {
        kind: 'backup',
        trigger,
        // Opt-in, as for the schedule: an archive with the end users holds their password hashes.
        includeUsers: input.includeUsers ?? false,
      });
    },

    list: (project: Project) => deps.jobs.list(project.id, 'backup'),

    schedule,
    async setSchedule(project: Project, input: { includeUsers: boolean }) {
      await deps.jobs.schedule.set(project.id, input.includeUsers);
      return schedule(project);
    },
    get: requireBackup,

    /** A short-lived URL of the archive, or undefined when the store serves none (read it through the API). */
    async downloadUrl(project: Project, id: string) {
      const job = await requireDone(project, id);
      const archives = await storeOf(project, job);
      const url = await archives.downloadUrl(job.key, DOWNLOAD_SECONDS, `backup-${job.id}.tar.gz`);
      return { job, url, expiresAt: new Date(Date.now() + DOWNLOAD_SECONDS * 1000) };
    },

    async open(project: Project, id: string) {
      const job = await requireDone(project, id);
      return { job, ...(await openArchive(project, job)) };
    },

    async remove(project: Project, id: string): Promise<void> {
      const job = await requireBackup(project, id);
      if (job.state === 'running')
        throw conflict('The backup is running; delete it once it ends', 'BACKUP_IN_PROGRESS');
      if (!(await deps.jobs.remove(project.id, id))) throw notFound('No such backup', 'BACKUP_NOT_FOUND');
      // An archive in a bucket the project no longer uses stays there: its owner's to remove.
      if (job.key) await (await deps.places.at(project.id, job.location))?.delete(job.key);
    },

    /**
     * Restores a done backup into a new project of the caller (`target: 'new'`, the default), or
     * over the project it was made of (`'same'`) when `confirm` is the project's name. The archive
     * is read through and checked (checksums, format version, its project) and the plan's limits
     * compared with what it holds before anything is created, cleared or queued.
     */
    async restore(ctx: RequestContext, project: Project, id: string, input: RestoreInput) {
      const same = input.target === 'same';
      if (same) checkConfirmation(project, input);
      else if (input.name === undefined)
        throw badRequest('name is required: the name of the new project to restore into');
      const job = await requireDone(project, id);
      if (same && (await deps.jobs.active(project.id))) {
        throw conflict(
          'A backup or restore of this project is queued or running; replace its data once it ends',
          'BACKUP_IN_PROGRESS',
        );
      }
      // The cheap refusals first: a developer at their project limit is told so before the archive is read.
      if (!same) await deps.projects.checkProjectSlot(ctx);
      const limits = same
        ? await deps.projects.limitsOf(project)
        : limitsOf(deps.plans, { limits: {} }, requireDeveloper(ctx).plan);
      const opened = await openArchive(project, job);
      const manifest = await verifyForRestore(opened.stream, {
        sha256: job.sha256 ?? undefined,
        rules: {
          sourceProjectId: project.id,
          indexesPerCollection: limits.indexesPerCollection,
          functions: {
            codeBytes: limits.functionCodeBytes,
            secrets: limits.functionSecrets,
            cronMinSeconds: limits.functionCronMinSeconds,
          },
        },
        manifest: (m) => checkQuotas(m, limits),
      });
      const created = same ? undefined : await deps.projects.create(ctx, input.name!, {});
      const restore = await deps.jobs.create(created?.project.id ?? project.id, {
        kind: 'restore',
        trigger: 'manual',
        includeUsers: manifest.includesUsers,
        sourceBackupId: job.id,
        sourceProjectId: project.id,
        key: job.key,
        location: job.location,
        sha256: job.sha256,
        size: job.size,
        replace: same,
      });
      // From now until the job ends, the project's clients are held back (503 PROJECT_RESTORING).
      if (same) await deps.projects.setRestoring(project.id, restore.id);
      return { project: created?.project ?? project, keys: created?.keys, restore };
    },

    /**
     * Whether the restore the project is marked with is still queued or running; a mark left by a
     * job that ended (its worker died between recording the end and removing the mark) is removed.
     */
    async stillRestoring(project: Project): Promise<boolean> {
      if (!project.restoringId) return false;
      const job = await deps.jobs.get(project.id, project.restoringId);
      if (job && (job.state === 'queued' || job.state === 'running')) return true;
      await deps.projects.clearRestoring(project.id, project.restoringId);
      return false;
    },

    async getRestore(project: Project, id: string) {
      const job = await deps.jobs.get(project.id, id);
      if (!job || job.kind !== 'restore') throw notFound('No such restore', 'RESTORE_NOT_FOUND');
      return job;
    },
  };
}

export interface RestoreInput {
  /** `new` (default): a new project named `name`; `same`: over this project, `confirm` its name. */
  target?: 'new' | 'same';
  name?: string;
  confirm?: string;
}

/** A replace is asked for by typing the project's name: anything else is refused, naming it. */
function checkConfirmation(project: Project, input: RestoreInput): void {
  if (input.name !== undefined)
    throw badRequest('name is for a restore into a new project; a restore over this project keeps its name');
  if (input.confirm !== project.name) {
    throw badRequest(
      `Restoring over this project replaces all its data: confirm by sending "confirm": ${JSON.stringify(project.name)} (the project's name)`,
      undefined,
      'CONFIRMATION_REQUIRED',
    );
  }
}

function checkQuotas(manifest: Manifest, limits: PlanLimits): void {
  const bytes = manifest.parts.reduce((n, p) => n + (p.bsonBytes ?? 0), 0);
  if (bytes > limits.databaseBytes) {
    throw quotaExceeded(
      `The backup holds ${bytes} bytes of documents; the plan allows ${limits.databaseBytes}`,
    );
  }
  const files = manifest.parts.filter((p) => p.name.startsWith('files/')).reduce((n, p) => n + p.size, 0);
  if (files > limits.storageBytes) {
    throw quotaExceeded(`The backup holds ${files} bytes of files; the plan allows ${limits.storageBytes}`);
  }
  const count = (name: string) => manifest.parts.find((p) => p.name === name)?.count ?? 0;
  if (count('platform/collections.jsonl') > limits.collectionsPerProject) {
    throw quotaExceeded(
      `The backup holds more collections than the plan allows (${limits.collectionsPerProject})`,
    );
  }
  if (count('platform/webhooks.jsonl') > limits.webhooksPerProject) {
    throw quotaExceeded(`The backup holds more webhooks than the plan allows (${limits.webhooksPerProject})`);
  }
  if (count('platform/functions.jsonl') > limits.functionsPerProject) {
    throw quotaExceeded(
      `The backup holds more functions than the plan allows (${limits.functionsPerProject})`,
    );
  }
  if (!manifest.parts.length) throw badRequest('The archive is empty');
}

export type BackupService = ReturnType<typeof backupService>;
