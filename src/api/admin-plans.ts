// The installation's plans as the operator edits them (PUT /api/admin/plans) and as everyone
// reads them (GET /api/plans, in ./accounts.ts): the same view for both.
import type { operations } from '../../generated/dashboard.js';
import type { Handler } from '../http/types.js';
import type { Services } from '../services/index.js';
import type { PlanDefinition, PlanTable } from '../lib/plan-table.js';

type Ops = operations;

const planView = ({ name, label, limits, backups }: PlanDefinition) => ({ name, label, limits, backups });

/** The plans in force, where they come from, and what the Plans page may change. */
export const plansView = (plans: PlanTable) => ({
  defaultPlan: plans.defaultPlan,
  defaultPlanSetting: plans.defaultSetting,
  plansFile: plans.file,
  operator: planView(plans.operator),
  plans: plans.plans.map(planView),
});

export function adminPlanHandlers({ planSettings, plans }: Services) {
  const updatePlans: Handler<Ops['updatePlans']> = async ({ body }, ctx) => {
    await planSettings.update(ctx, body);
    return { status: 200, body: { success: true, data: plansView(plans), message: 'Plans saved' } };
  };
  return { updatePlans };
}
