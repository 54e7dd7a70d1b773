// The worker role: periodic sweeps on node-cron and the webhook delivery loop. Jobs are idempotent
// and deliveries leased, so running more than one worker is safe.
import cron, { type ScheduledTask } from 'node-cron';
import type { Deps } from '../deps.js';
import type { Services } from '../services/index.js';
import { uploadCleanupJob } from './upload-cleanup.js';
import { trashPurgeJob } from './trash-purge.js';
import { usageRecountJob } from './usage-recount.js';
import { startWebhookDelivery } from './webhook-delivery.js';

export interface Job {
  name: string;
  /** A cron expression (node-cron syntax, seconds optional). */
  schedule: string;
  run(): Promise<void>;
}

export function workerJobs(deps: Deps, services: Services): Job[] {
  return [uploadCleanupJob(deps, services), trashPurgeJob(deps, services), usageRecountJob(deps, services)];
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
      { name: job.name, noOverlap: true },
    ),
  );
  const delivery = startWebhookDelivery(
    services.webhooks.deliverer,
    log.child({ job: 'webhook-delivery' }),
    deps.config.webhooks.pollIntervalMs,
  );
  log.info({ jobs: tasks.length + 1 }, 'worker started');
  return {
    async stop() {
      await Promise.all([...tasks.map((task) => task.stop()), delivery.stop()]);
      await Promise.allSettled([...running]);
    },
  };
}
