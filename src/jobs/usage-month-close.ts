// Worker job: the monthly reset of usage. Every monthly counter (API calls, mail, webhook
// deliveries, AI requests) is keyed by its UTC month, so the new month starts from zero at 00:00
// UTC on the first without a write; what this job does is close the month before: each project's
// totals go to `usage_months` (mail as its quota counted it), kept after the daily rows are
// pruned. It fires daily and claims the previous month, so a worker that was down on the first
// catches up the next day, once.
import type { Services } from '../services/index.js';
import type { Deps } from '../deps.js';

/** The month before the one `at` falls in (`YYYY-MM`, UTC). */
export const previousMonth = (at: Date) =>
  new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() - 1, 1)).toISOString().slice(0, 7);

export function usageMonthClose(
  deps: Pick<Deps, 'log'>,
  services: Pick<Services, 'repos' | 'usage'>,
  mailSent: (projectId: string, month: string) => Promise<number>,
) {
  return async function close(at: Date): Promise<number> {
    await services.usage.counter.flush();
    const month = previousMonth(at);
    let projects = 0;
    for await (const projectId of services.repos.projects.ids()) {
      const totals = await services.usage.repo.monthTotals(projectId, month);
      totals.mailSent = await mailSent(projectId, month);
      await services.usage.repo.closeMonth(projectId, month, totals, at);
      projects += 1;
    }
    deps.log.info({ month, projects }, 'usage month closed');
    return projects;
  };
}
