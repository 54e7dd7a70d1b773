// The installation's plans: the spec's Free and Pro (src/lib/plans.ts) unless the operator
// defines their own in a plan file (PLANS_FILE, JSON or YAML), and the plan new accounts get
// (DEFAULT_PLAN; in the development profile, the highest plan). A self-hosted install can so give
// everyone Pro, or plans without limits. The operator's own account is on no plan at all: it reads
// as OPERATOR_PLAN (src/db/developers.ts), whose limits are lifted in ./plan-table-state.ts. Read
// once at start; a wrong file stops the start with every problem named. Without a file, the
// limits and backups edited on the operator's Plans page replace the spec's in place
// (src/services/plan-settings.ts).
import { readFileSync } from 'node:fs';
import YAML from 'yaml';
import { BACKUP_PLANS, PLANS, UNLIMITED } from './plans.js';
import { OPERATOR_PLAN, tableOf } from './plan-table-state.js';
import type { PlanLimits, PlanName, Project } from '../services/types.js';

export interface PlanBackups {
  kept: number;
  every: 'day' | 'hour';
}

/** What a plan's backup values must be, in the words of a file's and of the Plans page's problems. */
export const BACKUP_RULES = { kept: 'a whole number from 1', every: '"day" or "hour"' } as const;

/** A plan's backups kept (`backupsKept` of the file, `backups.kept` of the Plans page): from 1. */
export const isBackupsKept = (value: unknown): value is number =>
  Number.isSafeInteger(value) && (value as number) >= 1;
/** How often a plan's scheduled backup is taken (`backupEvery`, `backups.every`). */
export const isBackupEvery = (value: unknown): value is PlanBackups['every'] =>
  value === 'day' || value === 'hour';

export interface PlanDefinition {
  name: PlanName;
  label: string;
  limits: Readonly<PlanLimits>;
  backups: Readonly<PlanBackups>;
}

export interface PlanTable {
  /** Lowest to highest. */
  readonly plans: readonly PlanDefinition[];
  /** The plan of a new account. */
  readonly defaultPlan: PlanName;
  /** New accounts get the highest plan because of the development profile (nothing set instead). */
  readonly profileDefault: boolean;
  /** The plan file the plans were read from (PLANS_FILE), or null for the spec's Free and Pro. */
  readonly file: string | null;
  /** The operator's own account (OPERATOR_PLAN): no plan limits on their own installation. */
  readonly operator: PlanDefinition;
  /** DEFAULT_PLAN names the plan of new accounts: the Plans page cannot change it. */
  readonly defaultSetting: boolean;
  /** The plans and default as read at start, before any edit stored by the installation. */
  readonly base: {
    readonly plans: readonly PlanDefinition[];
    readonly defaultPlan: PlanName;
    readonly profileDefault: boolean;
  };
  /** A plan by name (OPERATOR_PLAN included); a name no longer defined reads as the default plan. */
  get(name: PlanName): PlanDefinition;
  has(name: string): boolean;
  /**
   * Puts the plans edited on the Plans page in force (src/services/plan-settings.ts). The table
   * is one object every service holds, so its content is replaced in place, at once.
   */
  replace(plans: PlanDefinition[], defaultPlan: PlanName, profileDefault: boolean): void;
}

const PLAN_NAME = /^[a-z][a-z0-9-]{0,31}$/;

export { OPERATOR_PLAN } from './plan-table-state.js';

const LABELS: Record<string, string> = { free: 'Free', pro: 'Pro' };
const capitalised = (name: string) => name.charAt(0).toUpperCase() + name.slice(1);

export function builtinPlans(): PlanDefinition[] {
  return Object.entries(PLANS).map(([name, limits]) => ({
    name,
    label: LABELS[name] ?? capitalised(name),
    limits,
    backups: BACKUP_PLANS[name]!,
  }));
}

/** Free and Pro as the spec states them, Free for new accounts. */
export const BUILTIN_PLAN_TABLE: PlanTable = tableOf(builtinPlans(), 'free');

type Raw = Record<string, unknown>;

