// The spec's plans, Free and Pro: the one place where their limits live (DECISIONS §5). An
// installation may define its own plans instead (src/lib/plan-table.ts, PLANS_FILE); the operator
// can override any limit per project (Project.limits).
import type { PlanLimits } from '../services/types.js';

/** A limit that is no limit: the largest whole number JSON carries exactly (2^53 - 1). */
export const UNLIMITED = Number.MAX_SAFE_INTEGER;

const KB = 1024;
const MB = 1024 * KB;
const GB = 1024 * MB;

export const PLANS: Readonly<Record<'free' | 'pro', Readonly<PlanLimits>>> = Object.freeze({
  free: Object.freeze({
    projectsPerDeveloper: 2,
    collectionsPerProject: 10,
    databaseBytes: 50 * MB,
    storageBytes: 20 * MB,
    backupBytes: 250 * MB,
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
    functionInvocationsPerCallerPerDay: 1_000,
    functionFetchesPerInvocation: 5,
    functionDbCallsPerInvocation: 50,
    functionLogBytesPerInvocation: 16 * KB,
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
    backupBytes: 100 * GB,
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
    functionInvocationsPerCallerPerDay: 20_000,
    functionFetchesPerInvocation: 20,
    functionDbCallsPerInvocation: 200,
    functionLogBytesPerInvocation: 64 * KB,
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

/** Backups per plan (docs/backups.md): how many are kept, and how often the worker takes one. */
export const BACKUP_PLANS: Readonly<Record<string, Readonly<{ kept: number; every: 'day' | 'hour' }>>> =
  Object.freeze({
    free: Object.freeze({ kept: 3, every: 'day' as const }),
    pro: Object.freeze({ kept: 30, every: 'hour' as const }),
  });
