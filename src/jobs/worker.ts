// The worker role: periodic sweeps on node-cron and the webhook delivery loop. Every periodic job
// claims its run per period in `job_runs` (jobs/lease.ts), so with several workers each period
// is worked once; the jobs are idempotent besides, and deliveries leased.
import cron, { type ScheduledTask } from 'node-cron';
import type { Deps } from '../deps.js';
import type { Services } from '../services/index.js';
import { jobRunsRepo } from '../db/job-runs.js';
import { uploadCleanupJob } from './upload-cleanup.js';
import { importSweepJob } from './import-sweep.js';
import { trashPurgeJob } from './trash-purge.js';
import { ttlSweepJob } from './ttl-sweep.js';
import { usageRecountJob } from './usage-recount.js';
import { startWebhookDelivery } from './webhook-delivery.js';
import { leased, periodOf, workerId, type LeasedJob } from './lease.js';
import { usageRollup } from './usage-rollup.js';
import { usageMonthClose, previousMonth } from './usage-month-close.js';
import { expirySweep } from './expiry-sweep.js';
import { backupRunner } from './backup-runner.js';
import { functionScheduleJob } from './function-schedule.js';

export interface Job {
  name: string;
  /** A cron expression (node-cron syntax, seconds optional). */
  schedule: string;
  run(): Promise<void>;
}

const MINUTE = 60_000;

export interface WorkerOptions {
  /** The worker's clock (tests move it); defaults to the system time. */
  now?: () => Date;
  /** This worker's name in `job_runs`. */
  owner?: string;
}

export function workerJobs(
  deps: Deps,
  services: Services,
  { now, owner = workerId() }: WorkerOptions = {},
): LeasedJob[] {
  const runs = jobRunsRepo(deps.db.platform);
  const log = deps.log.child({ role: 'worker' });
  const job = (
    base: Job | { name: string; schedule: string; run(at: Date): Promise<unknown> },
    period: (at: Date) => string,
    leaseMs: number,
  ) =>
    leased(
      runs,
      owner,
      log,
      {
        name: base.name,
        schedule: base.schedule,
        leaseMs,
        period,
        work: async (at) => {
          await base.run(at);
        },
      },
      now,
    );
  return [
    job(uploadCleanupJob(deps, services), (at) => periodOf(at, { minutes: 5 }), 4 * MINUTE),
    job(importSweepJob(deps, services), (at) => periodOf(at, { minutes: 5 }), 4 * MINUTE),
    job(trashPurgeJob(deps, services), (at) => periodOf(at, 'hour'), 30 * MINUTE),
    job(ttlSweepJob(deps, services), (at) => periodOf(at, { minutes: 1 }), 5 * MINUTE),
    job(usageRecountJob(deps, services), (at) => periodOf(at, 'day'), 60 * MINUTE),
    job(
      { name: 'expiry-sweep', schedule: '*/15 * * * *', run: expirySweep(deps, services.requestLog.sweep) },
      (at) => periodOf(at, { minutes: 15 }),
      10 * MINUTE,
    ),
    job(
      { name: 'usage-rollup', schedule: '7 * * * *', run: usageRollup(deps, services, runs) },
      (at) => periodOf(at, 'hour'),
      30 * MINUTE,
    ),
    job(
      {
        name: 'usage-month-close',
        schedule: '5 0 * * *',
        run: usageMonthClose(deps, services, services.usage.mailSent),
      },
      previousMonth,
      60 * MINUTE,
    ),
    job(
      {
        name: 'backup-schedule',
        schedule: '3 * * * *',
        run: (at) => backupRunner(deps, services).schedule(at),
      },
      (at) => periodOf(at, 'hour'),
      30 * MINUTE,
    ),
    // One worker scans each minute; each function's run is claimed again on its own
    // (function-schedule.ts), and runs go on in the background past the tick.
    job(
      {
        name: 'function-schedule',
        schedule: '* * * * *',
        run: (at) => functionScheduleJob(deps, services, owner).tick(at),
      },
      (at) => periodOf(at, { minutes: 1 }),
      MINUTE,
    ),
  ];
}

export function startWorker(deps: Deps, services: Services): { stop(): Promise<void> } {
  const log = deps.log.child({ role: 'worker' });
  const running = new Set<Promise<void>>();
  const tasks: ScheduledTask[] = workerJobs(deps, services).map((job) =>
    cron.schedule(
      job.schedule,
      async () => {
        const run = job.run().catch((err) => log.error({ err, job: job.name }, 'job failed'));
        running.add(run);
        await run;
        running.delete(run);
      },
      { name: job.name, noOverlap: true, timezone: 'Etc/UTC' },
    ),
  );
  const delivery = startWebhookDelivery(
    services.webhooks.deliverer,
    log.child({ job: 'webhook-delivery' }),
    deps.config.webhooks.pollIntervalMs,
    deps.config.webhooks.lanesPerWorker,
  );
  const backups = backupRunner(deps, services).start();
  log.info({ jobs: tasks.length + 2 }, 'worker started');
  return {
    async stop() {
      await Promise.all([...tasks.map((task) => task.stop()), delivery.stop(), backups.stop()]);
      await Promise.allSettled([...running]);
    },
  };
}
