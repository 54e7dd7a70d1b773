// Usage per project (SERVICE-SPEC "Limits", DECISIONS §5): the in-process counter every role
// charges (API calls on the public API, mail sent, webhook delivery attempts, AI requests) and
// the members' report. Database and storage bytes are the project's own counters.
import type { Database } from '../../db/client.js';
import { usageRepo } from '../../db/usage.js';
import type { Logger } from '../../lib/logger.js';
import type { ProjectsService } from '../projects.js';
import type { RequestContext } from '../context.js';
import { usageCounter } from './counter.js';
import { usageReport, type UsageReportDeps } from './report.js';

export function usageServices(
  platform: Database['platform'],
  log: Logger,
  projects: ProjectsService,
  sources: Pick<UsageReportDeps, 'mailSent' | 'webhookCount' | 'backupBytes' | 'warnings'> & {
    /** Gives back what this process's quota leases hold, so that `databaseUsed` reads exact. */
    settleDatabaseUsed?: (projectId: string) => Promise<void>;
  },
) {
  const repo = usageRepo(platform);
  const counter = usageCounter(repo, log.child({ component: 'usage' }));
  const report = usageReport({ repo, limitsOf: projects.limitsOf, ...sources });
  projects.onDelete((projectId) => repo.deleteAll(projectId));
  return {
    repo,
    counter,
    mailSent: sources.mailSent,
    /** The report for a member of the project (404 for anyone else). */
    async forMember(ctx: RequestContext, projectId: string) {
      // Before the project is read (a no-op for a project this process holds nothing for).
      await sources.settleDatabaseUsed?.(projectId);
      return report(await projects.requireAccess(ctx, projectId, 'member'));
    },
  };
}

export type UsageServices = ReturnType<typeof usageServices>;