/** One plan of the file: `extends` another (built-in or defined above it), then its own values. */
function planOf(name: string, raw: unknown, known: Map<string, PlanDefinition>, problems: string[]) {
  const where = `plan "${name}"`;
  if (!PLAN_NAME.test(name)) problems.push(`${where}: a name is 1 to 32 lower-case letters, digits or -`);
  if (name === OPERATOR_PLAN)
    problems.push(`${where}: the name is reserved for the operator's own account, which has no plan limits`);
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    problems.push(`${where} must be an object`);
    return undefined;
  }
  const {
    extends: base = known.has(name) ? name : 'free',
    label,
    backupsKept,
    backupEvery,
    ...values
  } = raw as Raw;
  const parent = known.get(String(base));
  if (!parent) {
    problems.push(`${where} extends "${String(base)}", which is not defined above it`);
    return undefined;
  }
  const limits: Record<string, number | boolean> = { ...parent.limits };
  for (const [key, value] of Object.entries(values)) {
    const current = limits[key];
    if (current === undefined) problems.push(`${where}: unknown limit "${key}"`);
    else if (typeof current === 'boolean') {
      if (typeof value === 'boolean') limits[key] = value;
      else problems.push(`${where}: ${key} must be true or false`);
    } else if (value === 'unlimited') limits[key] = UNLIMITED;
    else if (Number.isSafeInteger(value) && (value as number) >= 0) limits[key] = value as number;
    else problems.push(`${where}: ${key} must be a whole number or "unlimited"`);
  }
  const backups: PlanBackups = { ...parent.backups };
  if (backupsKept !== undefined) {
    if (isBackupsKept(backupsKept)) backups.kept = backupsKept;
    else problems.push(`${where}: backupsKept must be ${BACKUP_RULES.kept}`);
  }
  if (backupEvery !== undefined) {
    if (isBackupEvery(backupEvery)) backups.every = backupEvery;
    else problems.push(`${where}: backupEvery must be ${BACKUP_RULES.every}`);
  }
  if (label !== undefined && (typeof label !== 'string' || !label.trim() || label.length > 40))
    problems.push(`${where}: label must be a text of 1 to 40 characters`);
  return Object.freeze({
    name,
    label: typeof label === 'string' && label.trim() ? label.trim() : (LABELS[name] ?? capitalised(name)),
    limits: Object.freeze(limits) as unknown as PlanLimits,
    backups: Object.freeze(backups),
  });
}

/**
 * The installation's table from the plan file's text (`file` names it in messages) and
 * DEFAULT_PLAN. Problems are pushed, in words; the built-in table is returned when there are any.
 * `highestByDefault` (the development profile): new accounts get the highest plan unless the file
 * or DEFAULT_PLAN names one.
 */
export function parsePlanTable(
  text: string | undefined,
  file: string,
  defaultPlan: string | undefined,
  problems: string[],
  highestByDefault = false,
): PlanTable {
  const found: string[] = [];
  let plans = builtinPlans();
  let fileDefault: string | undefined;
  if (text !== undefined) {
    let parsed: unknown;
    try {
      parsed = YAML.parse(text);
    } catch (err) {
      problems.push(`PLANS_FILE ${file} is not valid JSON or YAML: ${(err as Error).message}`);
      return BUILTIN_PLAN_TABLE;
    }
    const { plans: listed, default: named, ...rest } = (parsed ?? {}) as Raw;
    for (const key of Object.keys(rest))
      found.push(`PLANS_FILE ${file}: unknown key "${key}" (plans, default)`);
    if (listed === null || typeof listed !== 'object' || Array.isArray(listed) || !Object.keys(listed).length)
      found.push(`PLANS_FILE ${file}: "plans" must list at least one plan, lowest first`);
    else {
      const known = new Map(builtinPlans().map((p) => [p.name, p]));
      const defined: PlanDefinition[] = [];
      for (const [name, raw] of Object.entries(listed)) {
        const plan = planOf(name, raw, known, found);
        if (plan) {
          known.set(name, plan);
          defined.push(plan);
        }
      }
      plans = defined;
    }
    if (named !== undefined) fileDefault = String(named);
    found.forEach((p) => problems.push(p.startsWith('PLANS_FILE') ? p : `PLANS_FILE ${file}: ${p}`));
  }
  const lowest = plans.some((p) => p.name === 'free') ? 'free' : plans[0]?.name;
  const chosen = defaultPlan ?? fileDefault ?? (highestByDefault ? plans[plans.length - 1]?.name : lowest);
  if (found.length) return BUILTIN_PLAN_TABLE;
  if (!chosen || !plans.some((p) => p.name === chosen)) {
    problems.push(
      `DEFAULT_PLAN "${chosen}" is not a plan of this installation (${plans.map((p) => p.name).join(', ')})`,
    );
    return BUILTIN_PLAN_TABLE;
  }
  const fromProfile = highestByDefault && defaultPlan === undefined && fileDefault === undefined;
  return tableOf(plans, chosen, text === undefined ? null : file, fromProfile, defaultPlan !== undefined);
}

export function readPlanTable(
  file: string | undefined,
  defaultPlan: string | undefined,
  problems: string[],
  highestByDefault = false,
) {
  if (!file) return parsePlanTable(undefined, '', defaultPlan, problems, highestByDefault);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    problems.push(`PLANS_FILE ${file} cannot be read: ${(err as Error).message}`);
    return BUILTIN_PLAN_TABLE;
  }
  return parsePlanTable(text, file, defaultPlan, problems, highestByDefault);
}

/** Merged limits by overrides object and plan: a project object is reused while its version lasts. */
const merged = new WeakMap<object, Map<PlanDefinition, PlanLimits>>();

/**
 * The limits in force for a project: its owner's plan, then the operator's overrides. Made once
 * per overrides object and plan (every write and rate-limited request asks), and frozen: shared.
 */
export function limitsOf(
  table: PlanTable,
  project: Pick<Project, 'limits'>,
  ownerPlan: PlanName,
): PlanLimits {
  const plan = table.get(ownerPlan);
  let byPlan = merged.get(project.limits);
  if (!byPlan) merged.set(project.limits, (byPlan = new Map()));
  let limits = byPlan.get(plan);
  if (!limits) byPlan.set(plan, (limits = Object.freeze({ ...plan.limits, ...project.limits })));
  return limits;
}
