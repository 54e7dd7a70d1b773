// `populate=a,b`: replaces Ref values (or Arrays of Refs) by the referenced documents, with one
// batched `$in` query per field, read under the target collection's RLS and trash rules. A
// reference that does not resolve, or that the caller may not see, becomes null. Populated users
// carry only their public profile for the publishable key (as `GET /api/userAuth/public/...`
// shows it); the secret key gets the schema's fields but `password` and private ones.
import { badRequest } from '../../http/errors.js';
import { toObjectId } from '../../db/ids.js';
import type { DocumentsRepo, StoredDocument } from '../../db/documents.js';
import type { CollectionDef } from '../types.js';
import { readScope, USERS_COLLECTION, type Caller, type DefinitionLookup } from './access.js';
import { allOf, type Condition } from './filters.js';
import { PUBLIC_PROFILE_FIELDS } from '../user-auth/fields.js';

interface PopulateField {
  name: string;
  target: string;
  many: boolean;
}

const HEX_ID = /^[0-9a-f]{24}$/i;
const USER_SECRET_FIELDS: ReadonlySet<string> = new Set(['password']);

/** The populate fields, checked against the definition: top-level Ref fields naming a target. */
export function populateFields(def: CollectionDef, names: string[]): PopulateField[] {
  return names.map((name) => {
    const field = def.fields.find((f) => f.name === name);
    const many = field?.type === 'Array' && field.items?.type === 'Ref';
    const target = many ? field.items?.ref : field?.type === 'Ref' ? field.ref : undefined;
    if (!field || (field.type !== 'Ref' && !many)) {
      throw badRequest(
        `Cannot populate "${name}": it is not a Ref field of this collection`,
        undefined,
        'INVALID_POPULATE',
      );
    }
    if (!target) {
      throw badRequest(
        `Cannot populate "${name}": the field names no target collection`,
        undefined,
        'INVALID_POPULATE',
      );
    }
    return { name, target, many };
  });
}

/**
 * The projection of a populated user. Publishable key (whoever runs the app, signed in or not):
 * the public profile less private fields; every other field of a user (a `plan`, a `credits`
 * count) stays between the user and the developer. Secret key: `_id`, timestamps and the schema
 * fields but secret and private ones.
 */
function userProjection(users: CollectionDef, caller: Caller): Record<string, 1> {
  const hidden = new Set(users.fields.filter((f) => f.private).map((f) => f.name));
  if (caller.keyKind !== 'secret') {
    return Object.fromEntries(PUBLIC_PROFILE_FIELDS.filter((name) => !hidden.has(name)).map((n) => [n, 1]));
  }
  const projection: Record<string, 1> = { _id: 1, createdAt: 1, updatedAt: 1 };
  for (const field of users.fields) {
    if (USER_SECRET_FIELDS.has(field.name) || hidden.has(field.name)) continue;
    projection[field.name] = 1;
  }
  return projection;
}

/** The condition a populated target is read under, or null when the caller can see none of it. */
function targetScope(target: CollectionDef, caller: Caller): Condition | null | undefined {
  if (target.name === USERS_COLLECTION) return undefined;
  try {
    return readScope({ def: target, caller });
  } catch {
    return null; // private target without a token: nothing of it is visible
  }
}

export async function populate(
  docs: StoredDocument[],
  fields: PopulateField[],
  context: {
    caller: Caller;
    definitions: DefinitionLookup;
    repo: DocumentsRepo;
    trim: (doc: StoredDocument) => void;
  },
): Promise<void> {
  const { caller, definitions, repo } = context;
  for (const field of fields) {
    const ids = new Set<string>();
    for (const doc of docs) {
      const value = doc[field.name];
      for (const id of Array.isArray(value) ? value : [value]) {
        if (typeof id === 'string' && HEX_ID.test(id)) ids.add(id.toLowerCase());
      }
    }
    const found = new Map<string, StoredDocument>();
    const target = ids.size ? await definitions(caller.project.id, field.target) : undefined;
    const scope = target && targetScope(target, caller);
    if (target && scope !== null) {
      const conditions: Condition[] = [
        { _id: { $in: [...ids].map((id) => toObjectId(id)!) } },
        { isDeleted: { $ne: true } },
      ];
      if (scope) conditions.push(scope);
      const projection = target.name === USERS_COLLECTION ? userProjection(target, caller) : undefined;
      const rows = await repo.find(
        { projectId: caller.project.id, collection: target.name },
        { filter: allOf(conditions), projection, limit: ids.size },
      );
      for (const row of rows) {
        context.trim(row);
        found.set(row._id, row);
      }
    }
    const resolve = (id: unknown) => (typeof id === 'string' ? (found.get(id.toLowerCase()) ?? null) : null);
    for (const doc of docs) {
      const value = doc[field.name];
      if (value === undefined || value === null) continue;
      doc[field.name] = field.many && Array.isArray(value) ? value.map(resolve) : resolve(value);
    }
  }
}
