// End users of a project: documents of the `users` collection in the project's database, with the
// same system fields as every document (isDeleted, deletedAt, createdAt, updatedAt). The password
// hash is split off here and only the auth service sees it. On a project's own database every
// operation runs under its deadline (external-deadline.ts): a 504 EXTERNAL_DB_TIMEOUT past it.
import { BSON, type Collection, type Db, type Document as MongoDocument } from 'mongodb';
import { abortable, underDeadline } from './external-deadline.js';
import { ObjectId, toObjectId } from './ids.js';
import { duplicateKeyField, isDuplicateKey } from './errors.js';
import { uniqueIndexSpec } from './project-indexes.js';

export const USERS_COLLECTION = 'users';

/** A user document as the services see it: `_id` as a hex string, without the password hash. */
const ACTIVE = { isDeleted: { $ne: true } };

export type UserRecord = Record<string, unknown> & { _id: string; email: string };

export interface UserIdentity {
  provider: string;
  id: string;
}

/** The management list: an email prefix (lowercase), a text in the email or name, the disabled
 * state; newest first. */
export interface UserListQuery {
  emailPrefix?: string;
  contains?: string;
  disabled?: boolean;
  skip: number;
  limit: number;
}

/** `bytes`: how much the write changed the stored size (an insert: the whole document). */
export type UserWrite =
  { ok: true; user: UserRecord; bytes: number } | { ok: false; duplicateField: string | undefined };

const escapeRegex = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function listFilter(query: Pick<UserListQuery, 'emailPrefix' | 'contains' | 'disabled'>): MongoDocument {
  const filter: MongoDocument = { ...ACTIVE };
  // Anchored prefix on the lowercased address: served by the email index.
  if (query.emailPrefix) filter.email = { $regex: `^${escapeRegex(query.emailPrefix)}` };
  // The user's text as a literal (escaped, so no pattern can backtrack), anywhere, any case.
  if (query.contains) {
    const text = { $regex: escapeRegex(query.contains), $options: 'i' };
    filter.$or = [{ email: text }, { name: text }];
  }
  if (query.disabled !== undefined) filter.disabled = query.disabled ? true : { $ne: true };
  return filter;
}

function toRecord(doc: MongoDocument): { user: UserRecord; passwordHash: string | undefined } {
  const { _id, password, ...rest } = doc;
  return {
    user: { _id: (_id as ObjectId).toHexString(), ...rest } as UserRecord,
    passwordHash: typeof password === 'string' ? password : undefined,
  };
}

/** The id and time of a user about to be created, when the caller announced them first. */
export interface NewUserIdentity {
  id: string;
  at: Date;
}

function newUser(fields: Record<string, unknown>, passwordHash: string, known?: NewUserIdentity) {
  const now = known?.at ?? new Date();
  return {
    ...fields,
    _id: known ? new ObjectId(known.id) : new ObjectId(),
    password: passwordHash,
    isDeleted: false,
    deletedAt: null,
    createdAt: now,
    updatedAt: now,
  };
}

