// Projects (platform database): settings, members, hashed API keys, the encrypted per-project
// JWT secret, plan overrides and usage counters.
import type { Db } from 'mongodb';
import type {
  KeyKind,
  MemberRole,
  PlanLimits,
  Project,
  ProjectMember,
  ProjectSettings,
  ProjectUsage,
} from '../services/types.js';
import { ObjectId, toObjectId } from './ids.js';
import { projectSlots } from './project-slots.js';

interface StoredKey {
  hash: string;
  last4: string;
  createdAt: Date;
}

interface MemberDoc {
  developerId: ObjectId;
  role: MemberRole;
  addedAt: Date;
}

export interface ProjectDoc {
  _id: ObjectId;
  name: string;
  ownerId: ObjectId;
  members: MemberDoc[];
  settings: ProjectSettings;
  keys: Record<KeyKind, StoredKey>;
  jwtSecretEnc: string;
  limits: Partial<PlanLimits>;
  usage: ProjectUsage;
  /**
   * How many collection slots are taken (collectionsPerProject). Missing on projects created
   * before it existed: the first claim sets it from the real count.
   */
  collectionsCount?: number;
  /**
   * Uploads charged to `usage.storageUsed` whose confirm has not finished yet. Written in the same
   * update as the charge, so a confirm retried after a crash finds its charge instead of charging
   * again; removed when the confirm completes or the charge is given back.
   */
  storageCharges?: { fileId: string; bytes: number }[];
  /** The project's AI provider key, encrypted (src/db/ai-keys.ts). */
  aiKeyEnc?: string | null;
  /** A restore over the project is queued or running (its job id): the public API holds back. */
  restoringId?: string;
  /** Pages that sent credentials the project did not grant: the last few origins, newest last. */
  credentialsRefused?: { origin: string; at: Date }[];
  createdAt: Date;
  updatedAt: Date;
}

export interface NewProject {
  name: string;
  ownerId: string;
  settings: ProjectSettings;
  keys: Record<KeyKind, StoredKey>;
  jwtSecretEnc: string;
}

const toMember = (m: MemberDoc): ProjectMember => ({
  developerId: m.developerId.toHexString(),
  role: m.role,
  addedAt: m.addedAt,
});

function toProject(doc: ProjectDoc): Project {
  return {
    id: doc._id.toHexString(),
    name: doc.name,
    ownerId: doc.ownerId.toHexString(),
    members: doc.members.map(toMember),
    settings: doc.settings,
    keys: {
      publishable: { last4: doc.keys.publishable.last4, createdAt: doc.keys.publishable.createdAt },
      secret: { last4: doc.keys.secret.last4, createdAt: doc.keys.secret.createdAt },
    },
    limits: doc.limits ?? {},
    usage: { databaseUsed: doc.usage?.databaseUsed ?? 0, storageUsed: doc.usage?.storageUsed ?? 0 },
    hasAiProviderKey: Boolean(doc.aiKeyEnc),
    ...(doc.restoringId ? { restoringId: doc.restoringId } : {}),
    ...(doc.credentialsRefused?.length ? { credentialsRefused: doc.credentialsRefused } : {}),
    createdAt: doc.createdAt,
    updatedAt: doc.updatedAt,
  };
}

