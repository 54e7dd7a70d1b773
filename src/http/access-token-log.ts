// Dashboard requests made with a personal access token go into the request log of the project
// they name (issue 38: a token's use is visible where the project's traffic is). Dashboard role
// only, so the public API's path is unchanged; the membership check and the write are off the
// response (src/services/request-log).
import type { Context, Next } from 'koa';
import type { RecordedRequest } from '../services/request-log/buffer.js';
import type { RequestState } from './middleware.js';

type RecordAccessToken = (
  entry: RecordedRequest,
  developerId: string,
  tokenProjects: string[] | null,
) => void;

export function accessTokenRequests(record: RecordAccessToken) {
  return async (ctx: Context, next: Next) => {
    const started = performance.now();
    try {
      await next();
    } finally {
      const { principal, requestId } = ctx.state as RequestState;
      const projectId = (ctx.params as Record<string, string> | undefined)?.projectId;
      if (principal?.accessToken && principal.developer && projectId) {
        record(
          {
            projectId,
            method: ctx.method,
            path: ctx.path,
            status: ctx.status,
            durationMs: Math.round((performance.now() - started) * 100) / 100,
            keyKind: 'accessToken',
            userId: null,
            requestId,
            at: Date.now(),
            accessToken: principal.accessToken.prefix,
          },
          principal.developer.id,
          principal.accessToken.projectIds,
        );
      }
    }
  };
}