export function usersRepo(projectDb: (projectId: string) => Db | Promise<Db>) {
  // createIndex is idempotent but costs a round trip: once per project database and process is
  // enough (a project that moves to its own database gets them there too).
  const indexed = new Map<string, Promise<void>>();

  /** Runs `op` on the project's users, under its own database's deadline when it has one. */
  async function onUsers<T>(projectId: string, op: (users: Collection, options: object) => Promise<T>) {
    const db = await projectDb(projectId);
    const users = db.collection(USERS_COLLECTION);
    return underDeadline(db, (signal) => op(users, abortable(signal)));
  }

  async function ensureIndexes(projectId: string): Promise<void> {
    const key = `${projectId}:${(await projectDb(projectId)).databaseName}`;
    let done = indexed.get(key);
    if (!done) {
      done = (async () => {
        const { key: emailKey, ...emailOptions } = uniqueIndexSpec('email');
        for (const [key, options] of [
          [emailKey, emailOptions],
          [{ 'identities.provider': 1, 'identities.id': 1 }, { name: 'identities' }],
        ] as const) {
          try {
            await onUsers(projectId, (users, deadline) =>
              users.createIndex(key, { ...options, ...deadline }),
            );
          } catch (err) {
            // 85/86: an index on these keys exists already under other options (the collections
            // service may have made `email` unique itself); it serves the same purpose.
            const code = (err as { code?: number }).code;
            if (code !== 85 && code !== 86) throw err;
          }
        }
      })();
      indexed.set(key, done);
      done.catch(() => indexed.delete(key));
    }
    return done;
  }

  async function findOne(projectId: string, filter: MongoDocument) {
    const doc = await onUsers(projectId, (users, deadline) =>
      users.findOne({ ...filter, ...ACTIVE }, deadline),
    );
    return doc ? toRecord(doc) : undefined;
  }

  /** A user document's size exactly as stored (read raw); 0 when there is none. */
  async function storedSize(projectId: string, _id: ObjectId): Promise<number> {
    const [before] = await onUsers(projectId, (users, deadline) =>
      users.find({ _id }, { raw: true, ...deadline }).toArray(),
    );
    return before ? (before as unknown as Uint8Array).length : 0;
  }

  async function writeResult(
    write: () => Promise<MongoDocument | null>,
    bytes: (doc: MongoDocument) => number,
  ): Promise<UserWrite | undefined> {
    try {
      const doc = await write();
      return doc ? { ok: true, user: toRecord(doc).user, bytes: bytes(doc) } : undefined;
    } catch (err) {
      if (isDuplicateKey(err)) return { ok: false, duplicateField: duplicateKeyField(err) } as const;
      throw err;
    }
  }

  return {
    ensureIndexes,

    /** The stored size the user document `insert` would write (for the quota check before it). */
    sizeOfNew: (fields: Record<string, unknown>, passwordHash: string) =>
      BSON.calculateObjectSize(newUser(fields, passwordHash)),

    /**
     * Inserts a user (with the id and time given in `known`, announced before); `duplicateField`
     * names the unique field already taken (`email`, ...).
     */
    async insert(
      projectId: string,
      fields: Record<string, unknown>,
      passwordHash: string,
      known?: NewUserIdentity,
    ): Promise<UserWrite> {
      await ensureIndexes(projectId);
      const doc = newUser(fields, passwordHash, known);
      const result = await writeResult(
        async () => {
          await onUsers(projectId, (users, deadline) => users.insertOne(doc, deadline));
          return doc;
        },
        (written) => BSON.calculateObjectSize(written),
      );
      return result!;
    },

    findById(projectId: string, id: string) {
      const _id = toObjectId(id);
      return _id ? findOne(projectId, { _id }) : Promise.resolve(undefined);
    },
    findByEmail: (projectId: string, email: string) => findOne(projectId, { email }),
    findByIdentity: (projectId: string, identity: UserIdentity) =>
      findOne(projectId, { identities: { $elemMatch: { provider: identity.provider, id: identity.id } } }),
    findByUsername: (projectId: string, username: string) => findOne(projectId, { username }),

    /** A page of users for the management endpoints (one more than `limit` tells whether more follow). */
    async list(projectId: string, query: UserListQuery): Promise<UserRecord[]> {
      const docs = await onUsers(projectId, (users, deadline) =>
        users
          .find(listFilter(query), { projection: { password: 0 }, ...deadline })
          .sort({ _id: -1 })
          .skip(query.skip)
          .limit(query.limit)
          .toArray(),
      );
      return docs.map((doc) => toRecord(doc).user);
    },

    count: async (projectId: string, query: Pick<UserListQuery, 'emailPrefix' | 'disabled'>) =>
      onUsers(projectId, (users, deadline) => users.countDocuments(listFilter(query), deadline)),

    /**
     * Disables (with the time) or enables a user, with how much that changed the stored size
     * (`disabled` and `disabledAt` come and go); undefined when the user is gone.
     */
    async setDisabled(
      projectId: string,
      id: string,
      disabled: boolean,
    ): Promise<{ user: UserRecord; bytes: number } | undefined> {
      const _id = toObjectId(id);
      if (!_id) return undefined;
      const now = new Date();
      const update = disabled
        ? { $set: { disabled: true, disabledAt: now, updatedAt: now } }
        : { $set: { updatedAt: now }, $unset: { disabled: '', disabledAt: '' } };
      const sizeBefore = await storedSize(projectId, _id);
      const doc = await onUsers(projectId, (users, deadline) =>
        users.findOneAndUpdate({ _id, ...ACTIVE }, update, { returnDocument: 'after', ...deadline }),
      );
      return doc
        ? { user: toRecord(doc).user, bytes: BSON.calculateObjectSize(doc) - sizeBefore }
        : undefined;
    },

    /**
     * Removes the user document for good; returns it with its stored size (given back to the
     * quota), or undefined when there was none.
     */
    async remove(projectId: string, id: string): Promise<{ user: UserRecord; bytes: number } | undefined> {
      const _id = toObjectId(id);
      const doc =
        _id && (await onUsers(projectId, (users, deadline) => users.findOneAndDelete({ _id }, deadline)));
      return doc ? { user: toRecord(doc).user, bytes: BSON.calculateObjectSize(doc) } : undefined;
    },

    /**
     * Sets fields of an active user (keys may be dot paths) and pushes an identity; undefined when
     * the user is gone.
     */
    async update(
      projectId: string,
      id: string,
      changes: { set?: Record<string, unknown>; passwordHash?: string; addIdentity?: UserIdentity },
    ): Promise<UserWrite | undefined> {
      const _id = toObjectId(id);
      if (!_id) return undefined;
      const $set: Record<string, unknown> = { ...changes.set, updatedAt: new Date() };
      if (changes.passwordHash !== undefined) $set.password = changes.passwordHash;
      const update: MongoDocument = { $set };
      if (changes.addIdentity) update.$push = { identities: changes.addIdentity };
      // The size before is read first (raw, so exactly as stored); a write of the same user
      // racing in between blurs the difference, which the usage recount corrects.
      const sizeBefore = await storedSize(projectId, _id);
      return writeResult(
        () =>
          onUsers(projectId, (users, deadline) =>
            users.findOneAndUpdate({ _id, ...ACTIVE }, update, { returnDocument: 'after', ...deadline }),
          ),
        (after) => BSON.calculateObjectSize(after) - sizeBefore,
      );
    },
  };
}

export type UsersRepo = ReturnType<typeof usersRepo>;
