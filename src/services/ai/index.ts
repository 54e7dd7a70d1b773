// The AI tools of the dashboard (SERVICE-SPEC "AI provider key", DECISIONS §8): provider keys,
// the Query Builder and the Collection Creator, built once from the process dependencies.
import type { Deps } from '../../deps.js';
import { aiKeysRepo } from '../../db/ai-keys.js';
import { aiUsageRepo } from '../../db/ai-usage.js';
import { aiSessionsRepo } from '../../db/ai-sessions.js';
import type { CollectionsRepo } from '../../db/collections.js';
import type { DefinitionLookup } from '../data/access.js';
import type { CollectionsService } from '../collections.js';
import type { ProjectCache } from '../project-cache.js';
import { requireDeveloper, type ProjectsService } from '../projects.js';
import type { RequestContext } from '../context.js';
import type { UsageCounter } from '../usage/counter.js';
import { aiCaps } from './caps.js';
import { aiKeys } from './keys.js';
import { aiProvider } from './provider.js';
import { aiRequestKit } from './request.js';
import { aiThrottle } from './throttle.js';
import { queryBuilder } from './query-builder.js';
import { collectionCreator } from './collection-creator.js';
import type { Clock } from './types.js';

export interface AiServiceDeps {
  deps: Deps;
  cache: ProjectCache;
  projects: ProjectsService;
  collections: CollectionsService;
  collectionsRepo: Pick<CollectionsRepo, 'list'>;
  definitions: DefinitionLookup;
  counter: Pick<UsageCounter, 'add'>;
}

export function aiServices({
  deps,
  cache,
  projects,
  collections,
  collectionsRepo,
  definitions,
  counter,
}: AiServiceDeps) {
  const platform = deps.db.platform;
  const clock: Clock = { now: () => new Date() };
  const keys = aiKeys(
    deps.config.ai,
    deps.config.encryptionKey,
    aiKeysRepo(platform),
    cache,
    deps.config.plans,
  );
  const usage = aiUsageRepo(platform);
  const sessions = aiSessionsRepo(platform);
  projects.onDelete(async (projectId) => {
    await usage.deleteAll(projectId);
    await sessions.deleteAll(projectId);
  });
  const provider = aiProvider(deps.config.ai, deps.log.child({ component: 'ai' }));
  const kit = aiRequestKit(
    projects,
    keys,
    aiCaps(usage, clock),
    provider,
    counter,
    aiThrottle(deps.cache, deps.config.ai),
  );
  const listNames = async (projectId: string) => (await collectionsRepo.list(projectId)).map((c) => c.name);
  return {
    clock,
    usage,
    buildQuery: queryBuilder(kit, definitions, listNames),
    creator: collectionCreator(kit, sessions, collections, listNames, clock),

    saveDeveloperKey: (ctx: RequestContext, value: string | null) =>
      keys.saveForDeveloper(requireDeveloper(ctx), value),

    /** Which key the caller's AI requests on the project would run on, and who could add one. */
    async status(ctx: RequestContext, projectId: string) {
      const developer = requireDeveloper(ctx);
      const project = await projects.requireAccess(ctx, projectId, 'member');
      const limits = await projects.limitsOf(project);
      return {
        keySource: keys.source(project, limits, developer),
        providerName: deps.config.ai.providerName,
        ownKeyAllowed: limits.ownAiKey,
      };
    },

    async saveProjectKey(ctx: RequestContext, projectId: string, value: string | null) {
      const project = await projects.requireAccess(ctx, projectId, 'admin');
      return keys.saveForProject(project, await projects.limitsOf(project), value);
    },
  };
}

export type AiServices = ReturnType<typeof aiServices>;
