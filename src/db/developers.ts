// Developer accounts and their dashboard sessions (platform database).
import type { Db } from 'mongodb';
import type { Developer, PlanName } from '../services/types.js';
import { ObjectId, toObjectId } from './ids.js';
import { isDuplicateKey } from './errors.js';
import { OPERATOR_PLAN } from '../lib/plan-table.js';

interface DeveloperDoc {
  _id: ObjectId;
  email: string;
  name: string | null;
  passwordHash: string;
  plan: PlanName;
  isOperator: boolean;
  /** The developer's AI provider key, encrypted (src/db/ai-keys.ts). */
  aiKeyEnc?: string | null;
  /** Set while the operator has the account disabled: no sign-in, no session, no token. */
  disabledAt?: Date | null;
  lastSignInAt?: Date | null;
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

/**
 * The one place the operator's account gets its plan: OPERATOR_PLAN, whatever is stored, so every
 * limit check (they all read a developer's plan through here) finds no plan limit for the person
 * who runs the installation (src/lib/plan-table.ts).
 */
const toDeveloper = ({
  _id,
  passwordHash: _hash,
  aiKeyEnc,
  plan,
  disabledAt,
  lastSignInAt: _last,
  ...rest
}: DeveloperDoc): Developer => ({
  id: _id.toHexString(),
  ...rest,
  plan: rest.isOperator ? OPERATOR_PLAN : plan,
  disabled: Boolean(disabledAt),
  hasAiProviderKey: Boolean(aiKeyEnc),
});

/** A row of the operator's list of accounts. */
export interface DeveloperSummary {
  developer: Developer;
  lastSignInAt: Date | null;
}

const escapeRegex = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** `plans`: the plan a new account gets. */
export function developersRepo(db: Db, plans: { defaultPlan: PlanName }) {
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
    async create({
      plan,
      ...input
    }: {
      email: string;
      name: string | null;
      passwordHash: string;
      /** The plan chosen in an operator's invitation; the installation's default otherwise. */
      plan?: PlanName;
    }): Promise<Developer | undefined> {
      const now = new Date();
      const _id = new ObjectId();
      const isOperator = (await developers.estimatedDocumentCount()) === 0 && (await claimOperator(_id));
      const doc: DeveloperDoc = {
        _id,
        ...input,
        plan: plan ?? plans.defaultPlan,
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

    /** Accounts whose email or name contains `search`, newest first, at most `limit`. */
    async list(search: string | undefined, limit: number): Promise<DeveloperSummary[]> {
      const filter = search
        ? {
            $or: ['email', 'name'].map((field) => ({
              [field]: { $regex: escapeRegex(search), $options: 'i' },
            })),
          }
        : {};
      const docs = await developers.find(filter).sort({ createdAt: -1 }).limit(limit).toArray();
      return docs.map((doc) => ({ developer: toDeveloper(doc), lastSignInAt: doc.lastSignInAt ?? null }));
    },
    async setDisabled(id: string, disabled: boolean): Promise<Developer | undefined> {
      const _id = toObjectId(id);
      if (!_id) return undefined;
      const doc = await developers.findOneAndUpdate(
        { _id },
        { $set: { disabledAt: disabled ? new Date() : null, updatedAt: new Date() } },
        { returnDocument: 'after' },
      );
      if (doc && disabled) await sessions.deleteMany({ developerId: _id });
      return doc ? toDeveloper(doc) : undefined;
    },
    /** Removes the account and its sessions. */
    async delete(id: string): Promise<boolean> {
      const _id = toObjectId(id);
      if (!_id) return false;
      await sessions.deleteMany({ developerId: _id });
      return (await developers.deleteOne({ _id, isOperator: false })).deletedCount === 1;
    },

    async createSession(tokenHash: string, developerId: string, ttlMs: number): Promise<void> {
      const now = new Date();
      await developers.updateOne({ _id: new ObjectId(developerId) }, { $set: { lastSignInAt: now } });
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
      return doc && !doc.disabledAt ? toDeveloper(doc) : undefined;
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
