// Invitations of new developers by the operator (platform database): one per address, the
// sign-up token stored only as a hash, with the plan the account gets, expiring through a TTL
// index (and the expiry sweep).
import type { Db } from 'mongodb';
import { ObjectId, toObjectId } from './ids.js';
import { isDuplicateKey } from './errors.js';
import { registerPlatformIndexes } from './platform.js';

interface DeveloperInvitationDoc {
  _id: ObjectId;
  email: string;
  /** The plan the account gets; null: the installation's default plan. */
  plan: string | null;
  tokenHash: string;
  invitedBy: ObjectId;
  createdAt: Date;
  sentAt: Date;
  expiresAt: Date;
}

export interface DeveloperInvitation {
  id: string;
  email: string;
  plan: string | null;
  invitedBy: string;
  createdAt: Date;
  sentAt: Date;
  expiresAt: Date;
}

export const DEVELOPER_INVITATIONS = 'developer_invitations';
registerPlatformIndexes(DEVELOPER_INVITATIONS, [
  { key: { email: 1 }, name: 'u_email', unique: true },
  { key: { tokenHash: 1 }, name: 'u_token', unique: true },
  { key: { expiresAt: 1 }, name: 'ttl_expiresAt', expireAfterSeconds: 0 },
]);

const toInvitation = ({
  _id,
  invitedBy,
  tokenHash: _hash,
  ...rest
}: DeveloperInvitationDoc): DeveloperInvitation => ({
  id: _id.toHexString(),
  invitedBy: invitedBy.toHexString(),
  ...rest,
});

export function developerInvitationsRepo(db: Db) {
  const invitations = db.collection<DeveloperInvitationDoc>(DEVELOPER_INVITATIONS);

  return {
    /**
     * The one invitation of an address, created or replaced in place (a new token, plan and
     * expiry: the old link stops working). Two concurrent first invitations meet on the unique
     * index; the loser retries as an update.
     */
    async put(input: {
      email: string;
      plan: string | null;
      tokenHash: string;
      invitedBy: string;
      ttlMs: number;
    }): Promise<DeveloperInvitation> {
      const now = new Date();
      const update = {
        $set: {
          plan: input.plan,
          tokenHash: input.tokenHash,
          invitedBy: new ObjectId(input.invitedBy),
          sentAt: now,
          expiresAt: new Date(now.getTime() + input.ttlMs),
        },
        $setOnInsert: { createdAt: now },
      };
      for (let attempt = 0; ; attempt++) {
        try {
          const doc = await invitations.findOneAndUpdate({ email: input.email }, update, {
            upsert: true,
            returnDocument: 'after',
          });
          return toInvitation(doc!);
        } catch (err) {
          if (!isDuplicateKey(err) || attempt > 0) throw err;
        }
      }
    },

    /** The live invitations, newest first. */
    async list(limit: number): Promise<DeveloperInvitation[]> {
      const docs = await invitations
        .find({ expiresAt: { $gt: new Date() } })
        .sort({ sentAt: -1, _id: -1 })
        .limit(limit)
        .toArray();
      return docs.map(toInvitation);
    },

    /** The invitation of a token hash, expired or not (the caller tells the two apart). */
    async findByToken(tokenHash: string): Promise<DeveloperInvitation | undefined> {
      const doc = await invitations.findOne({ tokenHash });
      return doc ? toInvitation(doc) : undefined;
    },

    /** Spends the token: true for the one caller that removed the invitation with this hash. */
    async consume(id: string, tokenHash: string): Promise<boolean> {
      const _id = toObjectId(id);
      return !!_id && (await invitations.deleteOne({ _id, tokenHash })).deletedCount === 1;
    },

    async remove(id: string): Promise<boolean> {
      const _id = toObjectId(id);
      return !!_id && (await invitations.deleteOne({ _id })).deletedCount === 1;
    },

    /** Ends the invitation of an address (its account exists now, however it was made). */
    async removeEmail(email: string): Promise<void> {
      await invitations.deleteMany({ email });
    },
  };
}

export type DeveloperInvitationsRepo = ReturnType<typeof developerInvitationsRepo>;
