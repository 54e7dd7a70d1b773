// Collection definitions (platform database): name, mode, fields, RLS settings and declared
// indexes per project.
import type { Db } from 'mongodb';
import type { CollectionDef, IndexDef } from '../services/types.js';
import { ObjectId } from './ids.js';
import { isDuplicateKey } from './errors.js';
import { replaceInProject } from './restored.js';
import { UNLIMITED } from '../lib/plans.js';

/** The stored form of a CollectionDef: object ids instead of id strings. */
type CollectionDoc = Omit<CollectionDef, 'id' | 'projectId'> & { _id: ObjectId; projectId: ObjectId };

const toDef = ({ _id, projectId, ...rest }: CollectionDoc): CollectionDef => ({
  id: _id.toHexString(),
  projectId: projectId.toHexString(),
  ...rest,
});

export type CollectionInput = Pick<CollectionDef, 'name' | 'mode' | 'fields' | 'rls' | 'indexes'>;

export function collectionsRepo(db: Db) {
  const collections = db.collection<CollectionDoc>('collections');
  return {
    /** Undefined when the project already has a collection of that name. */
    async create(projectId: string, input: CollectionInput): Promise<CollectionDef | undefined> {
      const now = new Date();
      const doc: CollectionDoc = {
        _id: new ObjectId(),
        projectId: new ObjectId(projectId),
        ...input,
        createdAt: now,
        updatedAt: now,
      };
      try {
        await collections.insertOne(doc);
      } catch (err) {
        if (isDuplicateKey(err)) return undefined;
        throw err;
      }
      return toDef(doc);
    },
    async findByName(projectId: string, name: string): Promise<CollectionDef | undefined> {
      const doc = await collections.findOne({ projectId: new ObjectId(projectId), name });
      return doc ? toDef(doc) : undefined;
    },
    async list(projectId: string): Promise<CollectionDef[]> {
      const docs = await collections
        .find({ projectId: new ObjectId(projectId) })
        .sort({ name: 1 })
        .toArray();
      return docs.map(toDef);
    },
    count: (projectId: string) => collections.countDocuments({ projectId: new ObjectId(projectId) }),
    async update(
      projectId: string,
      name: string,
      changes: Partial<Omit<CollectionInput, 'name'>>,
    ): Promise<CollectionDef | undefined> {
      const doc = await collections.findOneAndUpdate(
        { projectId: new ObjectId(projectId), name },
        { $set: { ...changes, updatedAt: new Date() } },
        { returnDocument: 'after' },
      );
      return doc ? toDef(doc) : undefined;
    },
    /**
     * Adds a declared index when the definition has none of that name and fewer than `limit`
     * (at least 1): one conditional update, so concurrent creates cannot pass the limit.
     */
    async addIndex(
      projectId: string,
      name: string,
      index: IndexDef,
      limit: number,
    ): Promise<CollectionDef | undefined> {
      const doc = await collections.findOneAndUpdate(
        {
          projectId: new ObjectId(projectId),
          name,
          'indexes.name': { $ne: index.name },
          // No array position for an unlimited plan (the operator's): servers refuse so large an index.
          ...(limit < UNLIMITED ? { [`indexes.${limit - 1}`]: { $exists: false } } : {}),
        },
        { $push: { indexes: index }, $set: { updatedAt: new Date() } },
        { returnDocument: 'after' },
      );
      return doc ? toDef(doc) : undefined;
    },
    /** Removes a declared index from the definition; undefined when it had none of that name. */
    async removeIndex(
      projectId: string,
      name: string,
      indexName: string,
    ): Promise<CollectionDef | undefined> {
      const doc = await collections.findOneAndUpdate(
        { projectId: new ObjectId(projectId), name, 'indexes.name': indexName },
        { $pull: { indexes: { name: indexName } }, $set: { updatedAt: new Date() } },
        { returnDocument: 'after' },
      );
      return doc ? toDef(doc) : undefined;
    },
    /** The definitions of every project with a TTL index, for the worker's sweep. */
    withTtl: () =>
      collections
        .find({ 'indexes.expireAfterSeconds': { $exists: true } })
        .toArray()
        .then((docs) => docs.map(toDef)),
    async delete(projectId: string, name: string): Promise<boolean> {
      return (await collections.deleteOne({ projectId: new ObjectId(projectId), name })).deletedCount === 1;
    },
    /** A definition a restore brings back under `id` into `projectId` (checked by the service). */
    async restore(
      projectId: string,
      id: string,
      input: CollectionInput,
      dates: { createdAt: Date; updatedAt: Date },
    ): Promise<void> {
      await replaceInProject(collections, projectId, id, { ...input, ...dates });
    },
    async deleteAll(projectId: string): Promise<void> {
      await collections.deleteMany({ projectId: new ObjectId(projectId) });
    },
  };
}

export type CollectionsRepo = ReturnType<typeof collectionsRepo>;
