// The installation's plans as the operator edits them (PUT /api/admin/plans) and as everyone
// reads them (GET /api/plans, in ./accounts.ts): the same view for both.
import type { operations } from '../../generated/dashboard.js';
import type { Handler } from '../http/types.js';
import type { Services } from '../services/index.js';
import type { PlanDefinition, PlanTable } from '../lib/plan-table.js';

type Ops = operations;

const planView = ({ name, label, limits, backups }: PlanDefinition) => ({ name, label, limits, backups });

/**
 * The plans in force, where they come from, what the Plans page may change, and how long a save
 * takes to reach every process (PLANS_REFRESH_MS).
 */
export const plansView = (plans: PlanTable, refreshMs: number) => ({
  defaultPlan: plans.defaultPlan,
  defaultPlanSetting: plans.defaultSetting,
  plansFile: plans.file,
  operator: planView(plans.operator),
  plans: plans.plans.map(planView),
  refreshMs,
});

export function adminPlanHandlers({ planSettings, plans }: Services) {
  const updatePlans: Handler<Ops['updatePlans']> = async ({ body }, ctx) => {
    await planSettings.update(ctx, body);
    return {
      status: 200,
      body: { success: true, data: plansView(plans, planSettings.refreshMs), message: 'Plans saved' },
    };
  };
  return { updatePlans };
}
