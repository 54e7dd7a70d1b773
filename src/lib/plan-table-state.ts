// The plan table object every service holds (src/lib/plan-table.ts makes it): the plans in
// force, the plan of new accounts and the operator's own plan, whose content the plans edited on
// the Plans page replace in place (src/services/plan-settings.ts).
import { UNLIMITED } from './plans.js';
import type { PlanDefinition, PlanTable } from './plan-table.js';
import type { PlanLimits, PlanName } from '../services/types.js';

/** What the operator's account reads as its plan: reserved, never a plan of a file. */
export const OPERATOR_PLAN = 'operator';

/**
 * Per-call bounds that protect the server rather than meter a customer: a function with no
 * deadline or memory cap, a cron every second or a log kept forever would harm the installation
 * itself. The operator gets the most generous value any plan has; every other number is lifted.
 */
const BOUNDS: Partial<Record<keyof PlanLimits, 'max' | 'min'>> = {
  requestsPerMinute: 'max',
  realtimeConnectionsPerProject: 'max',
  functionDeadlineMs: 'max',
  functionMemoryBytes: 'max',
  functionConcurrency: 'max',
  functionFetchesPerInvocation: 'max',
  functionDbCallsPerInvocation: 'max',
  functionLogBytesPerInvocation: 'max',
  functionCronMinSeconds: 'min',
  functionLogDays: 'max',
};

/**
 * The operator's plan: every feature on, every count and size unlimited, the widest bounds (of
 * the plans as read at start too, so that lowering every plan on the page never limits them).
 */
function operatorDefinition(plans: readonly PlanDefinition[]): PlanDefinition {
  const limits: Record<string, number | boolean> = {};
  for (const [key, value] of Object.entries(plans[plans.length - 1]!.limits)) {
    const bound = BOUNDS[key as keyof PlanLimits];
    const values = plans.map((p) => p.limits[key as keyof PlanLimits] as number);
    if (typeof value === 'boolean') limits[key] = true;
    else if (bound) limits[key] = bound === 'max' ? Math.max(...values) : Math.min(...values);
    else limits[key] = UNLIMITED;
  }
  const kept = Math.max(...plans.map((p) => p.backups.kept));
  const every = plans.some((p) => p.backups.every === 'hour') ? 'hour' : 'day';
  return Object.freeze({
    name: OPERATOR_PLAN,
    label: 'Operator (no plan limits)',
    limits: Object.freeze(limits) as unknown as PlanLimits,
    backups: Object.freeze({ kept, every }),
  });
}
interface TableState {
  plans: readonly PlanDefinition[];
  defaultPlan: PlanName;
  profileDefault: boolean;
  byName: Map<string, PlanDefinition>;
  fallback: PlanDefinition;
  operator: PlanDefinition;
}

/** One object every service holds: `replace` swaps its content, so no caller keeps an old copy. */
class InstallationPlanTable implements PlanTable {
  readonly base: PlanTable['base'];
  #state: TableState;

  constructor(
    plans: PlanDefinition[],
    defaultPlan: PlanName,
    readonly file: string | null,
    profileDefault: boolean,
    readonly defaultSetting: boolean,
  ) {
    this.base = Object.freeze({ plans: Object.freeze(plans), defaultPlan, profileDefault });
    this.#state = this.#stateOf(plans, defaultPlan, profileDefault);
  }

  #stateOf(list: PlanDefinition[], name: PlanName, fromProfile: boolean): TableState {
    const byName = new Map(list.map((plan) => [plan.name, plan]));
    const fallback = byName.get(name);
    if (!fallback) throw new Error(`default plan "${name}" is not in the list`);
    return {
      plans: Object.freeze(list),
      defaultPlan: name,
      profileDefault: fromProfile,
      byName,
      fallback,
      operator: operatorDefinition([...this.base.plans, ...list]),
    };
  }

  get plans() {
    return this.#state.plans;
  }
  get defaultPlan() {
    return this.#state.defaultPlan;
  }
  get profileDefault() {
    return this.#state.profileDefault;
  }
  get operator() {
    return this.#state.operator;
  }
  get(name: PlanName): PlanDefinition {
    return name === OPERATOR_PLAN
      ? this.#state.operator
      : (this.#state.byName.get(name) ?? this.#state.fallback);
  }
  has(name: string): boolean {
    return this.#state.byName.has(name);
  }
  replace(plans: PlanDefinition[], defaultPlan: PlanName, profileDefault: boolean): void {
    this.#state = this.#stateOf(plans, defaultPlan, profileDefault);
  }
}

export const tableOf = (
  plans: PlanDefinition[],
  defaultPlan: PlanName,
  file: string | null = null,
  profileDefault = false,
  defaultSetting = false,
): PlanTable =>
  Object.freeze(new InstallationPlanTable(plans, defaultPlan, file, profileDefault, defaultSetting));
