// A project's usage on the dashboard (any member): this month's figures next to the plan limits
// and the daily series of the last 90 days.
import type { operations } from '../../generated/dashboard.js';
import type { Handler } from '../http/types.js';
import type { Services } from '../services/index.js';

type Ops = operations;

export function usageHandlers({ usage }: Services) {
  const getProjectUsage: Handler<Ops['getProjectUsage']> = async ({ params }, ctx) => {
    const data = await usage.forMember(ctx, params.projectId);
    return { status: 200, body: { success: true, data, message: '' } };
  };
  return { getProjectUsage };
}
