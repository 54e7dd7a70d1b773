// A project's own database: the dashboard setting (project admins) and the public role's
// internal half of its verification (dashboard service only, shared secret).
import type { operations as DashboardOps } from '../../generated/dashboard.js';
import type { operations as PublicOps } from '../../generated/public.js';
import { unauthorized } from '../http/errors.js';
import type { Handler } from '../http/types.js';
import type { Services } from '../services/index.js';

export function externalDatabaseHandlers({ projects, externalDb }: Services) {
  const getExternalDatabase: Handler<DashboardOps['getExternalDatabase']> = async ({ params }, ctx) => {
    const project = await projects.requireAccess(ctx, params.projectId, 'admin');
    return { status: 200, body: { success: true, data: await externalDb.get(project), message: '' } };
  };

  const setExternalDatabase: Handler<DashboardOps['setExternalDatabase']> = async ({ params, body }, ctx) => {
    const project = await projects.requireAccess(ctx, params.projectId, 'admin');
    const data = await externalDb.set(project, body.uri);
    return { status: 200, body: { success: true, data, message: 'Database connection verified and saved' } };
  };

  const removeExternalDatabase: Handler<DashboardOps['removeExternalDatabase']> = async ({ params }, ctx) => {
    const project = await projects.requireAccess(ctx, params.projectId, 'admin');
    const data = await externalDb.remove(project.id);
    return { status: 200, body: { success: true, data, message: 'Back to the managed database' } };
  };

  return { getExternalDatabase, setExternalDatabase, removeExternalDatabase };
}

export function internalHandlers({ externalDb }: Services) {
  const verifyExternalDatabase: Handler<PublicOps['verifyExternalDatabase']> = async ({ body }, ctx) => {
    // The security resolver already refused other secrets; this keeps the handler safe on its own.
    if (!ctx.principal.internal) throw unauthorized('Internal endpoint', 'UNAUTHORIZED');
    const data = await externalDb.checkHere(body.uri);
    return { status: 200, body: { success: true, data, message: '' } };
  };
  return { verifyExternalDatabase };
}
