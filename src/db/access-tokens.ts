// Developers' personal access tokens for the dashboard API (platform database): one record per
// token, found by the SHA-256 of the token (the token itself is never stored). A record is kept
// for 30 days past its expiry or revocation, so that a use of it then is answered "expired" or
// "revoked" rather than "unknown"; the TTL index removes it after that.
import type { Db } from 'mongodb';
import { ObjectId, toObjectId } from './ids.js';
import { registerPlatformIndexes } from './platform.js';

export type AccessTokenScope = 'read' | 'write';

interface AccessTokenDoc {
  _id: ObjectId;
  developerId: ObjectId;
  name: string;
  /** The token's first characters, to recognise it in a list. */
  prefix: string;
  hash: string;
  scope: AccessTokenScope;
  /** Null: every project the developer is a member of. */
  projectIds: string[] | null;
  createdAt: Date;
  expiresAt: Date;
  lastUsedAt: Date | null;
  revokedAt: Date | null;
  /** Set when every token of the account was revoked by a password change. */
  revokedByPasswordChange?: boolean;
  /** When the TTL index removes the record: 30 days after expiry, or after revocation. */
  purgeAt: Date;
}

/** A token as the service sees it: never its hash. */
export type AccessToken = Omit<AccessTokenDoc, '_id' | 'developerId' | 'hash' | 'purgeAt'> & {
  id: string;
  developerId: string;
};

const KEPT_AFTER_END_MS = 30 * 24 * 3600 * 1000;
const COLLECTION = 'accessTokens';

registerPlatformIndexes(COLLECTION, [
  { key: { hash: 1 }, name: 'u_hash', unique: true },
  { key: { developerId: 1, createdAt: -1 }, name: 'developer_created' },
  { key: { purgeAt: 1 }, name: 'ttl_purgeAt', expireAfterSeconds: 0 },
]);

const toToken = ({
  _id,
  developerId,
  hash: _hash,
  purgeAt: _purge,
  ...rest
}: AccessTokenDoc): AccessToken => ({
  id: _id.toHexString(),
  developerId: developerId.toHexString(),
  ...rest,
});

export function accessTokensRepo(db: Db) {
  const tokens = db.collection<AccessTokenDoc>(COLLECTION);
  return {
    async create(input: {
      developerId: string;
      name: string;
      prefix: string;
      hash: string;
      scope: AccessTokenScope;
      projectIds: string[] | null;
      expiresAt: Date;
    }): Promise<AccessToken> {
      const doc: AccessTokenDoc = {
        _id: new ObjectId(),
        ...input,
        developerId: new ObjectId(input.developerId),
        createdAt: new Date(),
        lastUsedAt: null,
        revokedAt: null,
        purgeAt: new Date(input.expiresAt.getTime() + KEPT_AFTER_END_MS),
      };
      await tokens.insertOne(doc);
      return toToken(doc);
    },

    async countLive(developerId: string): Promise<number> {
      return tokens.countDocuments({
        developerId: new ObjectId(developerId),
        revokedAt: null,
        expiresAt: { $gt: new Date() },
      });
    },

    /** The developer's tokens, newest first, revoked and expired ones included while kept. */
    async list(developerId: string): Promise<AccessToken[]> {
      const docs = await tokens
        .find({ developerId: new ObjectId(developerId) })
        .sort({ createdAt: -1 })
        .toArray();
      return docs.map(toToken);
    },

    async findByHash(hash: string): Promise<AccessToken | undefined> {
      const doc = await tokens.findOne({ hash });
      return doc ? toToken(doc) : undefined;
    },

    /** Revokes one of the developer's tokens; false when it is not theirs or already revoked. */
    async revoke(developerId: string, id: string): Promise<boolean> {
      const _id = toObjectId(id);
      if (!_id) return false;
      const now = new Date();
      const result = await tokens.updateOne(
        { _id, developerId: new ObjectId(developerId), revokedAt: null },
        { $set: { revokedAt: now, purgeAt: new Date(now.getTime() + KEPT_AFTER_END_MS) } },
      );
      return result.modifiedCount === 1;
    },

    /** Revokes every live token of the developer (a password change); how many there were. */
    async revokeAll(developerId: string): Promise<number> {
      const now = new Date();
      const result = await tokens.updateMany(
        { developerId: new ObjectId(developerId), revokedAt: null },
        {
          $set: {
            revokedAt: now,
            revokedByPasswordChange: true,
            purgeAt: new Date(now.getTime() + KEPT_AFTER_END_MS),
          },
        },
      );
      return result.modifiedCount;
    },

    async touch(id: string, at: Date): Promise<void> {
      await tokens.updateOne({ _id: new ObjectId(id) }, { $set: { lastUsedAt: at } });
    },
  };
}

export type AccessTokensRepo = ReturnType<typeof accessTokensRepo>;
