// /api/projects/{projectId}/request-log: the project's recent public API requests (members).
import type { operations as Ops } from '../../generated/dashboard.js';
import type { Handler } from '../http/types.js';
import type { Services } from '../services/index.js';

export function requestLogHandlers({ requestLog }: Services) {
  const listRequestLog: Handler<Ops['listRequestLog']> = async ({ params, query }, ctx) => {
    const { entries, pagination, enabled } = await requestLog.list(ctx, params.projectId, query);
    const data = {
      enabled,
      entries: entries.map((e) => ({ ...e, at: e.at.toISOString(), accessToken: e.accessToken ?? null })),
      pagination,
    };
    return { status: 200, body: { success: true, data, message: '' } };
  };
  return { listRequestLog };
}
