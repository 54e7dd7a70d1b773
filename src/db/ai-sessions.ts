// Collection Creator chat sessions (platform database, collection `ai_sessions`): the messages so
// far, the latest proposed definition and the iteration counts, bound to a project and the
// developer who started it, expiring after a period without messages (TTL index plus the expiry
// sweep; every read checks `expiresAt` itself).
import type { Db } from 'mongodb';
import type { AiSession, AiSessionMessage } from '../services/ai/types.js';
import { ObjectId, toObjectId } from './ids.js';
import { registerPlatformIndexes } from './platform.js';

/** The stored session: the service's shape with the database id. */
type SessionDoc = Omit<AiSession, 'id'> & { _id: ObjectId };

registerPlatformIndexes('ai_sessions', [
  { key: { expiresAt: 1 }, name: 'ttl_expiresAt', expireAfterSeconds: 0 },
  { key: { projectId: 1 }, name: 'projectId' },
]);

/** Messages kept per session (the model sees them all; older ones are dropped). */
export const MAX_SESSION_MESSAGES = 40;

const toSession = ({ _id, ...rest }: SessionDoc): AiSession => ({ id: _id.toHexString(), ...rest });

export function aiSessionsRepo(db: Db) {
  const sessions = db.collection<SessionDoc>('ai_sessions');
  const live = (id: string, projectId: string, developerId: string, now: Date) => {
    const _id = toObjectId(id);
    return _id ? { _id, projectId, developerId, expiresAt: { $gt: now } } : undefined;
  };

  return {
    async create(projectId: string, developerId: string, now: Date, expiresAt: Date): Promise<AiSession> {
      const doc: SessionDoc = {
        _id: new ObjectId(),
        projectId,
        developerId,
        messages: [],
        proposal: null,
        iterations: 0,
        platformIterations: 0,
        platformCharged: false,
        createdAt: now,
        updatedAt: now,
        expiresAt,
      };
      await sessions.insertOne(doc);
      return toSession(doc);
    },

    async find(
      id: string,
      projectId: string,
      developerId: string,
      now: Date,
    ): Promise<AiSession | undefined> {
      const filter = live(id, projectId, developerId, now);
      const doc = filter && (await sessions.findOne(filter));
      return doc ? toSession(doc) : undefined;
    },

    /**
     * Takes one iteration atomically; on the platform key only while fewer than `platformCap`
     * were taken. Undefined when the session is gone or the cap is reached.
     */
    async claimIteration(
      session: AiSession,
      now: Date,
      platformCap: number | undefined,
    ): Promise<AiSession | undefined> {
      const filter = live(session.id, session.projectId, session.developerId, now);
      if (!filter) return undefined;
      const doc = await sessions.findOneAndUpdate(
        platformCap === undefined ? filter : { ...filter, platformIterations: { $lt: platformCap } },
        { $inc: { iterations: 1, platformIterations: platformCap === undefined ? 0 : 1 } },
        { returnDocument: 'after' },
      );
      return doc ? toSession(doc) : undefined;
    },

    async releaseIteration(id: string, platform: boolean): Promise<void> {
      await sessions.updateOne(
        { _id: new ObjectId(id) },
        { $inc: { iterations: -1, platformIterations: platform ? -1 : 0 } },
      );
    },

    /** Marks the session as charged to the monthly cap; true for the one caller that did it. */
    async markCharged(id: string, charged: boolean): Promise<boolean> {
      const res = await sessions.updateOne(
        { _id: new ObjectId(id), platformCharged: !charged },
        { $set: { platformCharged: charged } },
      );
      return res.modifiedCount === 1;
    },

    /** Appends the exchange and the new proposal, and pushes the expiry back. */
    async record(
      id: string,
      messages: AiSessionMessage[],
      proposal: Record<string, unknown> | null,
      now: Date,
      expiresAt: Date,
    ): Promise<AiSession | undefined> {
      const doc = await sessions.findOneAndUpdate(
        { _id: new ObjectId(id) },
        {
          $push: { messages: { $each: messages, $slice: -MAX_SESSION_MESSAGES } },
          $set: { proposal, updatedAt: now, expiresAt },
        },
        { returnDocument: 'after' },
      );
      return doc ? toSession(doc) : undefined;
    },

    async delete(id: string): Promise<void> {
      await sessions.deleteOne({ _id: new ObjectId(id) });
    },

    async deleteAll(projectId: string): Promise<void> {
      await sessions.deleteMany({ projectId });
    },
  };
}

export type AiSessionsRepo = ReturnType<typeof aiSessionsRepo>;
