// Backups on the dashboard (admins): back up now, list, read one, download, delete, restore into
// a new project, and follow a restore. The work runs in the worker (src/jobs/backup-runner.ts).
import type { operations } from '../../generated/dashboard.js';
import type { operations as PublicOps } from '../../generated/public.js';
import { secretKeyProject } from '../services/collections.js';
import type { Handler } from '../http/types.js';
import type { Services } from '../services/index.js';
import { toView } from '../services/backups/index.js';
import type { BackupJob } from '../db/backup-jobs.js';
import type { Project } from '../services/types.js';

export const iso = (d: Date | null) => (d ? d.toISOString() : null);
const totalBytes = (list: BackupJob[]) => list.reduce((sum, job) => sum + (job.size ?? 0), 0);

export const jobView = (job: BackupJob) => {
  const view = toView(job);
  return {
    ...view,
    createdAt: job.createdAt.toISOString(),
    startedAt: iso(job.startedAt),
    finishedAt: iso(job.finishedAt),
  };
};

type Ops = operations;

export function backupHandlers({ projects, backups }: Services) {
  /** The new project as `createProject` shows it (the caller owns it: admin). */
  const projectView = async (project: Project) => {
    const key = (k: Project['keys']['secret']) => ({ last4: k.last4, createdAt: k.createdAt.toISOString() });
    return {
      id: project.id,
      name: project.name,
      ownerId: project.ownerId,
      settings: project.settings,
      usage: project.usage,
      hasAiProviderKey: project.hasAiProviderKey,
      role: 'admin' as const,
      keys: { publishable: key(project.keys.publishable), secret: key(project.keys.secret) },
      limits: await projects.limitsOf(project),
      createdAt: project.createdAt.toISOString(),
      updatedAt: project.updatedAt.toISOString(),
    };
  };
  const ok = <T>(data: T, message = '') => ({ success: true as const, data, message });
  const admin = (ctx: Parameters<Handler<unknown>>[1], projectId: string) =>
    projects.requireAccess(ctx, projectId, 'admin');

  const listBackups: Handler<Ops['listBackups']> = async ({ params }, ctx) => {
    const project = await admin(ctx, params.projectId);
    const list = await backups.list(project);
    return { status: 200, body: ok({ backups: list.map(jobView), totalBytes: totalBytes(list) }) };
  };

  const createBackup: Handler<Ops['createBackup']> = async ({ params, body }, ctx) => {
    const project = await admin(ctx, params.projectId);
    const backup = await backups.create(project, body ?? {});
    return { status: 202, body: ok({ backup: jobView(backup) }, 'Backup queued') };
  };

  const getBackup: Handler<Ops['getBackup']> = async ({ params }, ctx) => {
    const project = await admin(ctx, params.projectId);
    return { status: 200, body: ok({ backup: jobView(await backups.get(project, params.backupId)) }) };
  };

  const deleteBackup: Handler<Ops['deleteBackup']> = async ({ params }, ctx) => {
    const project = await admin(ctx, params.projectId);
    await backups.remove(project, params.backupId);
    return { status: 200, body: ok({}, 'Backup deleted') };
  };

  const createBackupDownload: Handler<Ops['createBackupDownload']> = async ({ params }, ctx) => {
    const project = await admin(ctx, params.projectId);
    const { job, url, expiresAt } = await backups.downloadUrl(project, params.backupId);
    const data = {
      url: url ?? `/api/projects/${project.id}/backups/${job.id}/archive`,
      expiresAt: expiresAt.toISOString(),
      sha256: job.sha256!,
      containsPasswordHashes: job.includeUsers,
    };
    const warning = job.includeUsers ? 'The archive holds the end users’ password hashes: keep it safe' : '';
    return { status: 200, body: ok(data, warning) };
  };

  const getBackupArchive: Handler<Ops['getBackupArchive']> = async ({ params }, ctx) => {
    const project = await admin(ctx, params.projectId);
    const { job, stream, size } = await backups.open(project, params.backupId);
    return {
      status: 200,
      body: stream as never,
      headers: {
        'Content-Type': 'application/gzip',
        'Content-Length': String(size),
        'Content-Disposition': `attachment; filename="backup-${job.id}.tar.gz"`,
      },
    };
  };

  const restoreBackup: Handler<Ops['restoreBackup']> = async ({ params, body }, ctx) => {
    const project = await admin(ctx, params.projectId);
    const { restore, project: target, keys } = await backups.restore(ctx, project, params.backupId, body);
    if (!keys) {
      return {
        status: 202,
        body: ok(
          { project: await projectView(target), restore: jobView(restore) },
          'Restore queued: the project’s data will be replaced by the backup’s',
        ),
      };
    }
    return {
      status: 202,
      body: ok(
        { project: await projectView(target), keys, restore: jobView(restore) },
        'Project created; restore queued. The keys are shown once',
      ),
    };
  };

  const getRestore: Handler<Ops['getRestore']> = async ({ params }, ctx) => {
    const project = await admin(ctx, params.projectId);
    return {
      status: 200,
      body: ok({ restore: jobView(await backups.getRestore(project, params.restoreId)) }),
    };
  };

  const scheduleView = (schedule: Awaited<ReturnType<typeof backups.schedule>>) => ({
    ...schedule,
    updatedAt: iso(schedule.updatedAt),
  });

  const getBackupSchedule: Handler<Ops['getBackupSchedule']> = async ({ params }, ctx) => {
    const project = await admin(ctx, params.projectId);
    return { status: 200, body: ok({ schedule: scheduleView(await backups.schedule(project)) }) };
  };

  const updateBackupSchedule: Handler<Ops['updateBackupSchedule']> = async ({ params, body }, ctx) => {
    const project = await admin(ctx, params.projectId);
    const schedule = await backups.setSchedule(project, body);
    const warning = schedule.includeUsers
      ? 'Scheduled backups now hold the end users’ password hashes: keep them safe'
      : 'Scheduled backups leave the end users out';
    return { status: 200, body: ok({ schedule: scheduleView(schedule) }, warning) };
  };

  return {
    getBackupSchedule,
    updateBackupSchedule,
    listBackups,
    createBackup,
    getBackup,
    deleteBackup,
    createBackupDownload,
    getBackupArchive,
    restoreBackup,
    getRestore,
  };
}

