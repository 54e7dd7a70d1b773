// The worker's backup loop: leases queued backup and restore jobs one at a time and runs them
// (services/backups/run.ts), and takes over a job whose worker died once its lease has expired.
// Also the schedule: each project gets a backup per period of its plan (daily on Free, hourly on
// Pro), and the oldest scheduled ones beyond the plan's count are deleted.
import type { Deps } from '../deps.js';
import type { Services } from '../services/index.js';
import { backupJobsRepo } from '../db/backup-jobs.js';
import { restoreRefsRepo } from '../db/restore-refs.js';
import { usersRepo } from '../db/users.js';
import { syncCollectionIndexes } from '../services/collections.js';
import { projectIndexes } from '../db/project-indexes.js';
import { jobRunner, type RunOptions } from '../services/backups/run.js';
import { usageRecountJob } from './usage-recount.js';
import { periodOf, workerId } from './lease.js';
import { TaskTimeoutError, withTaskDeadline } from '../lib/task-deadline.js';

const LEASE_MS = 60_000;
const POLL_MS = 2_000;
/** Temporary space beyond the plan's sizes: the platform parts and the JSON text's overhead. */
const SPOOL_SLACK = 16 * 1024 * 1024;

export function backupRunner(deps: Deps, services: Services, options: Partial<RunOptions> = {}) {
  const jobs = backupJobsRepo(deps.db.platform);
  const opts: RunOptions = { owner: workerId(), leaseMs: LEASE_MS, now: () => new Date(), ...options };
  const { dbFor } = services.externalDb.databases;
  const recount = usageRecountJob(deps, services, opts.now);
  const archives = services.backups.archives;
  const run = jobRunner(
    {
      jobs,
      archives,
      places: services.backups.places,
      platform: deps.db.platform,
      dbFor,
      listDefinitions: (projectId) => services.repos.collections.list(projectId),
      syncIndexes: async (projectId, def) => {
        await syncCollectionIndexes(projectIndexes(await dbFor(projectId)), def);
      },
      recountUsage: async (projectId) => {
        await recount.recountProject(projectId);
      },
      changed: (projectId) => services.backups.changed(projectId),
      setRestoring: (projectId, restoreId) => services.repos.projects.setRestoring(projectId, restoreId),
      clearRestoring: (projectId, restoreId) => services.repos.projects.clearRestoring(projectId, restoreId),
      ensureUserIndexes: (projectId) => usersRepo(dbFor).ensureIndexes(projectId),
      refs: restoreRefsRepo(deps.db.platform),
      newWebhookSecret: () => services.webhooks.newSealedSecret(),
      sealFunctionValue: (value) => services.functions.sealValue(value),
      copyTimeoutMs: deps.config.restoreCopyTimeoutMs,
      backupBounds: async (projectId, trigger) => {
        const project = await services.repos.projects.findById(projectId);
        if (!project) throw new Error('the project no longer exists');
        const limits = await services.projects.limitsOf(project);
        let kept = await jobs.keptBytes(projectId);
        if (trigger === 'schedule') {
          // Retention deletes the oldest scheduled ones past the plan's count once this one is done.
          const { kept: count } = services.plans.get(await services.backups.planOf(project)).backups;
          for (const old of await jobs.beyond(projectId, 'schedule', count - 1))
            if (old.state === 'done') kept -= old.size ?? 0;
        }
        return {
          dataBytes: limits.databaseBytes,
          // Canonical Extended JSON takes up to about 4 times the BSON size (small numbers, dates).
          spoolBytes: 4 * limits.databaseBytes + limits.storageBytes + SPOOL_SLACK,
          archiveBytes: limits.backupBytes - kept,
        };
      },
      applyRetention: async (projectId) => {
        const project = await services.repos.projects.findById(projectId);
        if (!project) return;
        const { kept } = services.plans.get(await services.backups.planOf(project)).backups;
        for (const old of await jobs.beyond(projectId, 'schedule', kept)) {
          if (old.key) await (await services.backups.places.at(projectId, old.location))?.delete(old.key);
          await jobs.remove(projectId, old.id);
        }
      },
    },
    opts,
  );

  return {
    /** Runs queued jobs until none is left; how many ran. */
    async drain(): Promise<number> {
      let ran = 0;
      for (;;) {
        const job = await jobs.claimNext(opts.owner, opts.now(), opts.leaseMs);
        if (!job) return ran;
        ran += 1;
        // One project's job holds the lane at most the worker's task limit; given up past it, it
        // is recorded as failed here, and stops at its next step (run.ts).
        const what = job.kind === 'backup' ? 'the backup' : 'the restore';
        await withTaskDeadline(deps.config.workerTaskTimeoutMs, what, (stop) => run(job, stop)).catch(
          async (err) => {
            if (err instanceof TaskTimeoutError) await run.fail(job, err).catch(() => undefined);
            deps.log.warn({ err, jobId: job.id, kind: job.kind }, 'backup job failed');
          },
        );
      }
    },

    /** Queues the scheduled backup of every project whose period has none yet. */
    async schedule(at = opts.now()): Promise<number> {
      let queued = 0;
      for await (const projectId of services.repos.projects.ids()) {
        const project = await services.repos.projects.findById(projectId);
        if (!project) continue;
        const { every } = services.plans.get(await services.backups.planOf(project)).backups;
        const latest = (await jobs.list(projectId, 'backup')).find((j) => j.trigger === 'schedule');
        if (latest && periodOf(latest.createdAt, every) === periodOf(at, every)) continue;
        if (await jobs.active(projectId)) continue; // a backup, or a restore writing into it
        // The end users' password hashes only when the project's admins opted in (backup-schedules.ts).
        const { includeUsers } = await jobs.schedule.get(projectId);
        await jobs.create(projectId, { kind: 'backup', trigger: 'schedule', includeUsers }, at);
        queued += 1;
      }
      return queued;
    },

    /** The polling loop of the worker role. */
    start(): { stop(): Promise<void> } {
      let stopped = false;
      let timer: NodeJS.Timeout | undefined;
      let current: Promise<unknown> = Promise.resolve();
      const tick = () => {
        current = this.drain()
          .catch((err) => deps.log.error({ err }, 'backup loop failed'))
          .finally(() => {
            if (!stopped) timer = setTimeout(tick, POLL_MS);
          });
      };
      timer = setTimeout(tick, POLL_MS);
      return {
        async stop() {
          stopped = true;
          clearTimeout(timer);
          await current;
        },
      };
    },
  };
}
