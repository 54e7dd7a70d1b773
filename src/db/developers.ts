// Developer accounts and their dashboard sessions (platform database).
import type { Db } from 'mongodb';
import type { Developer, PlanName } from '../services/types.js';
import { ObjectId, toObjectId } from './ids.js';
import { isDuplicateKey } from './errors.js';

interface DeveloperDoc {
  _id: ObjectId;
  email: string;
  name: string | null;
  passwordHash: string;
  plan: PlanName;
  isOperator: boolean;
  /** The developer's AI provider key, encrypted (src/db/ai-keys.ts). */
  aiKeyEnc?: string | null;
  createdAt: Date;
  updatedAt: Date;
}

interface SessionDoc {
  _id: string; // SHA-256 of the cookie value
  developerId: ObjectId;
  createdAt: Date;
  expiresAt: Date;
}

/** One-off facts of the installation, each claimed once by inserting its fixed `_id`. */
interface MarkerDoc {
  _id: string;
  developerId: ObjectId;
  createdAt: Date;
}
const OPERATOR_MARKER = 'operator';

const toDeveloper = ({ _id, passwordHash: _hash, aiKeyEnc, ...rest }: DeveloperDoc): Developer => ({
  id: _id.toHexString(),
  ...rest,
  hasAiProviderKey: Boolean(aiKeyEnc),
});

/** `plans`: the plan a new account gets, and the operator's (the first account's). */
export function developersRepo(db: Db, plans: { defaultPlan: PlanName; operatorPlan: PlanName }) {
  const developers = db.collection<DeveloperDoc>('developers');
  const sessions = db.collection<SessionDoc>('sessions');
  const markers = db.collection<MarkerDoc>('markers');

  /** True for the one caller whose insert of the operator marker succeeds. */
  async function claimOperator(developerId: ObjectId): Promise<boolean> {
    try {
      await markers.insertOne({ _id: OPERATOR_MARKER, developerId, createdAt: new Date() });
      return true;
    } catch (err) {
      if (isDuplicateKey(err)) return false;
      throw err;
    }
  }
  return {
    /**
     * Inserts an account; the first account of an installation becomes the operator. Undefined
     * when the email is taken. The operator role is claimed by inserting one marker document with
     * a fixed `_id`, so of two concurrent first sign-ups exactly one wins it (a count of existing
     * accounts alone would let both see zero). Installations with accounts never claim it.
     */
    async create(input: {
      email: string;
      name: string | null;
      passwordHash: string;
    }): Promise<Developer | undefined> {
      const now = new Date();
      const _id = new ObjectId();
      const isOperator = (await developers.estimatedDocumentCount()) === 0 && (await claimOperator(_id));
      const doc: DeveloperDoc = {
        _id,
        ...input,
        plan: isOperator ? plans.operatorPlan : plans.defaultPlan,
        isOperator,
        createdAt: now,
        updatedAt: now,
      };
      try {
        await developers.insertOne(doc);
      } catch (err) {
        if (isOperator) await markers.deleteOne({ _id: OPERATOR_MARKER, developerId: _id });
        if (isDuplicateKey(err)) return undefined;
        throw err;
      }
      return toDeveloper(doc);
    },
    async findById(id: string): Promise<Developer | undefined> {
      const _id = toObjectId(id);
      const doc = _id && (await developers.findOne({ _id }));
      return doc ? toDeveloper(doc) : undefined;
    },
    async findByIds(ids: string[]): Promise<Developer[]> {
      const docs = await developers.find({ _id: { $in: ids.map((id) => new ObjectId(id)) } }).toArray();
      return docs.map(toDeveloper);
    },
    async findByEmail(email: string): Promise<Developer | undefined> {
      const doc = await developers.findOne({ email });
      return doc ? toDeveloper(doc) : undefined;
    },
    async passwordHash(id: string): Promise<string | undefined> {
      const _id = toObjectId(id);
      const doc = _id && (await developers.findOne({ _id }, { projection: { passwordHash: 1 } }));
      return doc?.passwordHash;
    },
    async credentialsByEmail(
      email: string,
    ): Promise<{ developer: Developer; passwordHash: string } | undefined> {
      const doc = await developers.findOne({ email });
      return doc ? { developer: toDeveloper(doc), passwordHash: doc.passwordHash } : undefined;
    },
    async setPasswordHash(id: string, passwordHash: string): Promise<void> {
      await developers.updateOne(
        { _id: new ObjectId(id) },
        { $set: { passwordHash, updatedAt: new Date() } },
      );
    },
    async setPlan(id: string, plan: PlanName): Promise<Developer | undefined> {
      const _id = toObjectId(id);
      if (!_id) return undefined;
      const doc = await developers.findOneAndUpdate(
        { _id },
        { $set: { plan, updatedAt: new Date() } },
        { returnDocument: 'after' },
      );
      return doc ? toDeveloper(doc) : undefined;
    },

    async createSession(tokenHash: string, developerId: string, ttlMs: number): Promise<void> {
      const now = new Date();
      await sessions.insertOne({
        _id: tokenHash,
        developerId: new ObjectId(developerId),
        createdAt: now,
        expiresAt: new Date(now.getTime() + ttlMs),
      });
    },
    /** The developer of a live session. */
    async sessionDeveloper(tokenHash: string): Promise<Developer | undefined> {
      const session = await sessions.findOne({ _id: tokenHash, expiresAt: { $gt: new Date() } });
      if (!session) return undefined;
      const doc = await developers.findOne({ _id: session.developerId });
      return doc ? toDeveloper(doc) : undefined;
    },
    async deleteSession(tokenHash: string): Promise<void> {
      await sessions.deleteOne({ _id: tokenHash });
    },
    /** Ends every session of a developer but the one kept (after a password change). */
    async deleteOtherSessions(developerId: string, keepTokenHash: string | undefined): Promise<void> {
      await sessions.deleteMany({
        developerId: new ObjectId(developerId),
        _id: { $ne: keepTokenHash ?? '' },
      });
    },
  };
}

export type DevelopersRepo = ReturnType<typeof developersRepo>;