/** The same operations for the project of the secret key (no restore: it creates a project). */
export function publicBackupHandlers({ backups }: Services) {
  const ok = <T>(data: T, message = '') => ({ success: true as const, data, message });

  const listProjectBackups: Handler<PublicOps['listProjectBackups']> = async (_input, ctx) => {
    const list = await backups.list(secretKeyProject(ctx));
    return { status: 200, body: ok({ backups: list.map(jobView), totalBytes: totalBytes(list) }) };
  };

  const createProjectBackup: Handler<PublicOps['createProjectBackup']> = async ({ body }, ctx) => {
    const backup = await backups.create(secretKeyProject(ctx), body ?? {});
    return { status: 202, body: ok({ backup: jobView(backup) }, 'Backup queued') };
  };

  const getProjectBackup: Handler<PublicOps['getProjectBackup']> = async ({ params }, ctx) => {
    const backup = await backups.get(secretKeyProject(ctx), params.backupId);
    return { status: 200, body: ok({ backup: jobView(backup) }) };
  };

  const deleteProjectBackup: Handler<PublicOps['deleteProjectBackup']> = async ({ params }, ctx) => {
    await backups.remove(secretKeyProject(ctx), params.backupId);
    return { status: 200, body: ok({}, 'Backup deleted') };
  };

  const createProjectBackupDownload: Handler<PublicOps['createProjectBackupDownload']> = async (
    { params },
    ctx,
  ) => {
    const { job, url, expiresAt } = await backups.downloadUrl(secretKeyProject(ctx), params.backupId);
    const data = {
      url: url ?? `/api/backups/${job.id}/archive`,
      expiresAt: expiresAt.toISOString(),
      sha256: job.sha256!,
      containsPasswordHashes: job.includeUsers,
    };
    const warning = job.includeUsers ? 'The archive holds the end users’ password hashes: keep it safe' : '';
    return { status: 200, body: ok(data, warning) };
  };

  const getProjectBackupArchive: Handler<PublicOps['getProjectBackupArchive']> = async ({ params }, ctx) => {
    const { job, stream, size } = await backups.open(secretKeyProject(ctx), params.backupId);
    return {
      status: 200,
      body: stream,
      headers: {
        'Content-Type': 'application/gzip',
        'Content-Length': String(size),
        'Content-Disposition': `attachment; filename="backup-${job.id}.tar.gz"`,
      },
    };
  };

  return {
    listProjectBackups,
    createProjectBackup,
    getProjectBackup,
    deleteProjectBackup,
    createProjectBackupDownload,
    getProjectBackupArchive,
  };
}
