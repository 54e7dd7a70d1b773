// End-user auth secrets in the platform database, every one stored hashed and expiring through a
// TTL index: refresh-token families, one-time codes (email verification, password reset) and the
// short-lived OAuth grants (login `state`, social exchange codes).
import type { Db } from 'mongodb';
import { registerPlatformIndexes } from './platform.js';

interface RefreshTokenDoc {
  _id: string; // hash of the token
  projectId: string;
  userId: string;
  familyId: string;
  createdAt: Date;
  expiresAt: Date;
  usedAt: Date | null;
  revokedAt: Date | null;
}

interface CodeDoc {
  _id: string; // projectId:purpose:email, so a new code replaces the previous one
  projectId: string;
  purpose: string;
  email: string;
  hash: string;
  attempts: number;
  createdAt: Date;
  expiresAt: Date;
}

export interface OAuthGrant {
  kind: 'state' | 'exchange';
  projectId: string;
  provider?: string;
  redirectUrl?: string;
  codeVerifier?: string;
  userId?: string;
  /** The app's own PKCE challenge (S256), when it sent one at start: the exchange needs its verifier. */
  appCodeChallenge?: string;
  /** Hash of the nonce the callback set in the browser's cookie: the exchange needs that cookie. */
  browserBinding?: string;
}

interface GrantDoc extends OAuthGrant {
  _id: string; // hash of the state or code
  expiresAt: Date;
}

const REFRESH = 'user_refresh_tokens';
const CODES = 'user_auth_codes';
const GRANTS = 'user_oauth_grants';
const ttl = { key: { expiresAt: 1 }, name: 'ttl_expiresAt', expireAfterSeconds: 0 };

registerPlatformIndexes(REFRESH, [
  ttl,
  { key: { familyId: 1 }, name: 'familyId' },
  { key: { projectId: 1, userId: 1 }, name: 'project_user' },
]);
registerPlatformIndexes(CODES, [ttl]);
registerPlatformIndexes(GRANTS, [ttl]);

export type RefreshUse =
  | { status: 'ok'; token: { userId: string; familyId: string } }
  | { status: 'reused'; familyId: string }
  | { status: 'invalid' };

export function authTokensRepo(db: Db) {
  const refresh = db.collection<RefreshTokenDoc>(REFRESH);
  const codes = db.collection<CodeDoc>(CODES);
  const grants = db.collection<GrantDoc>(GRANTS);

  return {
    async insertRefreshToken(input: {
      hash: string;
      projectId: string;
      userId: string;
      familyId: string;
      ttlMs: number;
    }): Promise<void> {
      const now = new Date();
      await refresh.insertOne({
        _id: input.hash,
        projectId: input.projectId,
        userId: input.userId,
        familyId: input.familyId,
        createdAt: now,
        expiresAt: new Date(now.getTime() + input.ttlMs),
        usedAt: null,
        revokedAt: null,
      });
    },

    /**
     * Spends a refresh token: one atomic update marks it used, so two concurrent uses cannot both
     * succeed. A token that exists but was already spent is reported as `reused`.
     */
    async useRefreshToken(projectId: string, hash: string): Promise<RefreshUse> {
      const now = new Date();
      const spent = await refresh.findOneAndUpdate(
        { _id: hash, projectId, usedAt: null, revokedAt: null, expiresAt: { $gt: now } },
        { $set: { usedAt: now } },
      );
      if (spent) return { status: 'ok', token: { userId: spent.userId, familyId: spent.familyId } };
      const known = await refresh.findOne({ _id: hash, projectId });
      if (known && known.usedAt && known.expiresAt > now)
        return { status: 'reused', familyId: known.familyId };
      return { status: 'invalid' };
    },

    /** The live (unspent, unrevoked) token of this hash, if any. */
    async findLiveRefreshToken(projectId: string, hash: string) {
      const doc = await refresh.findOne({
        _id: hash,
        projectId,
        usedAt: null,
        revokedAt: null,
        expiresAt: { $gt: new Date() },
      });
      return doc ? { userId: doc.userId, familyId: doc.familyId } : undefined;
    },

    async revokeFamily(projectId: string, familyId: string): Promise<void> {
      await refresh.updateMany({ projectId, familyId, revokedAt: null }, { $set: { revokedAt: new Date() } });
    },

    /** Revokes every family of a user, except `keepFamilyId` when given; returns how many tokens. */
    async revokeUserFamilies(projectId: string, userId: string, keepFamilyId?: string): Promise<number> {
      const filter = {
        projectId,
        userId,
        revokedAt: null,
        ...(keepFamilyId ? { familyId: { $ne: keepFamilyId } } : {}),
      };
      return (await refresh.updateMany(filter, { $set: { revokedAt: new Date() } })).modifiedCount;
    },

    /**
     * Erases what the auth service keeps of a deleted user: refresh tokens, codes mailed to the
     * address, pending social-login exchange codes.
     */
    async deleteUserSecrets(projectId: string, userId: string, email: string): Promise<void> {
      await refresh.deleteMany({ projectId, userId });
      await codes.deleteMany({ projectId, email });
      await grants.deleteMany({ projectId, kind: 'exchange', userId });
    },

    /** Stores the one live code of (project, purpose, email), replacing any earlier one. */
    async putCode(input: { projectId: string; purpose: string; email: string; hash: string; ttlMs: number }) {
      const now = new Date();
      const _id = `${input.projectId}:${input.purpose}:${input.email}`;
      await codes.replaceOne(
        { _id },
        {
          projectId: input.projectId,
          purpose: input.purpose,
          email: input.email,
          hash: input.hash,
          attempts: 0,
          createdAt: now,
          expiresAt: new Date(now.getTime() + input.ttlMs),
        },
        { upsert: true },
      );
    },

    /**
     * Counts one attempt against the live code, atomically, and returns its hash; undefined when
     * there is none, it expired, or its attempts are used up (then even the right code fails).
     */
    async attemptCode(projectId: string, purpose: string, email: string, maxAttempts: number) {
      const doc = await codes.findOneAndUpdate(
        {
          _id: `${projectId}:${purpose}:${email}`,
          expiresAt: { $gt: new Date() },
          attempts: { $lt: maxAttempts },
        },
        { $inc: { attempts: 1 } },
        { returnDocument: 'after' },
      );
      return doc ? { hash: doc.hash, attempts: doc.attempts } : undefined;
    },

    /** Deletes the code if it still has this hash (a code is used once). */
    async consumeCode(projectId: string, purpose: string, email: string, hash: string): Promise<boolean> {
      const result = await codes.deleteOne({ _id: `${projectId}:${purpose}:${email}`, hash });
      return result.deletedCount === 1;
    },

    async putGrant(hash: string, grant: OAuthGrant, ttlMs: number): Promise<void> {
      await grants.insertOne({ _id: hash, ...grant, expiresAt: new Date(Date.now() + ttlMs) });
    },

    /** Takes a grant out (single use); undefined when unknown, expired or of another kind. */
    async takeGrant(
      hash: string,
      kind: OAuthGrant['kind'],
      projectId?: string,
    ): Promise<OAuthGrant | undefined> {
      const doc = await grants.findOneAndDelete({
        _id: hash,
        kind,
        expiresAt: { $gt: new Date() },
        ...(projectId ? { projectId } : {}),
      });
      if (!doc) return undefined;
      const { _id, expiresAt: _expiresAt, ...grant } = doc;
      return grant;
    },
  };
}

export type AuthTokensRepo = ReturnType<typeof authTokensRepo>;