export function projectsRepo(db: Db) {
  const projects = db.collection<ProjectDoc>('projects');
  const byId = (id: string) => {
    const _id = toObjectId(id);
    return _id ? { _id } : undefined;
  };
  const after = { returnDocument: 'after' as const };

  return {
    async create(input: NewProject): Promise<Project> {
      const now = new Date();
      const ownerId = new ObjectId(input.ownerId);
      const doc: ProjectDoc = {
        _id: new ObjectId(),
        name: input.name,
        ownerId,
        members: [{ developerId: ownerId, role: 'admin', addedAt: now }],
        settings: input.settings,
        keys: input.keys,
        jwtSecretEnc: input.jwtSecretEnc,
        limits: {},
        usage: { databaseUsed: 0, storageUsed: 0 },
        collectionsCount: 0,
        createdAt: now,
        updatedAt: now,
      };
      await projects.insertOne(doc);
      return toProject(doc);
    },
    async findById(id: string): Promise<Project | undefined> {
      const filter = byId(id);
      const doc = filter && (await projects.findOne(filter));
      return doc ? toProject(doc) : undefined;
    },
    async findByKeyHash(kind: KeyKind, hash: string): Promise<Project | undefined> {
      const doc = await projects.findOne({ [`keys.${kind}.hash`]: hash });
      return doc ? toProject(doc) : undefined;
    },
    async jwtSecretEnc(id: string): Promise<string | undefined> {
      const filter = byId(id);
      const doc = filter && (await projects.findOne(filter, { projection: { jwtSecretEnc: 1 } }));
      return doc?.jwtSecretEnc;
    },
    async listForDeveloper(developerId: string): Promise<Project[]> {
      const docs = await projects
        .find({ 'members.developerId': new ObjectId(developerId) })
        .sort({ createdAt: 1 })
        .toArray();
      return docs.map(toProject);
    },
    countOwnedBy: (developerId: string) => projects.countDocuments({ ownerId: new ObjectId(developerId) }),
    /** Every project of the installation, newest first (the operator's list): at most `limit`. */
    async listAll(limit: number): Promise<Project[]> {
      const docs = await projects.find({}).sort({ createdAt: -1 }).limit(limit).toArray();
      return docs.map(toProject);
    },
    /** Projects owned per developer, for the operator's list of accounts. */
    async countByOwners(developerIds: string[]): Promise<Map<string, number>> {
      const counts = new Map<string, number>();
      const docs = await projects
        .find(
          { ownerId: { $in: developerIds.map((id) => new ObjectId(id)) } },
          { projection: { ownerId: 1 } },
        )
        .toArray();
      for (const { ownerId } of docs)
        counts.set(ownerId.toHexString(), (counts.get(ownerId.toHexString()) ?? 0) + 1);
      return counts;
    },
    /** Takes a deleted account out of the projects it was a member of. */
    async removeMemberEverywhere(developerId: string): Promise<void> {
      const developer = new ObjectId(developerId);
      await projects.updateMany(
        { 'members.developerId': developer },
        { $pull: { members: { developerId: developer } }, $set: { updatedAt: new Date() } },
      );
    },

    async update(
      id: string,
      changes: { name?: string; settings?: Partial<ProjectSettings> },
    ): Promise<Project | undefined> {
      const filter = byId(id);
      if (!filter) return undefined;
      const $set: Record<string, unknown> = { updatedAt: new Date() };
      if (changes.name !== undefined) $set.name = changes.name;
      for (const [key, value] of Object.entries(changes.settings ?? {})) $set[`settings.${key}`] = value;
      const doc = await projects.findOneAndUpdate(filter, { $set }, after);
      return doc ? toProject(doc) : undefined;
    },
    async setKey(id: string, kind: KeyKind, key: StoredKey): Promise<Project | undefined> {
      const filter = byId(id);
      const doc =
        filter &&
        (await projects.findOneAndUpdate(
          filter,
          { $set: { [`keys.${kind}`]: key, updatedAt: new Date() } },
          after,
        ));
      return doc ? toProject(doc) : undefined;
    },
    /**
     * Notes a page origin that sent credentials the project did not grant: moved to the end of the
     * project's short list (the last `keep`). Not a change of the project: no `updatedAt`.
     */
    async noteCredentialsRefused(id: string, origin: string, at: Date, keep: number): Promise<void> {
      const filter = byId(id);
      if (!filter) return;
      await projects.updateOne(filter, { $pull: { credentialsRefused: { origin } } });
      await projects.updateOne(filter, {
        $push: { credentialsRefused: { $each: [{ origin, at }], $slice: -keep } },
      });
    },
    /** Marks a restore over the project queued or running (its job id). */
    async setRestoring(id: string, restoreId: string): Promise<void> {
      const filter = byId(id);
      if (filter) await projects.updateOne(filter, { $set: { restoringId: restoreId } });
    },
    /** Removes the mark of that restore (not of a later one). */
    async clearRestoring(id: string, restoreId: string): Promise<void> {
      const filter = byId(id);
      if (filter)
        await projects.updateOne({ ...filter, restoringId: restoreId }, { $unset: { restoringId: '' } });
    },
    async setLimits(id: string, limits: Partial<PlanLimits>): Promise<Project | undefined> {
      const filter = byId(id);
      const doc =
        filter &&
        (await projects.findOneAndUpdate(filter, { $set: { limits, updatedAt: new Date() } }, after));
      return doc ? toProject(doc) : undefined;
    },
    async addMember(id: string, developerId: string, role: MemberRole): Promise<Project | undefined> {
      const developer = new ObjectId(developerId);
      const doc = await projects.findOneAndUpdate(
        { _id: new ObjectId(id), 'members.developerId': { $ne: developer } },
        {
          $push: { members: { developerId: developer, role, addedAt: new Date() } },
          $set: { updatedAt: new Date() },
        },
        after,
      );
      return doc ? toProject(doc) : undefined;
    },
    /**
     * Changes a member's role or removes the member, unless that would leave the project without
     * an admin: the condition is part of the update, so two concurrent demotions cannot both win.
     */
    async changeMember(
      id: string,
      developerId: string,
      role: MemberRole | null,
    ): Promise<Project | undefined> {
      const developer = new ObjectId(developerId);
      const keepsAnAdmin = { members: { $elemMatch: { role: 'admin', developerId: { $ne: developer } } } };
      const filter = {
        _id: new ObjectId(id),
        'members.developerId': developer,
        ...(role === 'admin' ? {} : keepsAnAdmin),
      };
      const update =
        role === null
          ? { $pull: { members: { developerId: developer } }, $set: { updatedAt: new Date() } }
          : { $set: { 'members.$.role': role, updatedAt: new Date() } };
      const doc = await projects.findOneAndUpdate(filter, update, after);
      return doc ? toProject(doc) : undefined;
    },
    async delete(id: string): Promise<boolean> {
      const filter = byId(id);
      return !!filter && (await projects.deleteOne(filter)).deletedCount === 1;
    },

    /** The usage counters as stored now (cached project records may lag behind them). */
    async usage(id: string): Promise<ProjectUsage> {
      const doc = await projects.findOne({ _id: new ObjectId(id) }, { projection: { usage: 1 } });
      return { databaseUsed: doc?.usage?.databaseUsed ?? 0, storageUsed: doc?.usage?.storageUsed ?? 0 };
    },
    /** Every project id, read in pages by `_id` so that a sweep never holds a long cursor. */
    async *ids(pageSize = 500): AsyncGenerator<string> {
      let last: ObjectId | undefined;
      for (;;) {
        const page = await projects
          .find(last ? { _id: { $gt: last } } : {}, { projection: { _id: 1 } })
          .sort({ _id: 1 })
          .limit(pageSize)
          .toArray();
        for (const doc of page) yield doc._id.toHexString();
        if (page.length < pageSize) return;
        last = page[page.length - 1]!._id;
      }
    },
    /**
     * Sets the usage counters to `next` only if they still hold `expected` (compare-and-set, so
     * a write charged meanwhile is never overwritten); false when they moved or are gone.
     */
    async setUsageIf(id: string, expected: ProjectUsage, next: ProjectUsage): Promise<boolean> {
      // A counter never written yet reads as 0 and is stored as missing.
      const was = (value: number) => (value === 0 ? { $in: [0, null] } : value);
      const result = await projects.updateOne(
        {
          _id: new ObjectId(id),
          'usage.databaseUsed': was(expected.databaseUsed),
          'usage.storageUsed': was(expected.storageUsed),
        },
        { $set: { 'usage.databaseUsed': next.databaseUsed, 'usage.storageUsed': next.storageUsed } },
      );
      return result.matchedCount === 1;
    },
    /** Moves the database usage counter (an insert adds, an update the difference, a purge reclaims). */
    async addDatabaseUsed(id: string, deltaBytes: number): Promise<void> {
      if (deltaBytes !== 0)
        await projects.updateOne({ _id: new ObjectId(id) }, { $inc: { 'usage.databaseUsed': deltaBytes } });
    },
    async releaseStorage(id: string, bytes: number): Promise<void> {
      await projects.updateOne({ _id: new ObjectId(id) }, { $inc: { 'usage.storageUsed': -bytes } });
    },
    ...projectSlots(projects),
  };
}

export type ProjectsRepo = ReturnType<typeof projectsRepo>;
