// The monthly platform-key caps of the AI tools (SERVICE-SPEC "Limits", DECISIONS §5): per
// project, feature and UTC calendar month, taken atomically before the provider is called and
// given back when the request fails. Requests on a supplied key are not capped.
import { forbidden } from '../../http/errors.js';
import type { AiFeature, AiUsageRepo } from '../../db/ai-usage.js';
import type { PlanLimits } from '../types.js';
import type { Clock } from './types.js';

const LIMIT_NAMES = {
  queryBuilder: 'aiQueryBuilderPerMonth',
  collectionCreator: 'aiCollectionCreatorPerMonth',
} as const satisfies Record<AiFeature, keyof PlanLimits>;

const LABELS: Record<AiFeature, string> = {
  queryBuilder: 'Query Builder requests',
  collectionCreator: 'Collection Creator schema designs',
};

export const monthOf = (at: Date) => at.toISOString().slice(0, 7);
const nextMonthStart = (at: Date) => new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1));

export interface TakenSlot {
  feature: AiFeature;
  month: string;
}

export function aiCaps(repo: AiUsageRepo, clock: Clock) {
  return {
    /** Takes one slot of this month's cap, or a 403 naming the cap and when it resets. */
    async take(projectId: string, feature: AiFeature, limits: PlanLimits): Promise<TakenSlot> {
      const now = clock.now();
      const month = monthOf(now);
      const limit = limits[LIMIT_NAMES[feature]];
      if ((await repo.take(projectId, feature, month, limit)) === undefined) {
        throw forbidden(
          `Monthly AI limit reached: this project's plan allows ${limit} ${LABELS[feature]} per month on the platform's AI key (${LIMIT_NAMES[feature]}). The count starts again on ${nextMonthStart(now).toISOString().slice(0, 10)} (UTC); a project or account AI provider key is not limited.`,
          'AI_LIMIT_REACHED',
        );
      }
      return { feature, month };
    },

    refund: (projectId: string, slot: TakenSlot) => repo.refund(projectId, slot.feature, slot.month),
  };
}

export type AiCaps = ReturnType<typeof aiCaps>;
