// Hooks and functions on the dashboard and for scripts: create (an HTTP hook's signing secret
// shown once), list, read, update (a change of trigger, runtime or failure policy is a new
// immutable version; 20 kept), activate an older version (rollback), delete. The plan's limit
// is a counted slot per project, taken before the function is written.
import { conflict, forbidden, notFound } from '../../http/errors.js';
import { FunctionConflictError, type FunctionsRepo } from '../../db/functions.js';
import type { PlanLimits, Project } from '../types.js';
import { generateSecret } from '../webhooks/signing.js';
import {
  checkRuntime,
  checkTrigger,
  definitionHash,
  mergeEnv,
  sha256Hex,
  slotOf,
  type HostRules,
} from './validate.js';
import {
  VERSIONS_KEPT,
  type BreakerState,
  type FailurePolicy,
  type FunctionRuntime,
  type FunctionTrigger,
  type FunctionVersion,
  type StoredFunction,
} from './types.js';
import { counted } from '../../lib/words.js';

export interface FunctionInput {
  name: string;
  trigger: FunctionTrigger;
  runtime: FunctionRuntime | { type: 'javascript'; code: string; privileged?: boolean };
  failurePolicy?: FailurePolicy;
  enabled?: boolean;
  env?: Record<string, string | null>;
  rateLimitPerMinute?: number | null;
}

export interface ManageDeps {
  repo: FunctionsRepo;
  limitsOf: (project: Project) => Promise<PlanLimits>;
  collectionNames: (projectId: string) => Promise<string[]>;
  seal: (secret: string) => string;
  hostRules: HostRules;
  /** The HTTP hook's circuit breaker as every process sees it. */
  breakerOf: (fn: StoredFunction) => Promise<BreakerState | null>;
  /** A version was saved or activated: hosted code gets an instance readied (never awaited). */
  warm?: (project: Project, fn: StoredFunction) => void;
}

export const activeVersionOf = (fn: StoredFunction): FunctionVersion =>
  fn.versions.find((v) => v.version === fn.activeVersion)!;

const versionView = (v: FunctionVersion, active: number) => ({
  version: v.version,
  sha256: v.sha256,
  codeHash: v.codeHash,
  trigger: v.trigger,
  runtime: v.runtime,
  failurePolicy: v.failurePolicy,
  active: v.version === active,
  createdAt: v.createdAt.toISOString(),
});

