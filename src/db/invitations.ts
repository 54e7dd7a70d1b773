// Pending project invitations (platform database): one per project and address, its accept token
// stored only as a hash, expiring through a TTL index (and the expiry sweep).
import type { Db } from 'mongodb';
import type { MemberRole } from '../services/types.js';
import { ObjectId, toObjectId } from './ids.js';
import { isDuplicateKey } from './errors.js';
import { registerPlatformIndexes } from './platform.js';

interface InvitationDoc {
  _id: ObjectId;
  projectId: ObjectId;
  email: string;
  role: MemberRole;
  tokenHash: string;
  invitedBy: ObjectId;
  createdAt: Date;
  /** When the last mail (first invitation, repeat or resend) was sent. */
  sentAt: Date;
  expiresAt: Date;
}

export interface Invitation {
  id: string;
  projectId: string;
  email: string;
  role: MemberRole;
  invitedBy: string;
  createdAt: Date;
  sentAt: Date;
  expiresAt: Date;
}

export const INVITATIONS = 'project_invitations';
registerPlatformIndexes(INVITATIONS, [
  { key: { projectId: 1, email: 1 }, name: 'u_project_email', unique: true },
  { key: { tokenHash: 1 }, name: 'u_token', unique: true },
  { key: { expiresAt: 1 }, name: 'ttl_expiresAt', expireAfterSeconds: 0 },
]);

const toInvitation = ({
  _id,
  projectId,
  invitedBy,
  tokenHash: _hash,
  ...rest
}: InvitationDoc): Invitation => ({
  id: _id.toHexString(),
  projectId: projectId.toHexString(),
  invitedBy: invitedBy.toHexString(),
  ...rest,
});

export function invitationsRepo(db: Db) {
  const invitations = db.collection<InvitationDoc>(INVITATIONS);

  return {
    /**
     * The one invitation of (project, email), created or replaced in place: a new token, role,
     * inviter and expiry (the old link stops working). Two concurrent first invitations of one
     * address meet on the unique index; the loser retries as an update.
     */
    async put(input: {
      projectId: string;
      email: string;
      role: MemberRole;
      tokenHash: string;
      invitedBy: string;
      ttlMs: number;
    }): Promise<Invitation> {
      const now = new Date();
      const filter = { projectId: new ObjectId(input.projectId), email: input.email };
      const update = {
        $set: {
          role: input.role,
          tokenHash: input.tokenHash,
          invitedBy: new ObjectId(input.invitedBy),
          sentAt: now,
          expiresAt: new Date(now.getTime() + input.ttlMs),
        },
        $setOnInsert: { createdAt: now },
      };
      for (let attempt = 0; ; attempt++) {
        try {
          const doc = await invitations.findOneAndUpdate(filter, update, {
            upsert: true,
            returnDocument: 'after',
          });
          return toInvitation(doc!);
        } catch (err) {
          if (!isDuplicateKey(err) || attempt > 0) throw err;
        }
      }
    },

    /** Gives a live invitation a new token and expiry; undefined when it is gone or expired. */
    async renew(projectId: string, id: string, tokenHash: string, ttlMs: number) {
      const _id = toObjectId(id);
      if (!_id) return undefined;
      const now = new Date();
      const doc = await invitations.findOneAndUpdate(
        { _id, projectId: new ObjectId(projectId), expiresAt: { $gt: now } },
        { $set: { tokenHash, sentAt: now, expiresAt: new Date(now.getTime() + ttlMs) } },
        { returnDocument: 'after' },
      );
      return doc ? toInvitation(doc) : undefined;
    },

    /** The project's live invitations, oldest first. */
    async list(projectId: string): Promise<Invitation[]> {
      const docs = await invitations
        .find({ projectId: new ObjectId(projectId), expiresAt: { $gt: new Date() } })
        .sort({ createdAt: 1, _id: 1 })
        .toArray();
      return docs.map(toInvitation);
    },

    /** The invitation of a token hash, expired or not (the caller tells the two apart). */
    async findByToken(tokenHash: string): Promise<Invitation | undefined> {
      const doc = await invitations.findOne({ tokenHash });
      return doc ? toInvitation(doc) : undefined;
    },

    /** Spends the token: true for the one caller that removed the invitation with this hash. */
    async consume(id: string, tokenHash: string): Promise<boolean> {
      const _id = toObjectId(id);
      return !!_id && (await invitations.deleteOne({ _id, tokenHash })).deletedCount === 1;
    },

    async remove(projectId: string, id: string): Promise<boolean> {
      const _id = toObjectId(id);
      if (!_id) return false;
      return (await invitations.deleteOne({ _id, projectId: new ObjectId(projectId) })).deletedCount === 1;
    },

    async removeAll(projectId: string): Promise<void> {
      await invitations.deleteMany({ projectId: new ObjectId(projectId) });
    },
  };
}

export type InvitationsRepo = ReturnType<typeof invitationsRepo>;
