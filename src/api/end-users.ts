// End-user management: the dashboard's /api/projects/{projectId}/users (members read, admins
// change) and the public API's /api/users (secret key). Both resolve the project, then call the
// same end-users service.
import type { operations as Dash } from '../../generated/dashboard.js';
import type { operations as Pub } from '../../generated/public.js';
import type { Handler } from '../http/types.js';
import type { Services } from '../services/index.js';
import { secretKeyProject } from '../services/collections.js';
import type { RequestContext } from '../services/context.js';
import type { MemberRole, Project } from '../services/types.js';

type Service = Services['endUsers'];
type Resolve<P> = (params: P, ctx: RequestContext, role: MemberRole) => Promise<Project>;

const ok = <T>(data: T, message = '') => ({ success: true as const, data, message });

/** The handlers of one API: `resolve` finds the project (and checks the caller's rights). */
function handlersFor<P>(service: Service, resolve: Resolve<P>) {
  return {
    async list(params: P, query: Parameters<Service['list']>[1], ctx: RequestContext) {
      const { users, pagination } = await service.list(await resolve(params, ctx, 'member'), query);
      return { status: 200 as const, body: { ...ok(users), pagination } };
    },
    async get(params: P & { userId: string }, ctx: RequestContext) {
      const user = await service.get(await resolve(params, ctx, 'member'), params.userId);
      return { status: 200 as const, body: ok(user) };
    },
    async update(params: P & { userId: string }, body: Record<string, unknown>, ctx: RequestContext) {
      const user = await service.update(await resolve(params, ctx, 'admin'), params.userId, body);
      return { status: 200 as const, body: ok(user, 'Updated') };
    },
    async delete(params: P & { userId: string }, documents: boolean | undefined, ctx: RequestContext) {
      const project = await resolve(params, ctx, 'admin');
      const result = await service.delete(project, params.userId, { documents });
      return { status: 200 as const, body: ok(result, 'User deleted') };
    },
    async setDisabled(params: P & { userId: string }, disabled: boolean, ctx: RequestContext) {
      const user = await service.setDisabled(await resolve(params, ctx, 'admin'), params.userId, disabled);
      return { status: 200 as const, body: ok(user, disabled ? 'User disabled' : 'User enabled') };
    },
    async revokeSessions(params: P & { userId: string }, ctx: RequestContext) {
      const result = await service.revokeSessions(await resolve(params, ctx, 'admin'), params.userId);
      return { status: 200 as const, body: ok(result, 'Sessions revoked') };
    },
  };
}

export function dashboardEndUserHandlers({ endUsers, projects }: Services) {
  const h = handlersFor<{ projectId: string }>(endUsers, (params, ctx, role) =>
    projects.requireAccess(ctx, params.projectId, role),
  );
  const listProjectUsers: Handler<Dash['listProjectUsers']> = ({ params, query }, ctx) =>
    h.list(params, query, ctx);
  const getProjectUser: Handler<Dash['getProjectUser']> = ({ params }, ctx) => h.get(params, ctx);
  const updateProjectUser: Handler<Dash['updateProjectUser']> = ({ params, body }, ctx) =>
    h.update(params, body, ctx);
  const deleteProjectUser: Handler<Dash['deleteProjectUser']> = ({ params, query }, ctx) =>
    h.delete(params, query.documents, ctx);
  const disableProjectUser: Handler<Dash['disableProjectUser']> = ({ params }, ctx) =>
    h.setDisabled(params, true, ctx);
  const enableProjectUser: Handler<Dash['enableProjectUser']> = ({ params }, ctx) =>
    h.setDisabled(params, false, ctx);
  const revokeProjectUserSessions: Handler<Dash['revokeProjectUserSessions']> = ({ params }, ctx) =>
    h.revokeSessions(params, ctx);
  return {
    listProjectUsers,
    getProjectUser,
    updateProjectUser,
    deleteProjectUser,
    disableProjectUser,
    enableProjectUser,
    revokeProjectUserSessions,
  };
}

export function publicEndUserHandlers({ endUsers }: Services) {
  const h = handlersFor<object>(endUsers, async (_params, ctx) => secretKeyProject(ctx));
  const listUsers: Handler<Pub['listUsers']> = ({ query }, ctx) => h.list({}, query, ctx);
  const getUser: Handler<Pub['getUser']> = ({ params }, ctx) => h.get(params, ctx);
  const updateUser: Handler<Pub['updateUser']> = ({ params, body }, ctx) => h.update(params, body, ctx);
  const deleteUser: Handler<Pub['deleteUser']> = ({ params, query }, ctx) =>
    h.delete(params, query.documents, ctx);
  const disableUser: Handler<Pub['disableUser']> = ({ params }, ctx) => h.setDisabled(params, true, ctx);
  const enableUser: Handler<Pub['enableUser']> = ({ params }, ctx) => h.setDisabled(params, false, ctx);
  const revokeUserSessions: Handler<Pub['revokeUserSessions']> = ({ params }, ctx) =>
    h.revokeSessions(params, ctx);
  return { listUsers, getUser, updateUser, deleteUser, disableUser, enableUser, revokeUserSessions };
}
