// Scheduled functions (docs/functions.md): every minute the worker finds the functions whose cron
// expression (UTC) falls in that minute and starts each run. A run is claimed in `job_runs` per
// function and minute, so however many workers tick it runs once; and it also holds the
// function's `running` claim until it ends (or its lease, the deadline plus a margin, expires),
// so a run never overlaps the previous one: a minute whose run would overlap is skipped.
import { Cron } from 'croner';
import type { Deps } from '../deps.js';
import { jobRunsRepo } from '../db/job-runs.js';
import type { Services } from '../services/index.js';
import { runnable } from '../services/functions/runs.js';

const MINUTE = 60_000;
const MARGIN_MS = 10_000;

/** Whether `cron` has a run in the minute that starts at `minute`. */
function dueIn(expression: string, minute: Date): boolean {
  const next = new Cron(expression, { timezone: 'UTC', paused: true }).nextRun(
    new Date(minute.getTime() - 1),
  );
  return next !== null && next.getTime() === minute.getTime();
}

export function functionScheduleJob(deps: Deps, services: Services, owner: string) {
  const runs = jobRunsRepo(deps.db.platform);
  const log = deps.log.child({ job: 'function-schedule' });

  /** Starts the due runs of the minute of `at`; resolves with their ids and a promise of their end. */
  async function tick(at: Date) {
    const minute = new Date(Math.floor(at.getTime() / MINUTE) * MINUTE);
    const period = minute.toISOString().slice(0, 16);
    const started: string[] = [];
    const work: Promise<void>[] = [];
    for (const stored of await services.functions.repo.listScheduled()) {
      const fn = runnable(stored);
      if (fn.trigger.type !== 'schedule' || !fn.trigger.cron || !dueIn(fn.trigger.cron, minute)) continue;
      const project = await services.repos.projects.findById(fn.projectId);
      if (!project) continue;
      const limits = await services.projects.limitsOf(project);
      if (!(await runs.claim(`fn:${fn.id}`, period, owner, at, MINUTE))) continue;
      const running = `fn-running:${fn.id}`;
      // On the wall clock, not the tick's time: it bounds a run really going on.
      if (!(await runs.claim(running, 'current', owner, new Date(), limits.functionDeadlineMs + MARGIN_MS))) {
        log.warn({ functionId: fn.id, period }, 'the previous run is still going; this one is skipped');
        await runs.finish(`fn:${fn.id}`, period, owner, at);
        continue;
      }
      started.push(fn.id);
      const event = {
        id: `sched_${fn.id}_${period}`,
        trigger: 'schedule',
        projectId: fn.projectId,
        scheduledAt: minute.toISOString(),
      };
      work.push(
        services.functions.invoker
          .invoke(fn, 'schedule', event, limits, { keyKind: null, userId: null, project })
          // The project already runs as many functions as it may: this minute's run is skipped
          // (the refusal is in its invocation log).
          .then(
            () => undefined,
            (err: unknown) => log.warn({ err, functionId: fn.id, period }, 'scheduled run refused'),
          )
          .finally(async () => {
            await runs.release(running, 'current', owner).catch(() => undefined);
            await runs.finish(`fn:${fn.id}`, period, owner, new Date()).catch(() => undefined);
          }),
      );
    }
    return { started, done: Promise.allSettled(work).then(() => undefined) };
  }

  return { tick };
}
