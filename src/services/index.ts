// Builds every service once from the process dependencies.
import type { Deps } from '../deps.js';
import { healthService } from './health.js';
import { installationServices } from './installation-wiring.js';
import { accountsService } from './accounts.js';
import { projectsService } from './projects.js';
import { endUserTokens } from './tokens.js';
import { createEventBus } from './events.js';
import { projectCache } from './project-cache.js';
import { platformRepos } from './repos.js';
import { invitationsRepo } from '../db/invitations.js';
import { userAuthService } from './user-auth/index.js';
import { createMailer } from '../mail/sender.js';
import { collectionsService } from './collections.js';
import { projectIndexes } from '../db/project-indexes.js';
import { indexesService } from './indexes.js';
import { slowQueriesService } from './slow-queries.js';
import { collectionSizesService } from './collection-sizes.js';
import { slowQueriesRepo } from '../db/slow-queries.js';
import { storageServices } from './storage/index.js';
import { dataService } from './data/index.js';
import { databaseQuota } from './data/quota.js';
import { documentsRepo } from '../db/documents.js';
import { usersRepo } from '../db/users.js';
import { authTokensRepo } from '../db/auth-tokens.js';
import { endUsersService } from './end-users/index.js';
import { chargedUsers } from './user-auth/usage.js';
import { eventUserView } from './user-auth/new-user.js';
import { tokenRevocations } from './end-users/revocations.js';
import { apiRateLimits } from './rate-limits.js';
import { mailServices } from './mail/index.js';
import { webhookServices } from './webhooks/index.js';
import { usageServices } from './usage/index.js';
import { mailUsageRepo } from '../db/mail-usage.js';
import { webhooksRepo } from '../db/webhooks.js';
import { realtimeService } from './realtime/index.js';
import { projectApiService } from './project-api/index.js';
import { projectContentService } from './project-content.js';
import { aiServices } from './ai/index.js';
import { externalDatabaseSettingsRepo } from '../db/external-database-settings.js';
import { externalDatabaseService } from './external-db/index.js';
import { requestLogService } from './request-log/index.js';
import { requestLogsRepo } from '../db/request-logs.js';
import { limitsOf } from '../lib/plan-table.js';
import type { Project } from './types.js';
import { originNotices } from './origin-notices.js';
import { isObjectId, toObjectId } from '../db/ids.js';
import { toApi } from './data/serialize.js';
import { backupService } from './backups/index.js';
import { collectionIo } from './backups/collection-io.js';
import { backupJobsRepo } from '../db/backup-jobs.js';
import { archivePlaces, removeBucketArchives } from './backups/places.js';
import { accessTokensRepo } from '../db/access-tokens.js';
import { functionServices } from './functions/index.js';
import { authHooks } from './functions/auth-hooks.js';
import { processHostedRuntime } from './functions/hosted-wiring.js';
import { monthWarnings, quotaWarningMailer } from './functions/quota-warnings.js';

