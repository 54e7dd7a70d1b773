// Hooks and functions (docs/functions.md): the management of their records, and what the write
// paths, the callable endpoint and the worker use to run them. Changes mark the project changed,
// so every process's cached hook table follows at once.
import type { Config } from '../../config.js';
import type { Cache } from '../../cache/index.js';
import type { Database } from '../../db/client.js';
import { functionsRepo } from '../../db/functions.js';
import { functionInvocationsRepo } from '../../db/function-invocations.js';
import type { Logger } from '../../lib/logger.js';
import { decrypt, deriveKey, encrypt } from '../../lib/secrets.js';
import { invalidating, type ProjectCache } from '../project-cache.js';
import type { ProjectsService } from '../projects.js';
import type { PlanLimits, Project } from '../types.js';
import { hookBreakers } from './breaker.js';
import { syncHooks, hookKey, type HookTable } from './hooks.js';
import { targetAllowance } from '../webhooks/http.js';
import { ownOriginsOf } from '../../lib/own-origins.js';
import { httpRuntime } from './http-runtime.js';
import { functionInvoker, type HostedWiring, type InvokeDeps } from './invoke.js';
import { activeVersionOf, functionsManager } from './manage.js';
import type { StoredFunction } from './types.js';
import { functionRuns, runnable } from './runs.js';
import { callableFunctions } from './callable.js';
import { afterTriggers } from './after-triggers.js';
import { warmElsewhere } from './warm-elsewhere.js';

export interface FunctionsDeps {
  config: Config;
  log: Logger;
  platform: Database['platform'];
  sharedCache: Cache;
  cache: ProjectCache;
  projects: ProjectsService;
  /** The cached project (the after-triggers' runs read it). */
  projectById: (projectId: string) => Promise<Project | null | undefined>;
  /** The cached limits (every hooked write asks). */
  limitsOf: (project: Project) => Promise<PlanLimits>;
  collectionNames: (projectId: string) => Promise<string[]>;
  count?: InvokeDeps['count'];
  /** Mails the owner when the month's invocations reach 80 % and 100 % (quota-warnings.ts). */
  warn?: InvokeDeps['warn'];
}

export function functionServices(deps: FunctionsDeps) {
  const { config, platform, cache, projects } = deps;
  const repo = invalidating(functionsRepo(platform), ['create', 'update', 'delete', 'deleteAll'], cache);
  const invocations = functionInvocationsRepo(platform);
  const key = deriveKey(config.encryptionKey, 'function-secret');
  const open = (sealed: string) => decrypt(key, sealed);
  // The same targets as webhooks, the development profile's loopback allowance included.
  const hostRules = {
    allowHttp: config.webhooks.allowHttp,
    allowPrivate: targetAllowance(config),
    own: ownOriginsOf(config),
  };
  const breakers = hookBreakers(deps.sharedCache, config.hookBreaker);
  const http = httpRuntime(hostRules);
  let hosted: HostedWiring | undefined;
  const invoker = functionInvoker({
    cache: deps.sharedCache,
    http,
    breakers,
    invocations,
    open,
    log: deps.log.child({ component: 'functions' }),
    hosted: () => hosted,
    count: deps.count,
    warn: deps.warn,
  });

  /** The enabled functions of a project by trigger, kept under the project's cache version. */
  const table = (projectId: string) =>
    cache.ofProject(projectId, 'functions', async (): Promise<HookTable> => {
      const out: HookTable = {};
      for (const fn of await repo.list(projectId)) {
        if (!fn.enabled) continue;
        const entry = runnable(fn);
        (out[hookKey(entry.trigger.type, entry.trigger.collection)] ??= []).push(entry);
      }
      return out;
    });

  /** Readies a saved version in this process's pool (which starts if it had not). */
  const prepare = (project: Project, fn: StoredFunction) =>
    projects
      .limitsOf(project)
      .then((limits) => invoker.prepare(runnable(fn), limits))
      .catch((err: unknown) => deps.log.warn({ err, functionId: fn.id }, 'readying a function failed'));
  // ...and in every other process that runs functions already (warm-elsewhere.ts).
  const elsewhere = warmElsewhere({
    bus: deps.sharedCache,
    started: () => hosted?.runtime.started?.() === true,
    ready: async (projectId, functionId) => {
      const [fn, project] = await Promise.all([
        repo.find(projectId, functionId),
        deps.projectById(projectId),
      ]);
      if (fn && project) await prepare(project, fn);
    },
    log: deps.log,
  });

  const manage = functionsManager({
    repo,
    limitsOf: projects.limitsOf,
    collectionNames: deps.collectionNames,
    seal: (secret) => encrypt(key, secret),
    hostRules,
    breakerOf: async (fn: StoredFunction) =>
      activeVersionOf(fn).runtime.type === 'http' ? breakers.state(fn.id) : null,
    // The first call of a saved version (and a test run) finds the pool started and it evaluated,
    // here and in the processes that run functions.
    warm: (project, fn) => {
      void prepare(project, fn);
      elsewhere.announce(project.id, fn.id);
    },
  });
  projects.onDelete(async (projectId) => {
    await repo.deleteAll(projectId);
    await invoker.flushLog();
    await invocations.deleteAll(projectId);
  });
  return {
    manage,
    /** Seals a value as env secrets and signing secrets are stored (a restore writes functions). */
    sealValue: (value: string) => encrypt(key, value),
    runs: functionRuns({ repo, invocations, invoker, limitsOf: projects.limitsOf }),
    repo,
    invocations,
    invoker,
    callable: callableFunctions({ table, invoker, cache: deps.sharedCache, limitsOf: deps.limitsOf }),
    hooks: syncHooks({ table, invoker, limitsOf: deps.limitsOf, log: deps.log }),
    /** Queued by the webhook outbox, run by the worker (after-triggers.ts). */
    after: afterTriggers({
      table,
      invoker,
      projectById: deps.projectById,
      limitsOf: deps.limitsOf,
      log: deps.log,
    }),
    /** The sandbox's seam: the hosted runtime this process runs JavaScript functions on. */
    useHostedRuntime(wiring: HostedWiring | undefined) {
      hosted = wiring;
      if (wiring?.runtime.started) elsewhere.listen();
    },
    /** Writes the buffered invocation log and gives back unused monthly invocations; closes HTTP pools. */
    close: async () => {
      elsewhere.close();
      await invoker.close();
      http.close();
    },
  };
}

export type FunctionServices = ReturnType<typeof functionServices>;
