// Backups of a project on request (dashboard admins): queue, list, download, delete, and restore
// into a new project. The worker runs the jobs (src/jobs/backup-runner.ts, ./run.ts). A restore
// verifies the whole archive and the caller's quotas before anything is written.
import type { BackupJob, BackupJobsRepo } from '../../db/backup-jobs.js';
import type { ArchiveStore } from '../../storage/archives.js';
import { BACKUP_PLANS, projectLimits } from '../../lib/plans.js';
import { badRequest, conflict, forbidden, notFound, quotaExceeded } from '../../http/errors.js';
import type { RequestContext } from '../context.js';
import type { Project, PlanName } from '../types.js';
import { requireDeveloper, type ProjectsService } from '../projects.js';
import { verifyArchive } from './archive-reader.js';
import type { Manifest } from './archive.js';

export const DOWNLOAD_SECONDS = 300;

export interface BackupServiceDeps {
  jobs: BackupJobsRepo;
  archives: ArchiveStore;
  projects: ProjectsService;
  planOf(project: Project): Promise<PlanName>;
}

/** What the API shows of a job (the object key stays inside). */
export const toView = ({ key: _key, resume: _resume, attempts: _attempts, ...job }: BackupJob) => job;

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

  return {
    async create(
      project: Project,
      input: { includeUsers?: boolean },
      trigger: BackupJob['trigger'] = 'manual',
    ) {
      if (await deps.jobs.active(project.id, 'backup')) {
        throw conflict('A backup of this project is already queued or running', 'BACKUP_IN_PROGRESS');
      }
      const { kept } = BACKUP_PLANS[await deps.planOf(project)];
      if (trigger === 'manual' && (await deps.jobs.countKept(project.id, 'manual')) >= kept) {
        throw forbidden(
          `Plan limit reached: the plan keeps ${kept} backups made on request; delete one first`,
          'PLAN_LIMIT',
        );
      }
      return deps.jobs.create(project.id, {
        kind: 'backup',
        trigger,
        includeUsers: input.includeUsers ?? true,
      });
    },

    list: (project: Project) => deps.jobs.list(project.id, 'backup'),
    get: requireBackup,

    /** A short-lived URL of the archive, or undefined when the store serves none (read it through the API). */
    async downloadUrl(project: Project, id: string) {
      const job = await requireDone(project, id);
      const url = await deps.archives.downloadUrl(job.key, DOWNLOAD_SECONDS, `backup-${job.id}.tar.gz`);
      return { job, url, expiresAt: new Date(Date.now() + DOWNLOAD_SECONDS * 1000) };
    },

    async open(project: Project, id: string) {
      const job = await requireDone(project, id);
      const opened = await deps.archives.open(job.key);
      if (!opened) throw notFound('The backup archive is gone', 'BACKUP_NOT_FOUND');
      return { job, ...opened };
    },

    async remove(project: Project, id: string): Promise<void> {
      const job = await requireBackup(project, id);
      if (job.state === 'running')
        throw conflict('The backup is running; delete it once it ends', 'BACKUP_IN_PROGRESS');
      if (!(await deps.jobs.remove(project.id, id))) throw notFound('No such backup', 'BACKUP_NOT_FOUND');
      if (job.key) await deps.archives.delete(job.key);
    },

    /**
     * Restores a done backup into a new project of the caller: the archive is read through and
     * checked (checksums, format version, its project) and the caller's plan limits compared with
     * what it holds before the project is created and the restore queued.
     */
    async restore(ctx: RequestContext, project: Project, id: string, name: string) {
      const job = await requireDone(project, id);
      const opened = await deps.archives.open(job.key);
      if (!opened) throw notFound('The backup archive is gone', 'BACKUP_NOT_FOUND');
      const manifest = await verifyArchive(
        opened.stream,
        (m) => {
          if (m.project.id !== project.id)
            throw forbidden('The archive belongs to another project', 'FOREIGN_ARCHIVE');
        },
        job.sha256 ?? undefined,
      );
      checkQuotas(manifest, projectLimits({ limits: {} }, requireDeveloper(ctx).plan));
      const created = await deps.projects.create(ctx, name, {});
      const restore = await deps.jobs.create(created.project.id, {
        kind: 'restore',
        trigger: 'manual',
        includeUsers: manifest.includesUsers,
        sourceBackupId: job.id,
        key: job.key,
        sha256: job.sha256,
      });
      return { project: created.project, keys: created.keys, restore };
    },

    async getRestore(project: Project, id: string) {
      const job = await deps.jobs.get(project.id, id);
      if (!job || job.kind !== 'restore') throw notFound('No such restore', 'RESTORE_NOT_FOUND');
      return job;
    },
  };
}

function checkQuotas(manifest: Manifest, limits: ReturnType<typeof projectLimits>): void {
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
  if (!manifest.parts.length) throw badRequest('The archive is empty');
}

export type BackupService = ReturnType<typeof backupService>;
