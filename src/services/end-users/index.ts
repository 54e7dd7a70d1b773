// End users as the developer manages them (dashboard members and admins, or the secret key): list
// and search by email, read, set fields (protected ones included), disable and enable, sign out
// everywhere, and delete, optionally erasing what the user owns. A disabled user cannot log in or
// refresh, and their access tokens are refused at once (see revocations.ts).
import { badRequest, conflict, notFound } from '../../http/errors.js';
import { isObjectId } from '../../db/ids.js';
import type { UsersRepo, UserRecord } from '../../db/users.js';
import type { AuthTokensRepo } from '../../db/auth-tokens.js';
import type { CollectionsRepo } from '../../db/collections.js';
import type { DocumentsRepo } from '../../db/documents.js';
import type { ProjectsRepo } from '../../db/projects.js';
import type { CollectionDef, Project } from '../types.js';
import { validateDocument } from '../schema/validate-document.js';
import { AUTH_MANAGED_FIELDS, userView } from '../user-auth/fields.js';
import type { TokenRevocations } from './revocations.js';

export const MAX_LIMIT = 1000;
export const DEFAULT_LIMIT = 100;

export interface EndUsersDeps {
  users: UsersRepo;
  authTokens: AuthTokensRepo;
  revocations: TokenRevocations;
  findUsersDefinition: (projectId: string) => Promise<CollectionDef | undefined>;
  collections: Pick<CollectionsRepo, 'list'>;
  documents: Pick<DocumentsRepo, 'deleteOwned'>;
  projects: Pick<ProjectsRepo, 'addDatabaseUsed'>;
  deleteUserFiles: (projectId: string, userId: string) => Promise<number>;
  /** Takes erased documents out of webhook payloads (queued and logged deliveries). */
  redactWebhookPayloads: (projectId: string, collection: string, documentIds: string[]) => Promise<number>;
}

export interface UserListOptions {
  email?: string;
  search?: string;
  disabled?: boolean;
  page?: number;
  limit?: number;
  total?: boolean;
}

/** What the management endpoints show of a user: every stored field but the password hash. */
export const managedUserView = (user: UserRecord) => ({
  ...userView(user),
  _id: user._id,
  email: user.email,
  disabled: user.disabled === true,
});

const userNotFound = () => notFound('User not found', 'USER_NOT_FOUND');

function checkUserId(id: string): string {
  if (!isObjectId(id)) throw badRequest('Invalid user ID', undefined, 'INVALID_USER_ID');
  return id.toLowerCase();
}

/** Fields the management PATCH may not set: the auth service's own (emailVerified excepted). */
function refuseManaged(body: Record<string, unknown>): void {
  for (const key of Object.keys(body)) {
    const field = key.split('.')[0]!;
    if (field === 'emailVerified' && key === field) {
      if (typeof body[key] !== 'boolean') {
        throw badRequest('emailVerified must be a boolean', [
          { path: 'body.emailVerified', message: 'must be a boolean' },
        ]);
      }
      continue;
    }
    if (AUTH_MANAGED_FIELDS.has(field)) {
      const message = `${key} cannot be set here`;
      throw badRequest(message, [{ path: `body.${key}`, message }], 'FIELD_NOT_ALLOWED');
    }
  }
}

