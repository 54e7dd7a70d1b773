// What every AI request does around the model call: who calls on which project (members), which
// key it runs on (project, developer, platform), the short-window rate limits, the platform-key
// cap taken before the call and given back only when the provider did not bill it (never
// reached, or an error status), and the usage count after it succeeded.
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
import { providerDidNotBill, type AiProvider, type ChatMessage } from './provider.js';
import type { AiThrottle } from './throttle.js';
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
  throttle: AiThrottle,
) {
  async function resolveKey(target: AiTarget): Promise<ResolvedKey> {
    const key = await keys.resolve(target.project, target.limits, target.developer);
    if (!key) {
      throw forbidden(
        'No AI provider key is available: this installation has no platform key, so add a project or account AI provider key',
        'AI_KEY_REQUIRED',
      );
    }
    await throttle(target.project.id, target.developer.id, key.source);
    return key;
  }

  /**
   * A model call that records whether the provider may have billed it: it answered (whatever the
   * answer), or the request went out and no answer came in time. Only then a slot stays taken.
   */
  function metered(target: AiTarget, key: ResolvedKey) {
    const meter = { billed: false };
    const complete: Complete = async (messages) => {
      try {
        const answer = await provider.complete(key, messages, target.log);
        meter.billed = true;
        return answer;
      } catch (err) {
        if (!providerDidNotBill(err)) meter.billed = true;
        throw err;
      }
    };
    return { complete, meter };
  }

  return {
    resolveKey,
    caps,

    async open(ctx: RequestContext, projectId: string): Promise<AiTarget> {
      const developer = requireDeveloper(ctx);
      const project = await projects.requireAccess(ctx, projectId, 'member');
      return { project, developer, limits: await projects.limitsOf(project), log: ctx.log };
    },

    metered,

    /**
     * One capped request: the slot is taken on the platform key only, and given back when the
     * request failed without the provider billing a call (an invalid answer keeps it).
     */
    async run<T>(target: AiTarget, feature: AiFeature, fn: (complete: Complete) => Promise<T>) {
      const key = await resolveKey(target);
      let slot: TakenSlot | undefined;
      if (key.source === 'platform') slot = await caps.take(target.project.id, feature, target.limits);
      const { complete, meter } = metered(target, key);
      try {
        return { result: await fn(complete), key };
      } catch (err) {
        if (slot && !meter.billed) await caps.refund(target.project.id, slot);
        throw err;
      }
    },

    count: (projectId: string, metric: UsageMetric) => counter.add(projectId, metric),
  };
}

export type AiRequestKit = ReturnType<typeof aiRequestKit>;
