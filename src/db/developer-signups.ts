// Developer sign-ups waiting for their address to be confirmed (platform database): keyed by the
// hash of the mailed token, with the chosen password's hash, expiring through a TTL index.
import type { Db } from 'mongodb';
import { registerPlatformIndexes } from './platform.js';

interface PendingSignupDoc {
  _id: string; // SHA-256 of the mailed token
  email: string;
  name: string | null;
  passwordHash: string;
  attempts: number;
  createdAt: Date;
  expiresAt: Date;
}

export type PendingSignup = Omit<PendingSignupDoc, '_id'>;

export const DEVELOPER_SIGNUPS = 'developer_signups';
registerPlatformIndexes(DEVELOPER_SIGNUPS, [
  { key: { email: 1 }, name: 'email' },
  { key: { expiresAt: 1 }, name: 'ttl_expiresAt', expireAfterSeconds: 0 },
]);

export function developerSignupsRepo(db: Db) {
  const signups = db.collection<PendingSignupDoc>(DEVELOPER_SIGNUPS);
  return {
    async put(
      tokenHash: string,
      input: { email: string; name: string | null; passwordHash: string },
      ttlMs: number,
    ) {
      const now = new Date();
      await signups.insertOne({
        _id: tokenHash,
        ...input,
        attempts: 0,
        createdAt: now,
        expiresAt: new Date(now.getTime() + ttlMs),
      });
    },

    /**
     * Counts one confirmation attempt against a live sign-up, atomically; undefined when it is
     * unknown, expired or out of attempts (then even the right password fails).
     */
    async attempt(tokenHash: string, maxAttempts: number): Promise<PendingSignup | undefined> {
      const doc = await signups.findOneAndUpdate(
        { _id: tokenHash, expiresAt: { $gt: new Date() }, attempts: { $lt: maxAttempts } },
        { $inc: { attempts: 1 } },
        { returnDocument: 'after' },
      );
      if (!doc) return undefined;
      const { _id, ...pending } = doc;
      return pending;
    },

    /** Removes every pending sign-up of an address (its account exists now). */
    async removeEmail(email: string): Promise<void> {
      await signups.deleteMany({ email });
    },
  };
}

export type DeveloperSignupsRepo = ReturnType<typeof developerSignupsRepo>;
