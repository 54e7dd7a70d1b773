// What every AI request does around the model call: who calls on which project (members), which
// key it runs on (project, developer, platform), the platform-key cap taken before the call and
// given back when the request fails, and the usage count after it succeeded.
import { forbidden } from '../../http/errors.js';
import type { AiFeature } from '../../db/ai-usage.js';
import type { UsageMetric } from '../../db/usage.js';
import type { RequestContext } from '../context.js';
import { requireDeveloper, type ProjectsService } from '../projects.js';
import type { UsageCounter } from '../usage/counter.js';
import type { Logger } from '../../lib/logger.js';
import type { Developer, PlanLimits, Project } from '../types.js';
import type { AiCaps, TakenSlot } from './caps.js';
import type { AiKeys } from './keys.js';
import type { AiProvider, ChatMessage } from './provider.js';
import type { ResolvedKey } from './types.js';

export interface AiTarget {
  project: Project;
  developer: Developer;
  limits: PlanLimits;
  /** The request's log (with its request id). */
  log: Logger;
}

export type Complete = (messages: ChatMessage[]) => Promise<string>;

export function aiRequestKit(
  projects: ProjectsService,
  keys: AiKeys,
  caps: AiCaps,
  provider: AiProvider,
  counter: Pick<UsageCounter, 'add'>,
) {
  async function resolveKey(target: AiTarget): Promise<ResolvedKey> {
    const key = await keys.resolve(target.project, target.limits, target.developer);
    if (!key) {
      throw forbidden(
        'No AI provider key is available: this installation has no platform key, so add a project or account AI provider key',
        'AI_KEY_REQUIRED',
      );
    }
    return key;
  }

  return {
    resolveKey,
    caps,

    async open(ctx: RequestContext, projectId: string): Promise<AiTarget> {
      const developer = requireDeveloper(ctx);
      const project = await projects.requireAccess(ctx, projectId, 'member');
      return { project, developer, limits: await projects.limitsOf(project), log: ctx.log };
    },

    complete:
      (target: AiTarget, key: ResolvedKey): Complete =>
      (messages) =>
        provider.complete(key, messages, target.log),

    /** One capped request: the slot is taken on the platform key only, and given back on failure. */
    async run<T>(target: AiTarget, feature: AiFeature, fn: (complete: Complete) => Promise<T>) {
      const key = await resolveKey(target);
      let slot: TakenSlot | undefined;
      if (key.source === 'platform') slot = await caps.take(target.project.id, feature, target.limits);
      try {
        return { result: await fn((messages) => provider.complete(key, messages, target.log)), key };
      } catch (err) {
        if (slot) await caps.refund(target.project.id, slot);
        throw err;
      }
    },

    count: (projectId: string, metric: UsageMetric) => counter.add(projectId, metric),
  };
}

export type AiRequestKit = ReturnType<typeof aiRequestKit>;