export function endUsersService(deps: EndUsersDeps) {
  const { users, authTokens, revocations } = deps;

  async function usersDefinition(project: Project): Promise<CollectionDef> {
    const def = await deps.findUsersDefinition(project.id);
    if (!def) {
      throw badRequest(
        'This project has no users collection; create one in the dashboard',
        undefined,
        'USERS_COLLECTION_MISSING',
      );
    }
    return def;
  }

  async function requireUser(project: Project, id: string): Promise<UserRecord> {
    await usersDefinition(project);
    const found = await users.findById(project.id, checkUserId(id));
    if (!found) throw userNotFound();
    return found.user;
  }

  /** Revokes every refresh family and voids the access tokens issued so far. */
  async function signOut(projectId: string, userId: string): Promise<number> {
    const revoked = await authTokens.revokeUserFamilies(projectId, userId);
    await revocations.revoke(projectId, userId);
    return revoked;
  }

  async function eraseOwned(projectId: string, userId: string) {
    const documents: Record<string, number> = {};
    let bytes = 0;
    for (const def of await deps.collections.list(projectId)) {
      if (!def.rls.enabled || def.name === 'users') continue;
      const result = await deps.documents.deleteOwned(
        { projectId, collection: def.name },
        def.rls.ownerField,
        userId,
      );
      documents[def.name] = result.removed;
      bytes += result.bytes;
      await deps.redactWebhookPayloads(projectId, def.name, result.ids);
    }
    await deps.projects.addDatabaseUsed(projectId, -bytes);
    return { documents, files: await deps.deleteUserFiles(projectId, userId) };
  }

  return {
    async list(project: Project, options: UserListOptions) {
      await usersDefinition(project);
      const page = options.page ?? 1;
      const limit = Math.min(options.limit ?? DEFAULT_LIMIT, MAX_LIMIT);
      const query = {
        emailPrefix: options.email?.trim().toLowerCase() || undefined,
        contains: options.search?.trim() || undefined,
        disabled: options.disabled,
      };
      const rows = await users.list(project.id, { ...query, skip: (page - 1) * limit, limit: limit + 1 });
      const hasMore = rows.length > limit;
      const total = options.total ? await users.count(project.id, query) : undefined;
      return {
        users: rows.slice(0, limit).map(managedUserView),
        pagination: { page, limit, hasMore, nextCursor: null, ...(total === undefined ? {} : { total }) },
      };
    },

    get: async (project: Project, id: string) => managedUserView(await requireUser(project, id)),

    /** Sets fields as the developer: validated by the users schema, protected fields allowed. */
    async update(project: Project, id: string, body: Record<string, unknown>) {
      const def = await usersDefinition(project);
      const userId = checkUserId(id);
      refuseManaged(body);
      // emailVerified belongs to the auth service, not to the users schema.
      const { emailVerified, ...fields } = body;
      const set = validateDocument(def, fields, 'update');
      if (emailVerified !== undefined) set.emailVerified = emailVerified;
      const result = await users.update(project.id, userId, { set });
      if (!result) throw userNotFound();
      if (!result.ok) {
        const field = result.duplicateField ?? 'a unique field';
        throw conflict(`A user with this ${field} already exists`, 'DUPLICATE_VALUE', [
          { path: `body.${field}`, message: `${field} must be unique` },
        ]);
      }
      return managedUserView(result.user);
    },

    /** Disables the user and signs them out everywhere at once. */
    async setDisabled(project: Project, id: string, disabled: boolean) {
      await usersDefinition(project);
      const user = (await users.setDisabled(project.id, checkUserId(id), disabled))?.user;
      if (!user) throw userNotFound();
      if (disabled) await signOut(project.id, user._id);
      return managedUserView(user);
    },

    async revokeSessions(project: Project, id: string) {
      const user = await requireUser(project, id);
      return { revokedSessions: await signOut(project.id, user._id) };
    },

    /**
     * Deletes the user document for good with the auth secrets kept for it. With `documents`,
     * also erases every document the user owns (the owner field of each collection with RLS) and
     * the files they uploaded, giving the quota back. The user's data leaves the webhook payloads
     * of the outbox and the delivery log too (their user document always, their documents when erased).
     */
    async delete(project: Project, id: string, options: { documents?: boolean }) {
      const user = await requireUser(project, id);
      await signOut(project.id, user._id);
      const erased = options.documents ? await eraseOwned(project.id, user._id) : undefined;
      const removed = await users.remove(project.id, user._id);
      if (!removed) throw userNotFound();
      await deps.projects.addDatabaseUsed(project.id, -removed.bytes);
      await authTokens.deleteUserSecrets(project.id, user._id, user.email);
      await deps.redactWebhookPayloads(project.id, 'users', [user._id]);
      return { id: user._id, deletedAt: new Date().toISOString(), ...(erased ? { erased } : {}) };
    },
  };
}

export type EndUsersService = ReturnType<typeof endUsersService>;