export function createServices(deps: Deps) {
  const platform = deps.db.platform;
  // Every write to a project or its collections marks the project changed for the cache.
  const cached = projectCache(deps.cache);
  const repos = platformRepos(platform, deps.config.plans, cached);
  /** A project as this process keeps it under its version (the API keys' path reads it too). */
  const cachedProject = (projectId: string) =>
    cached.ofProject(projectId, 'project', () => repos.projects.findById(projectId));
  /** The limits of a project with its owner's plan kept under the project's version (writes read them). */
  const cachedLimitsOf = async (project: Project) =>
    limitsOf(
      deps.config.plans,
      project,
      await cached.ofProject(
        project.id,
        'plan',
        async () => (await repos.developers.findById(project.ownerId))?.plan ?? deps.config.plans.defaultPlan,
      ),
    );
  const definition = (projectId: string, name: string) =>
    cached.ofProject(projectId, `def:${name}`, () => repos.collections.findByName(projectId, name));
  const revocations = tokenRevocations(deps.cache);
  const tokens = endUserTokens(deps.config.encryptionKey, repos.projects, revocations.isRevoked);
  const projects = projectsService(repos.projects, repos.developers, tokens, cached, deps.config.plans);
  const externalDb = externalDatabaseService({
    config: deps.config,
    db: deps.db,
    repo: externalDatabaseSettingsRepo(platform),
    collections: repos.collections,
    cached,
    projects,
  });
  // Every project database access goes through this one function (managed or the project's own).
  const { dbFor, isExternal } = externalDb.databases;
  // `databaseUsed` measures the managed database only: moves of a project on its own database
  // (writes, purges, deleted users and collections) leave it alone.
  const chargeManaged = repos.projects.addDatabaseUsed;
  repos.projects.addDatabaseUsed = async (projectId, deltaBytes) => {
    if (!(await isExternal(projectId))) await chargeManaged(projectId, deltaBytes);
  };
  projects.onDelete(async (projectId) => {
    // Only the managed database is dropped; a project's own database stays its owner's.
    await deps.db.project(projectId).dropDatabase();
    await externalDb.remove(projectId);
    await repos.collections.deleteAll(projectId);
  });
  const storage = storageServices(deps.config, deps.log, platform, repos.projects, projects);
  const backupJobs = backupJobsRepo(platform);
  const places = archivePlaces(platform, storage.stores, async (projectId) => {
    const project = await repos.projects.findById(projectId);
    return project && projects.limitsOf(project);
  });
  // Before the storage settings go: they name the bucket of the archives kept there.
  projects.onDelete((projectId) => removeBucketArchives(backupJobs, places, projectId, deps.log));
  projects.onDelete((projectId) => storage.deleteProjectFiles(projectId));
  const invitationRecords = invitationsRepo(platform);
  const tokenRecords = accessTokensRepo(platform);
  const accounts = accountsService(repos.developers, deps.cache, tokenRecords);
  projects.onDelete((projectId) => invitationRecords.removeAll(projectId));
  const events = createEventBus(deps.log);
  const mail = createMailer(deps.config);
  const documents = documentsRepo(deps.db, deps.config.queryTimeoutMs, dbFor);
  const collections = collectionsService(
    repos.collections,
    projects,
    async (id) => projectIndexes(await dbFor(id)),
    {
      claimSlot: (projectId, limit) =>
        repos.projects.claimCollectionSlot(projectId, limit, () => repos.collections.count(projectId)),
      releaseSlot: (projectId) => repos.projects.releaseCollectionSlot(projectId),
      // Nothing to give back for a project's own database: no need to scan it.
      collectionSize: async (projectId, collection) =>
        (await isExternal(projectId)) ? 0 : documents.collectionSize({ projectId, collection }),
      release: (projectId, bytes) => repos.projects.addDatabaseUsed(projectId, -bytes),
    },
  );
  const indexes = indexesService(repos.collections, projects, collections, async (id) =>
    projectIndexes(await dbFor(id)),
  );
  const slowQueries = slowQueriesService(
    slowQueriesRepo(platform),
    repos.collections,
    projects,
    deps.log,
    deps.config.slowQueryMs,
  );
  projects.onDelete(async (projectId) => void (await slowQueriesRepo(platform).clear(projectId)));
  const quota = databaseQuota(repos.projects, cachedLimitsOf, isExternal);
  // Whoever reads the counter through this process (usage report, recount, roll-up, upload and
  // quota checks) first gets back what this process's leases hold for the project, so it reads
  // exact; another process's open lease may still show in it for up to about a second.
  const readUsage = repos.projects.usage;
  repos.projects.usage = async (projectId) => {
    await quota.settle(projectId);
    return readUsage(projectId);
  };
  // The project's record carries the counter too (the dashboard's project, the cache's misses).
  const readProject = repos.projects.findById;
  repos.projects.findById = async (projectId) => {
    await quota.settle(projectId);
    return readProject(projectId);
  };
  const realtime = realtimeService({
    cache: deps.cache,
    definitions: definition,
    limitsOf: projects.limitsOf,
    isRevoked: revocations.isRevoked,
    currentProject: cachedProject,
    log: deps.log,
    settings: deps.config.realtime,
  });
  events.on(realtime.publish);
  const usage = usageServices(platform, deps.log, projects, {
    settleDatabaseUsed: quota.settle,
    mailSent: (projectId, month) => mailUsageRepo(platform).count(projectId, month),
    webhookCount: async (projectId) => (await webhooksRepo(platform).list(projectId)).length,
    backupBytes: (projectId) => backupJobsRepo(platform).keptBytes(projectId),
    warnings: (projectId, limits, at) =>
      monthWarnings(deps.cache, projectId, limits.functionInvocationsPerMonth, at),
  });
  const functions = functionServices({
    config: deps.config,
    log: deps.log,
    platform,
    sharedCache: deps.cache,
    cache: cached,
    projects,
    projectById: cachedProject,
    limitsOf: cachedLimitsOf,
    count: usage.counter.add,
    warn: quotaWarningMailer({
      mailer: mail,
      projectById: repos.projects.findById,
      developerById: repos.developers.findById,
      dashboardUrl: deps.config.dashboardUrl,
    }),
    collectionNames: async (projectId) => (await repos.collections.list(projectId)).map((c) => c.name),
  });
  const webhooks = webhookServices(
    deps.config,
    deps.log,
    platform,
    cached,
    events,
    projects,
    async (projectId, collection, id) => {
      const _id = toObjectId(id);
      const doc = _id && (await documents.findOne({ projectId, collection }, { _id }));
      if (!doc || collection !== 'users') return doc ? toApi(doc) : undefined;
      return eventUserView(await definition(projectId, 'users'), toApi(doc)); // no password hash
    },
    deps.cache,
    usage.counter,
    functions.after,
  );
  const data = dataService({
    documents,
    projects: repos.projects,
    definitions: definition,
    limitsOf: cachedLimitsOf,
    isExternal,
    events,
    quota,
    slowQueries: slowQueries.recorder,
    hooks: functions.hooks,
    // A project on its own database is on real MongoDB, whatever runs the platform's.
    onEmbedded: deps.config.embeddedDatabase ? async (id) => !(await isExternal(id)) : undefined,
  });
  const { runtime: hosted, wiring } = processHostedRuntime(deps.config, deps.log, data, cachedProject);
  functions.useHostedRuntime(wiring);
  const archives = places.internal;
  const planOf = async (project: Project) =>
    (await repos.developers.findById(project.ownerId))?.plan ?? deps.config.plans.defaultPlan;
  projects.onDelete((projectId) => backupJobs.removeAll(projectId));
  const backups = {
    ...backupService({ jobs: backupJobs, places, projects, planOf, plans: deps.config.plans }),
    archives,
    places,
    planOf,
    /** Marks a project changed for every process's cache (a restore over it has written). */
    changed: (projectId: string) => cached.changed(projectId),
    io: collectionIo({ projects, definition, dbFor, quota, events, platform, config: deps.config }),
  };
  const health = healthService(deps);
  return {
    repos,
    /** The installation's plans (PLANS_FILE, DEFAULT_PLAN, or as edited on the Plans page). */
    plans: deps.config.plans,
    events,
    backups,
    mail,
    userAuth: userAuthService({
      deps,
      mailer: mail,
      tokens,
      events,
      findUsersDefinition: (projectId) => definition(projectId, 'users'),
      findProject: (projectId) => repos.projects.findById(projectId),
      quota,
      projectDb: dbFor,
      hooks: authHooks(functions.hooks, cachedProject),
    }),
    health,
    rateLimits: apiRateLimits(
      deps.cache,
      deps.config.rateLimitIpPerMinute,
      async (id) => (await repos.developers.findById(id))?.plan ?? deps.config.plans.defaultPlan,
      deps.config.plans,
      deps.config.rateLimitClientSharePercent,
    ),
    accounts,
    projects,
    ...installationServices({
      deps,
      repos,
      accounts,
      projects,
      health,
      mail,
      tokenRecords,
      invitationRecords,
    }),
    collections,
    indexes,
    slowQueries,
    collectionSizes: collectionSizesService(
      repos.collections,
      projects,
      async (id) => projectIndexes(await dbFor(id)),
      isExternal,
      deps.config.embeddedDatabase,
    ),
    documents,
    data,
    content: projectContentService(projects, data, storage.uploads, storage.files, accounts),
    tokens,
    storage,
    endUsers: endUsersService({
      users: chargedUsers(usersRepo(dbFor), quota),
      authTokens: authTokensRepo(platform),
      revocations,
      findUsersDefinition: (projectId) => definition(projectId, 'users'),
      collections: repos.collections,
      documents,
      projects: repos.projects,
      deleteUserFiles: (projectId, userId) => storage.deleteUserFiles(projectId, userId),
      redactWebhookPayloads: webhooks.redact,
    }),
    mailApi: mailServices(deps.config, platform, mail, projects, usage.counter),
    webhooks,
    functions,
    /** Closed at shutdown: kills the runner processes. */
    hosted,
    usage,
    quota,
    realtime,
    projectApi: projectApiService({
      cache: deps.cache,
      projects,
      listCollections: (projectId) => repos.collections.list(projectId),
      publicUrl: deps.config.publicUrl,
    }),
    ai: aiServices({
      deps,
      cache: cached,
      projects,
      collections,
      collectionsRepo: repos.collections,
      definitions: definition,
      counter: usage.counter,
    }),
    externalDb,
    originNotices: originNotices({ note: repos.projects.noteCredentialsRefused, log: deps.log }),
    requestLog: requestLogService({
      repo: requestLogsRepo(platform),
      projects,
      reaches: async (projectId, developerId, tokenProjects) => {
        if (!isObjectId(projectId) || (tokenProjects && !tokenProjects.includes(projectId))) return false;
        const project = await cachedProject(projectId);
        return Boolean(project?.members.some((m) => m.developerId === developerId));
      },
      settings: deps.config.requestLog,
      log: deps.log,
    }),
  };
}

export type Services = ReturnType<typeof createServices>;
