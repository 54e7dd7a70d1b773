// Worker job: the daily usage series. Hourly, it writes the day's byte figures (database and
// storage counters of every project; the last snapshot of a day stands for that day), writes the
// worker's own pending counts, and drops days and job runs older than the report needs.
import type { Deps } from '../deps.js';
import type { Services } from '../services/index.js';
import type { JobRunsRepo } from '../db/job-runs.js';
import { utcDay } from '../services/usage/counter.js';
import { SERIES_DAYS } from '../services/usage/report.js';

const DAY_MS = 86_400_000;
/** Days kept beyond the series: the month-close job sums the last whole month from them. */
const KEEP_DAYS = SERIES_DAYS + 40;

export function usageRollup(
  deps: Pick<Deps, 'log'>,
  services: Pick<Services, 'repos' | 'usage'>,
  runs: JobRunsRepo,
) {
  return async function rollup(at: Date): Promise<{ projects: number; pruned: number }> {
    await services.usage.counter.flush();
    const day = utcDay(at);
    let projects = 0;
    for await (const projectId of services.repos.projects.ids()) {
      const usage = await services.repos.projects.usage(projectId);
      await services.usage.repo.snapshot(projectId, day, {
        databaseBytes: usage.databaseUsed,
        storageBytes: usage.storageUsed,
      });
      projects += 1;
    }
    const pruned = await services.usage.repo.pruneBefore(utcDay(new Date(at.getTime() - KEEP_DAYS * DAY_MS)));
    await runs.pruneBefore(new Date(at.getTime() - KEEP_DAYS * DAY_MS));
    deps.log.info({ projects, pruned, day }, 'usage rolled up');
    return { projects, pruned };
  };
}
