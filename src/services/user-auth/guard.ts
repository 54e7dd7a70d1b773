// Preconditions of every end-user auth endpoint: a project resolved from the API key, end-user
// auth switched on in its settings, and a `users` collection that honours the fixed contract.
import { badRequest, forbidden, unauthorized } from '../../http/errors.js';
import type { RequestContext } from '../context.js';
import type { CollectionDef, Project } from '../types.js';

/** A user disabled by the developer: no login, refresh or social sign-in until enabled again. */
export const userDisabled = () =>
  forbidden('This account has been disabled; contact the application', 'USER_DISABLED');

export type FindUsersDefinition = (projectId: string) => Promise<CollectionDef | undefined>;

export interface AuthScope {
  project: Project;
  users: CollectionDef;
}

const honoursContract = (def: CollectionDef) =>
  ['email', 'password'].every((name) => def.fields.some((f) => f.name === name && f.type === 'String'));

export function authGuard(findUsers: FindUsersDefinition) {
  async function scopeOf(project: Project): Promise<AuthScope> {
    if (!project.settings.endUserAuth) {
      throw forbidden(
        'End-user authentication is disabled for this project; enable it in the project settings',
        'END_USER_AUTH_DISABLED',
      );
    }
    const users = await findUsers(project.id);
    if (!users || !honoursContract(users)) {
      throw badRequest(
        'Create a users collection with email and password fields in the dashboard',
        undefined,
        'USERS_COLLECTION_MISSING',
      );
    }
    return { project, users };
  }

  return {
    scopeOf,
    /** The scope of the API key's project. */
    async scope(ctx: RequestContext): Promise<AuthScope> {
      if (!ctx.principal.project) throw unauthorized('Invalid API key', 'INVALID_API_KEY');
      return scopeOf(ctx.principal.project);
    },
    /** The scope plus the signed-in end user of the Bearer token. */
    async userScope(ctx: RequestContext): Promise<AuthScope & { userId: string }> {
      const scope = await this.scope(ctx);
      const endUser = ctx.principal.endUser;
      if (!endUser || endUser.projectId !== scope.project.id) {
        throw unauthorized('A Bearer access token is required', 'MISSING_TOKEN');
      }
      return { ...scope, userId: endUser.id };
    },
  };
}

export type AuthGuard = ReturnType<typeof authGuard>;
