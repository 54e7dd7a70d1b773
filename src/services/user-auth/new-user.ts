// Creating an end user with its `user.created` event announced first, like a document write: the
// webhook outbox records an intent before the insert and confirms it after, so a process that dies
// between the two loses no event (the worker settles the intent, see webhooks/recovery.ts).
import { newId } from '../../db/ids.js';
import type { UserWrite } from '../../db/users.js';
import type { EventIntent } from '../events.js';
import type { CollectionDef } from '../types.js';
import { userView, withoutPrivateFields } from './fields.js';
import type { UserAuthKit } from './kit.js';

/** An end user as a `user.created` event carries it: no secret, no private field. */
export const eventUserView = (def: CollectionDef | undefined, user: Record<string, unknown>) =>
  def ? withoutPrivateFields(def, userView(user)) : userView(user);

export async function insertAnnounced(
  kit: Pick<UserAuthKit, 'users' | 'events'>,
  projectId: string,
  def: CollectionDef,
  fields: Record<string, unknown>,
  passwordHash: string,
): Promise<UserWrite> {
  const intent: EventIntent = {
    name: 'user.created',
    projectId,
    collection: 'users',
    documentId: newId(),
    at: new Date(),
  };
  const { result, announcement } = await kit.events.announced([intent], () =>
    kit.users.insert(projectId, fields, passwordHash, { id: intent.documentId, at: intent.at }),
  );
  if (!result.ok) {
    await announcement.abandon();
    return result;
  }
  await announcement.emit([{ ...intent, document: eventUserView(def, result.user) }]);
  return result;
}