export function functionsManager({
  repo,
  limitsOf,
  collectionNames,
  seal,
  hostRules,
  breakerOf,
  warm,
}: ManageDeps) {
  async function view(fn: StoredFunction) {
    const active = activeVersionOf(fn);
    return {
      id: fn.id,
      name: fn.name,
      enabled: fn.enabled,
      trigger: active.trigger,
      runtime: active.runtime,
      failurePolicy: active.failurePolicy,
      version: active.version,
      latestVersion: fn.latestVersion,
      sha256: active.sha256,
      codeHash: active.codeHash,
      env: Object.keys(fn.envEnc).sort(),
      rateLimitPerMinute: fn.rateLimitPerMinute,
      disabledReason: fn.disabledReason ?? null,
      breaker: await breakerOf(fn),
      createdAt: fn.createdAt.toISOString(),
      updatedAt: fn.updatedAt.toISOString(),
    };
  }

  async function require(project: Project, id: string): Promise<StoredFunction> {
    const fn = await repo.find(project.id, id);
    if (!fn) throw notFound('Function not found', 'FUNCTION_NOT_FOUND');
    return fn;
  }

  async function newVersion(
    project: Project,
    limits: PlanLimits,
    number: number,
    def: Pick<FunctionInput, 'trigger' | 'runtime' | 'failurePolicy'>,
  ): Promise<FunctionVersion> {
    const names = new Set(await collectionNames(project.id));
    const trigger = checkTrigger(def.trigger, limits, (name) => names.has(name));
    const runtime = await checkRuntime(def.runtime as FunctionRuntime, limits, hostRules);
    const failurePolicy = def.failurePolicy ?? 'closed';
    return {
      version: number,
      sha256: definitionHash({ trigger, runtime, failurePolicy }),
      codeHash: runtime.type === 'javascript' ? sha256Hex(runtime.code) : null,
      trigger,
      runtime,
      failurePolicy,
      createdAt: new Date(),
    };
  }

  function conflictError(err: unknown, trigger: FunctionTrigger): never {
    if (!(err instanceof FunctionConflictError)) throw err;
    if (err.conflict === 'name') throw conflict('A function of that name exists', 'FUNCTION_EXISTS');
    const on = trigger.collection ? ` on ${trigger.collection}` : '';
    throw conflict(`The project already has a ${trigger.type} hook${on}`, 'HOOK_EXISTS');
  }

  return {
    view,
    async create(project: Project, input: FunctionInput) {
      const limits = await limitsOf(project);
      const version = await newVersion(project, limits, 1, input);
      const envEnc = mergeEnv({}, input.env ?? {}, limits.functionSecrets, seal);
      if (!(await repo.reserveSlot(project.id, limits.functionsPerProject))) {
        throw forbidden(
          `Plan limit reached: this project's plan allows ${counted(limits.functionsPerProject, 'function')}`,
          'PLAN_LIMIT',
        );
      }
      const signingSecret = version.runtime.type === 'http' ? generateSecret() : null;
      try {
        const fn = await repo
          .create(
            project.id,
            {
              name: input.name,
              enabled: input.enabled ?? true,
              activeVersion: 1,
              latestVersion: 1,
              versions: [version],
              signingSecretEnc: signingSecret && seal(signingSecret),
              envEnc,
              rateLimitPerMinute: input.rateLimitPerMinute ?? null,
            },
            slotOf(version.trigger),
          )
          .catch((err: unknown) => conflictError(err, version.trigger));
        warm?.(project, fn);
        return { function: await view(fn), signingSecret };
      } catch (err) {
        await repo.releaseSlot(project.id);
        throw err;
      }
    },

    list: async (project: Project) => Promise.all((await repo.list(project.id)).map(view)),

    get: async (project: Project, id: string) => view(await require(project, id)),

    /** Fields left out stay; a changed definition becomes the next version and the active one. */
    async update(project: Project, id: string, input: Partial<FunctionInput>) {
      const fn = await require(project, id);
      const limits = await limitsOf(project);
      const active = activeVersionOf(fn);
      const changes: Partial<StoredFunction> = {};
      if (input.name !== undefined) changes.name = input.name;
      // Its developer decides now: the reason the service left it disabled goes.
      if (input.enabled !== undefined)
        Object.assign(changes, { enabled: input.enabled, disabledReason: null });
      if (input.rateLimitPerMinute !== undefined) changes.rateLimitPerMinute = input.rateLimitPerMinute;
      if (input.env !== undefined) {
        changes.envEnc = mergeEnv(fn.envEnc, input.env, limits.functionSecrets, seal);
        changes.envRetiredEnc = Object.entries(fn.envEnc)
          .filter(([name]) => name in input.env!)
          .map(([, sealed]) => sealed);
      }
      let trigger = active.trigger;
      let signingSecret: string | null = null;
      if (input.trigger || input.runtime || input.failurePolicy) {
        const next = await newVersion(project, limits, fn.latestVersion + 1, {
          trigger: input.trigger ?? active.trigger,
          runtime: input.runtime ?? active.runtime,
          failurePolicy: input.failurePolicy ?? active.failurePolicy,
        });
        if (next.sha256 !== active.sha256) {
          trigger = next.trigger;
          changes.versions = [...fn.versions, next].slice(-VERSIONS_KEPT);
          changes.latestVersion = next.version;
          changes.activeVersion = next.version;
          if (next.runtime.type === 'http' && !fn.signingSecretEnc) {
            signingSecret = generateSecret();
            changes.signingSecretEnc = seal(signingSecret);
          }
        }
      }
      // An HTTP hook a restore left disabled signs with a secret its developer never saw: enabling
      // it makes a new one, shown once in this answer (as when a function first gets HTTP).
      const runtime = (changes.versions?.at(-1) ?? active).runtime;
      if (input.enabled === true && fn.disabledReason && runtime.type === 'http' && !signingSecret) {
        signingSecret = generateSecret();
        changes.signingSecretEnc = seal(signingSecret);
      }
      const updated = await repo
        .update(project.id, id, fn.latestVersion, changes, slotOf(trigger)(id))
        .catch((err: unknown) => conflictError(err, trigger));
      if (!updated)
        throw conflict('The function changed meanwhile; read it and try again', 'FUNCTION_CHANGED');
      warm?.(project, updated);
      return { function: await view(updated), signingSecret };
    },

    async versions(project: Project, id: string) {
      const fn = await require(project, id);
      return [...fn.versions].reverse().map((v) => versionView(v, fn.activeVersion));
    },

    /** Rollback: an older (kept) version becomes the active one; no new version is written. */
    async activate(project: Project, id: string, version: number) {
      const fn = await require(project, id);
      const target = fn.versions.find((v) => v.version === version);
      if (!target) throw notFound(`Version ${version} is not kept`, 'VERSION_NOT_FOUND');
      const changes: Partial<StoredFunction> = { activeVersion: version };
      let signingSecret: string | null = null;
      if (target.runtime.type === 'http' && !fn.signingSecretEnc) {
        signingSecret = generateSecret();
        changes.signingSecretEnc = seal(signingSecret);
      }
      const updated = await repo
        .update(project.id, id, fn.latestVersion, changes, slotOf(target.trigger)(id))
        .catch((err: unknown) => conflictError(err, target.trigger));
      if (!updated)
        throw conflict('The function changed meanwhile; read it and try again', 'FUNCTION_CHANGED');
      warm?.(project, updated);
      return { function: await view(updated), signingSecret };
    },

    async remove(project: Project, id: string): Promise<void> {
      if (!(await repo.delete(project.id, id))) throw notFound('Function not found', 'FUNCTION_NOT_FOUND');
      await repo.releaseSlot(project.id);
    },
  };
}

export type FunctionsManager = ReturnType<typeof functionsManager>;
