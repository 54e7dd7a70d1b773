// The usage report of one project for its members: this month's figures with the plan limit next
// to each, and a daily series of the last 90 days. Monthly figures are keyed by their UTC month,
// so they start again from zero at 00:00 UTC on the first of the month whether or not the worker
// has run yet. API calls reach the report when their process flushes (every few seconds).
import type { UsageCounts, UsageDay, UsageRepo } from '../../db/usage.js';
import type { PlanLimits, Project } from '../types.js';
import { utcDay } from './counter.js';
import { UNLIMITED } from '../../lib/plans.js';

export const SERIES_DAYS = 90;
const DAY_MS = 86_400_000;

export interface UsageFigure {
  used: number;
  limit: number | null;
  /** The plan limit's name (overridable per project by the operator), or null when none applies. */
  limitName: keyof PlanLimits | null;
}

export interface UsageWarning {
  limitName: 'functionInvocationsPerMonth';
  percent: 80 | 100;
  used: number;
  limit: number;
  message: string;
}

export interface UsageReportDeps {
  repo: Pick<UsageRepo, 'days' | 'monthTotals'>;
  limitsOf(project: Project): Promise<PlanLimits>;
  /** The month's mail count as the quota counts it (collection `mail_usage`). */
  mailSent(projectId: string, month: string): Promise<number>;
  webhookCount(projectId: string): Promise<number>;
  /** Bytes of the project's kept backup archives (done backups; a deleted one no longer counts). */
  backupBytes(projectId: string): Promise<number>;
  /** The limits the project is near or past this month (function invocations at 80 % and 100 %). */
  warnings?(projectId: string, limits: PlanLimits, at: Date): Promise<UsageWarning[]>;
  now?: () => Date;
}

export function usageReport({
  repo,
  limitsOf,
  mailSent,
  webhookCount,
  backupBytes,
  warnings,
  now = () => new Date(),
}: UsageReportDeps) {
  return async function report(project: Project) {
    const at = now();
    const month = at.toISOString().slice(0, 7);
    const today = utcDay(at);
    const from = utcDay(new Date(at.getTime() - (SERIES_DAYS - 1) * DAY_MS));
    const limited = limitsOf(project);
    const [limits, stored, totals, mail, webhooks, backups, warned] = await Promise.all([
      limited,
      repo.days(project.id, from, today),
      repo.monthTotals(project.id, month),
      mailSent(project.id, month),
      webhookCount(project.id),
      backupBytes(project.id),
      warnings ? limited.then((limits) => warnings(project.id, limits, at)) : [],
    ]);
    const figure = (used: number, limitName: keyof PlanLimits | null): UsageFigure => ({
      used,
      // A plan without a limit here (src/lib/plans.ts UNLIMITED) reads as none.
      limit: limitName && (limits[limitName] as number) < UNLIMITED ? (limits[limitName] as number) : null,
      limitName,
    });
    const byDay = new Map(stored.map((d) => [d.day, d]));
    const daily: UsageDay[] = [];
    for (let i = SERIES_DAYS - 1; i >= 0; i--) {
      const day = utcDay(new Date(at.getTime() - i * DAY_MS));
      daily.push(byDay.get(day) ?? { ...emptyCounts(totals), day, databaseBytes: null, storageBytes: null });
    }
    // Today's bytes are the live counters; earlier days keep the roll-up's snapshot.
    const last = daily[daily.length - 1]!;
    daily[daily.length - 1] = {
      ...last,
      databaseBytes: project.usage.databaseUsed,
      storageBytes: project.usage.storageUsed,
    };
    return {
      month,
      resetsAt: new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1)).toISOString(),
      figures: {
        apiCalls: {
          used: totals.apiCalls,
          today: last.apiCalls,
          limit: limits.requestsPerMinute,
          limitName: 'requestsPerMinute' as const,
        },
        databaseBytes: figure(project.usage.databaseUsed, 'databaseBytes'),
        storageBytes: figure(project.usage.storageUsed, 'storageBytes'),
        // Not charged to storageBytes: backups have a count (BACKUP_PLANS) and a byte limit of their own.
        backupBytes: figure(backups, 'backupBytes'),
        mailSent: figure(mail, 'mailPerMonth'),
        webhooks: figure(webhooks, 'webhooksPerProject'),
        webhookDeliveries: figure(totals.webhookDeliveries, null),
        aiQueryBuilder: figure(totals.aiQueryBuilder, 'aiQueryBuilderPerMonth'),
        aiCollectionCreator: figure(totals.aiCollectionCreator, 'aiCollectionCreatorPerMonth'),
        functionInvocations: figure(totals.functionInvocations, 'functionInvocationsPerMonth'),
        functionMs: figure(totals.functionMs, null),
      },
      warnings: warned,
      daily,
    };
  };
}

const emptyCounts = (shape: UsageCounts): UsageCounts =>
  Object.fromEntries(Object.keys(shape).map((m) => [m, 0])) as UsageCounts;

export type UsageReport = Awaited<ReturnType<ReturnType<typeof usageReport>>>;
