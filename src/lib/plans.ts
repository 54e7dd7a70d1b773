// The plan table: the one place where plan limits live (DECISIONS §5). The operator can override
// any limit per project (Project.limits).
import type { PlanLimits, PlanName, Project } from '../services/types.js';

const KB = 1024;
const MB = 1024 * KB;
const GB = 1024 * MB;

export const PLANS: Readonly<Record<PlanName, Readonly<PlanLimits>>> = Object.freeze({
  free: Object.freeze({
    projectsPerDeveloper: 2,
    collectionsPerProject: 10,
    databaseBytes: 50 * MB,
    storageBytes: 20 * MB,
    requestsPerMinute: 300,
    mailPerMonth: 100,
    webhooksPerProject: 2,
    indexesPerCollection: 5,
    realtimeConnectionsPerProject: 200,
    functionsPerProject: 5,
    functionCodeBytes: 64 * KB,
    functionDeadlineMs: 2_000,
    functionMemoryBytes: 32 * MB,
    functionConcurrency: 5,
    functionInvocationsPerMonth: 50_000,
    functionFetchesPerInvocation: 5,
    functionCronMinSeconds: 3600,
    functionSecrets: 10,
    functionLogDays: 1,
    aiQueryBuilderPerMonth: 5,
    aiCollectionCreatorPerMonth: 1,
    externalDatabase: true,
    externalStorage: false,
    ownMailKey: false,
    customMailTemplates: false,
    ownAiKey: false,
  }),
  pro: Object.freeze({
    projectsPerDeveloper: 20,
    collectionsPerProject: 200,
    databaseBytes: 2 * GB,
    storageBytes: 5 * GB,
    requestsPerMinute: 3000,
    mailPerMonth: 10000,
    webhooksPerProject: 25,
    indexesPerCollection: 20,
    realtimeConnectionsPerProject: 5000,
    functionsPerProject: 50,
    functionCodeBytes: 256 * KB,
    functionDeadlineMs: 10_000,
    functionMemoryBytes: 128 * MB,
    functionConcurrency: 50,
    functionInvocationsPerMonth: 2_000_000,
    functionFetchesPerInvocation: 20,
    functionCronMinSeconds: 60,
    functionSecrets: 50,
    functionLogDays: 7,
    aiQueryBuilderPerMonth: 20,
    aiCollectionCreatorPerMonth: 5,
    externalDatabase: true,
    externalStorage: true,
    ownMailKey: true,
    customMailTemplates: true,
    ownAiKey: true,
  }),
});

/** Merged limits by overrides object and plan: a project object is reused while its version lasts. */
const merged = new WeakMap<object, Map<PlanName, PlanLimits>>();

/**
 * The limits in force for a project: its owner's plan, then the operator's overrides. Made once
 * per overrides object and plan (every write and rate-limited request asks), and frozen: shared.
 */
export function projectLimits(project: Pick<Project, 'limits'>, ownerPlan: PlanName): PlanLimits {
  let byPlan = merged.get(project.limits);
  if (!byPlan) merged.set(project.limits, (byPlan = new Map()));
  let limits = byPlan.get(ownerPlan);
  if (!limits) byPlan.set(ownerPlan, (limits = Object.freeze({ ...PLANS[ownerPlan], ...project.limits })));
  return limits;
}

/** Backups per plan (docs/backups.md): how many are kept, and how often the worker takes one. */
export const BACKUP_PLANS: Readonly<Record<PlanName, Readonly<{ kept: number; every: 'day' | 'hour' }>>> =
  Object.freeze({
    free: Object.freeze({ kept: 3, every: 'day' as const }),
    pro: Object.freeze({ kept: 30, every: 'hour' as const }),
  });
