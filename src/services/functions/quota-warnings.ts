// Warnings of a project's monthly function invocations (functionInvocationsPerMonth) at 80 % and
// 100 %: the owner is mailed once per threshold and month (a counter per threshold in the shared
// cache decides which process sends it; each process asks at most once), and the dashboard's
// usage report reads the month's count from the same counter the invoker charges.
import type { Cache } from '../../cache/index.js';
import type { Logger } from '../../lib/logger.js';
import { paragraphMail } from '../../mail/escape.js';
import type { Mailer } from '../../mail/sender.js';
import { UNLIMITED } from '../../lib/plans.js';
import type { Developer, Project } from '../types.js';
import type { UsageWarning } from '../usage/report.js';
import { MONTH_SECONDS, monthKey } from './month-allowance.js';

export const WARN_PERCENTS = [80, 100] as const;
export type WarnPercent = (typeof WARN_PERCENTS)[number];

export interface QuotaWarning {
  projectId: string;
  /** The UTC month, `YYYY-MM`. */
  month: string;
  percent: WarnPercent;
  used: number;
  limit: number;
}

/** A limit that warnings apply to: none for 0 (no function may run) or for no limit at all. */
const warns = (limit: number) => limit > 0 && limit < UNLIMITED;
const reached = (used: number, limit: number, percent: WarnPercent) =>
  used >= Math.ceil((limit * percent) / 100);

export function quotaWarnings(
  cache: Pick<Cache, 'incr'>,
  notify: (warning: QuotaWarning) => Promise<void>,
  log: Logger,
) {
  /** Thresholds this process has already asked about (`project:month:percent`). */
  const asked = new Set<string>();
  return {
    /** Called with the counter after each charge of the month (month-allowance.ts); never waits. */
    observe(projectId: string, month: string, used: number, limit: number): void {
      if (!warns(limit)) return;
      for (const percent of WARN_PERCENTS) {
        const key = `${projectId}:${month}:${percent}`;
        if (!reached(used, limit, percent) || asked.has(key)) continue;
        if (asked.size >= 10_000) asked.clear();
        asked.add(key);
        // The first process to count the threshold this month sends the mail.
        void cache
          .incr(`fnwarn:${key}`, MONTH_SECONDS)
          .then((n) => (n === 1 ? notify({ projectId, month, percent, used, limit }) : undefined))
          .catch((err: unknown) => log.error({ err, projectId, percent }, 'function quota warning failed'));
      }
    },
  };
}

/** The warning the dashboard shows for a project's month so far, or none below 80 %. */
export async function monthWarnings(
  cache: Pick<Cache, 'get'>,
  projectId: string,
  limit: number,
  at: Date,
): Promise<UsageWarning[]> {
  if (!warns(limit)) return [];
  const month = at.toISOString().slice(0, 7);
  // Refused calls may leave the counter a little past the limit (month-allowance.ts).
  const used = Math.min(Number((await cache.get(monthKey(projectId, month))) ?? 0), limit);
  const percent = [...WARN_PERCENTS].reverse().find((p) => reached(used, limit, p));
  if (!percent) return [];
  return [
    {
      limitName: 'functionInvocationsPerMonth',
      percent,
      used,
      limit,
      message: warningText(percent, used, limit),
    },
  ];
}

function warningText(percent: WarnPercent, used: number, limit: number): string {
  const counts = `${used.toLocaleString('en')} of ${limit.toLocaleString('en')}`;
  return percent === 100
    ? `This month's function invocations are used up (${counts}): until the 1st (UTC), hooks refuse the writes, sign-ups and log-ins they guard and callables answer 503 FUNCTION_QUOTA_EXHAUSTED.`
    : `${percent} % of this month's function invocations are used (${counts}). At 100 %, hooks refuse the writes, sign-ups and log-ins they guard and callables answer 503 FUNCTION_QUOTA_EXHAUSTED until the 1st (UTC).`;
}

/** Mails a warning to the project's owner through the platform's mailer. */
export function quotaWarningMailer(deps: {
  mailer: Mailer;
  projectById: (id: string) => Promise<Project | null | undefined>;
  developerById: (id: string) => Promise<Developer | null | undefined>;
  dashboardUrl: string;
}) {
  return async (warning: QuotaWarning): Promise<void> => {
    const project = await deps.projectById(warning.projectId);
    const owner = project && (await deps.developerById(project.ownerId));
    if (!project || !owner) return;
    const link = `${deps.dashboardUrl.replace(/\/$/, '')}/projects/${project.id}`;
    const lines = [
      `Project "${project.name}" (${project.id}), ${warning.month} (UTC):`,
      warningText(warning.percent, warning.used, warning.limit),
      'Raise the limit with a plan change, or find who calls your functions in their invocation log and the request log:',
      link,
    ];
    // The subject is ours alone: the project's name stays in the body.
    await deps.mailer.sendMail({
      to: owner.email,
      subject:
        warning.percent === 100
          ? "Your project's function invocations for this month are used up"
          : `Your project has used ${warning.percent} % of this month's function invocations`,
      ...paragraphMail(lines, link),
    });
  };
}
