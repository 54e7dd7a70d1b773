// The plans edited on the operator's Plans page (their limits and scheduled backups): checked,
// stored by the installation (src/db/plan-settings.ts) and put in force in the plan table every
// service holds (src/lib/plan-table.ts), at once in the process that saved and within
// PLANS_REFRESH_MS in every other (public, dashboard, worker): each re-reads the one small record
// on a timer, so no request reads it. With PLANS_FILE set the file wins: the plans are read-only.
import { badRequest, conflict } from '../http/errors.js';
import { applyEdit, plansFromRecord, recordOf, type PlanEdit } from '../lib/plan-edits.js';
import type { PlanTable } from '../lib/plan-table.js';
import type { Logger } from '../lib/logger.js';
import type { PlanSettingsRepo } from '../db/plan-settings.js';
import type { RequestContext } from './context.js';
import { requireOperator } from './operator.js';

export interface PlanSettingsDeps {
  repo: PlanSettingsRepo;
  table: PlanTable;
  log: Logger;
  /** How often this process re-reads the stored plans (PLANS_REFRESH_MS): the most a save waits to reach it. */
  refreshMs: number;
}

export function planSettingsService({ repo, table, log, refreshMs }: PlanSettingsDeps) {
  /** When the record in force was saved (0: none), so an unchanged record is not applied again. */
  let applied = 0;

  /** Puts the stored record in force when it changed since the last read. */
  async function refresh(): Promise<void> {
    if (table.file) return;
    const stored = await repo.read();
    const at = stored?.updatedAt.getTime() ?? 0;
    if (at === applied) return;
    const { plans, defaultPlan, profileDefault } = plansFromRecord(table, stored);
    table.replace(plans, defaultPlan, profileDefault);
    applied = at;
  }

  const poll = () =>
    refresh().catch((err: unknown) =>
      log.warn({ err }, 'the stored plans could not be read; the last ones stay in force'),
    );
  const timer = table.file ? undefined : setInterval(poll, refreshMs);
  timer?.unref();

  return {
    /** The first read: a process starts serving with the stored plans (src/main.ts awaits it). */
    ready: poll(),
    refresh,
    /** The longest a save made in another process takes to reach this one (GET /api/plans says it). */
    refreshMs,
    stop() {
      if (timer) clearInterval(timer);
    },

    /** Saves an edit of the operator (PUT /api/admin/plans) and puts it in force here at once. */
    async update(ctx: RequestContext, edit: PlanEdit) {
      const operator = requireOperator(ctx);
      if (table.file)
        throw conflict(
          `The plans come from the file ${table.file} (PLANS_FILE): edit the file and restart to change them`,
          'PLANS_FROM_FILE',
        );
      if (table.defaultSetting && edit.defaultPlan !== undefined && edit.defaultPlan !== table.defaultPlan)
        throw conflict(
          `New accounts get "${table.defaultPlan}" because DEFAULT_PLAN is set: unset it and restart to choose the plan of new accounts here`,
          'DEFAULT_PLAN_FROM_SETTING',
          [{ path: 'body.defaultPlan', message: 'is set by DEFAULT_PLAN' }],
        );
      // Read what another process may have saved since the last refresh: the edit applies to it.
      await refresh();
      const { plans, defaultPlan, problems } = applyEdit(table, edit);
      if (problems.length) {
        const [first] = problems;
        const more =
          problems.length > 1
            ? ` (and ${problems.length - 1} more problem${problems.length > 2 ? 's' : ''})`
            : '';
        throw badRequest(`${first!.message}${more}`, problems, 'INVALID_PLANS');
      }
      const record = recordOf(plans, table.defaultSetting ? null : defaultPlan);
      await repo.write(record, operator.id);
      const next = plansFromRecord(table, record);
      table.replace(next.plans, next.defaultPlan, next.profileDefault);
      applied = record.updatedAt.getTime();
    },
  };
}

export type PlanSettingsService = ReturnType<typeof planSettingsService>;
