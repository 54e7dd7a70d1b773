// End users count against the project's `databaseUsed` like any document (DECISIONS §5): every
// write through the users repository charges what it changed, and a new account is refused with
// 403 QUOTA_EXCEEDED when it would take the project over its database size, and so is a profile
// change that would grow it past that size.
import type { UserRecord, UsersRepo, UserWrite } from '../../db/users.js';
import { applySet } from '../data/update-preview.js';
import type { DatabaseQuota } from '../data/quota.js';
import type { Project } from '../types.js';

/** The users repository, charging each successful insert, update and (en|dis)abling to the project's counter. */
export function chargedUsers(users: UsersRepo, quota: DatabaseQuota): UsersRepo {
  const charged = async <T extends UserWrite | undefined>(projectId: string, result: T) => {
    if (result?.ok) await quota.chargeProject(projectId, result.bytes);
    return result;
  };
  return {
    ...users,
    insert: async (projectId, fields, passwordHash, known) =>
      charged(projectId, await users.insert(projectId, fields, passwordHash, known)),
    update: async (projectId, id, changes) => charged(projectId, await users.update(projectId, id, changes)),
    setDisabled: async (projectId, id, disabled) => {
      const result = await users.setDisabled(projectId, id, disabled);
      if (result) await quota.chargeProject(projectId, result.bytes);
      return result;
    },
  };
}

/** Throws 403 QUOTA_EXCEEDED when a new user with these fields does not fit in the project. */
export const assertRoomForUser = (
  users: UsersRepo,
  quota: DatabaseQuota,
  project: Project,
  fields: Record<string, unknown>,
  passwordHash: string,
) => quota.assertRoom(project, users.sizeOfNew(fields, passwordHash));

/** Throws 403 QUOTA_EXCEEDED when setting these fields would take the project over its database size. */
export function assertRoomForChange(
  users: UsersRepo,
  quota: DatabaseQuota,
  project: Project,
  user: UserRecord,
  set: Record<string, unknown>,
) {
  const growth = users.sizeOfNew(applySet(user, set), '') - users.sizeOfNew(user, '');
  return quota.assertRoom(project, growth);
}
