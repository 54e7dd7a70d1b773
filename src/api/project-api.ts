// A project's own OpenAPI document: GET /api/openapi.json on the public API (the key's project)
// and GET /api/projects/{projectId}/openapi.json on the dashboard (members). The body is sent as
// the bytes the service keeps, so a request does not serialise the document again.
import type { operations as PublicOperations } from '../../generated/public.js';
import type { operations as DashboardOperations } from '../../generated/dashboard.js';
import type { Handler, HandlerInput } from '../http/types.js';
import type { Services } from '../services/index.js';
import { matchesETag, type ProjectApiDocument } from '../services/project-api/index.js';

type Answer = { status: 200 | 304; body: never; headers: Record<string, string> };

function answer(doc: ProjectApiDocument, headers: HandlerInput<unknown>['headers']): Answer {
  const given = headers['if-none-match'];
  const common = { etag: doc.etag, 'cache-control': 'private, no-cache' };
  if (matchesETag(Array.isArray(given) ? given.join(',') : given, doc.etag)) {
    return { status: 304, body: undefined as never, headers: common };
  }
  // The bytes go out as they are; the content type must then be set here.
  return { status: 200, body: doc.body as never, headers: { ...common, 'content-type': 'application/json' } };
}

export function publicProjectApiHandlers({ projectApi }: Services) {
  const getProjectApiDocument: Handler<PublicOperations['getProjectApiDocument']> = async (input, ctx) =>
    answer(await projectApi.forKey(ctx), input.headers);
  return { getProjectApiDocument };
}

export function dashboardProjectApiHandlers({ projectApi }: Services) {
  const getProjectOpenApiDocument: Handler<DashboardOperations['getProjectOpenApiDocument']> = async (
    input,
    ctx,
  ) => answer(await projectApi.forMember(ctx, input.params.projectId), input.headers);
  return { getProjectOpenApiDocument };
}
