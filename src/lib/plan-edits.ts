// The plans as the operator edits them on the Plans page (PUT /api/admin/plans): their limits and
// scheduled backups, an edit checked against the plans in force with every problem in words, and
// the stored record put back onto the plans read at start. Pure: the record is read and written
// by src/db/plan-settings.ts.
import { UNLIMITED } from './plans.js';
import {
  BACKUP_RULES,
  isBackupEvery,
  isBackupsKept,
  type PlanBackups,
  type PlanDefinition,
  type PlanTable,
} from './plan-table.js';
import type { PlanLimits, PlanName } from '../services/types.js';

/** The record the installation keeps: every limit and the backups of every plan, the plan of new accounts. */
export interface StoredPlans {
  plans: Record<string, Record<string, number | boolean>>;
  /** Each plan's backups; absent from a record saved before they were edited on the page. */
  backups?: Record<string, Partial<PlanBackups>>;
  defaultPlan: PlanName | null;
  updatedAt: Date;
}

/** An edit: the plans named change the limits and backup values named; the others stay as they are. */
export interface PlanEdit {
  defaultPlan?: string;
  plans?: Record<string, { limits?: Record<string, unknown>; backups?: Record<string, unknown> }>;
}

export interface EditProblem {
  path: string;
  message: string;
}

/** `projectsPerDeveloper` -> `projects per developer`: a limit named in words. */
export const limitWords = (name: string) =>
  name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .replace(/ ms$/, ' (milliseconds)')
    .replace(/ bytes$/, ' (bytes)');

const planWith = (
  plan: PlanDefinition,
  limits: Record<string, number | boolean>,
  backups: PlanBackups,
): PlanDefinition =>
  Object.freeze({
    ...plan,
    limits: Object.freeze(limits) as unknown as PlanLimits,
    backups: Object.freeze(backups),
  });

/** A value as stored or sent: the same type as the limit, a count from 0, or "unlimited". */
function valueOf(current: number | boolean, value: unknown): number | boolean | undefined {
  if (typeof current === 'boolean') return typeof value === 'boolean' ? value : undefined;
  if (value === 'unlimited') return UNLIMITED;
  return Number.isSafeInteger(value) && (value as number) >= 0 ? (value as number) : undefined;
}

/**
 * The plans and default the stored record puts in force over those read at start. A limit or
 * backup value the record does not know (a newer version added it, or the record predates the
 * backups' edit) keeps its value from start; one the record has and this version does not is
 * ignored. DEFAULT_PLAN, when set, keeps its plan for new accounts.
 */
export function plansFromRecord(table: PlanTable, stored: StoredPlans | undefined) {
  const { base } = table;
  const plans = base.plans.map((plan) => {
    const saved = stored?.plans[plan.name];
    const savedBackups = stored?.backups?.[plan.name];
    if (!saved && !savedBackups) return plan;
    const limits: Record<string, number | boolean> = { ...plan.limits };
    for (const [key, current] of Object.entries(limits)) {
      const value = valueOf(current, saved?.[key]);
      if (value !== undefined) limits[key] = value;
    }
    const backups: PlanBackups = { ...plan.backups };
    if (isBackupsKept(savedBackups?.kept)) backups.kept = savedBackups.kept;
    if (isBackupEvery(savedBackups?.every)) backups.every = savedBackups.every;
    return planWith(plan, limits, backups);
  });
  const chosen = stored?.defaultPlan;
  if (table.defaultSetting || !chosen || !plans.some((p) => p.name === chosen))
    return { plans, defaultPlan: base.defaultPlan, profileDefault: base.profileDefault };
  return { plans, defaultPlan: chosen, profileDefault: false };
}

const mustBe = (current: number | boolean) =>
  typeof current === 'boolean' ? 'must be true or false' : 'must be a whole number from 0, or "unlimited"';

/** The edit applied to the plans in force, or the problems that refuse it, each naming its field. */
export function applyEdit(table: PlanTable, edit: PlanEdit) {
  const problems: EditProblem[] = [];
  const names = table.plans.map((p) => p.name).join(', ');
  const plans = table.plans.map((plan) => {
    const entry = edit.plans?.[plan.name];
    if (!entry) return plan;
    const limits: Record<string, number | boolean> = { ...plan.limits };
    for (const [key, value] of Object.entries(entry.limits ?? {})) {
      const path = `body.plans.${plan.name}.limits.${key}`;
      const current = limits[key];
      if (current === undefined) {
        problems.push({
          path,
          message: `${plan.label} has no limit "${key}": the limits are those GET /api/plans lists`,
        });
        continue;
      }
      const next = valueOf(current, value);
      if (next === undefined)
        problems.push({
          path,
          message: `${plan.label}: ${limitWords(key)} ${mustBe(current)}, not ${JSON.stringify(value)}`,
        });
      else limits[key] = next;
    }
    const backups: PlanBackups = { ...plan.backups };
    for (const [key, value] of Object.entries(entry.backups ?? {})) {
      const path = `body.plans.${plan.name}.backups.${key}`;
      if (key === 'kept' && isBackupsKept(value)) backups.kept = value;
      else if (key === 'every' && isBackupEvery(value)) backups.every = value;
      else if (key === 'kept' || key === 'every')
        problems.push({
          path,
          message: `${plan.label}: backups.${key} must be ${BACKUP_RULES[key]}, not ${JSON.stringify(value)}`,
        });
      else problems.push({ path, message: `${plan.label}: backups have no "${key}", only kept and every` });
    }
    return planWith(plan, limits, backups);
  });
  for (const name of Object.keys(edit.plans ?? {}))
    if (!table.has(name))
      problems.push({
        path: `body.plans.${name}`,
        message: `There is no plan "${name}" on this installation: its plans are ${names}`,
      });
  const defaultPlan = edit.defaultPlan ?? table.defaultPlan;
  if (!table.has(defaultPlan))
    problems.push({
      path: 'body.defaultPlan',
      message: `The plan of new accounts, "${defaultPlan}", is not a plan of this installation: its plans are ${names}`,
    });
  return { plans, defaultPlan, problems };
}

/** The record to store: every limit and backup value of every plan (read the same after an upgrade). */
export function recordOf(plans: readonly PlanDefinition[], defaultPlan: PlanName | null): StoredPlans {
  return {
    plans: Object.fromEntries(
      plans.map((p) => [p.name, { ...p.limits } as Record<string, number | boolean>]),
    ),
    backups: Object.fromEntries(plans.map((p) => [p.name, { ...p.backups }])),
    defaultPlan,
    updatedAt: new Date(),
  };
}
