// Hooks and functions of a project (platform database, collection `functions`): the definition's
// immutable versions embedded (the last 20), secrets sealed, one name per project and one
// synchronous hook per trigger and collection (unique `slot`), and the per-project count that
// enforces the plan limit (`function_counts`), taken before a function is written.
import type { Db } from 'mongodb';
import { isDuplicateKey } from './errors.js';
import { ObjectId, toObjectId } from './ids.js';
import { registerPlatformIndexes } from './platform.js';
import { replaceInProject } from './restored.js';
import type { StoredFunction } from '../services/functions/types.js';
import { countedSlots } from './counted-slots.js';

registerPlatformIndexes('functions', [
  { key: { projectId: 1, name: 1 }, name: 'project_name', unique: true },
  { key: { projectId: 1, slot: 1 }, name: 'project_slot', unique: true },
]);

interface FunctionDoc extends Omit<StoredFunction, 'id' | 'projectId'> {
  _id: ObjectId;
  projectId: ObjectId;
  /** `<trigger>:<collection>` for synchronous hooks (one each), else the function's own id. */
  slot: string;
}

/** Which unique index a duplicate-key error broke. */
export type FunctionConflict = 'name' | 'slot';
export class FunctionConflictError extends Error {
  constructor(readonly conflict: FunctionConflict) {
    super(`function ${conflict} taken`);
  }
}

const conflictOf = (err: unknown): FunctionConflict | undefined =>
  isDuplicateKey(err) ? (/slot/.test(err.message) ? 'slot' : 'name') : undefined;

const toFunction = ({ _id, projectId, slot: _slot, ...rest }: FunctionDoc): StoredFunction => ({
  id: _id.toHexString(),
  projectId: projectId.toHexString(),
  ...rest,
  rateLimitPerMinute: rest.rateLimitPerMinute ?? null,
  disabledReason: rest.disabledReason ?? null,
});

export type NewFunction = Omit<StoredFunction, 'id' | 'projectId' | 'createdAt' | 'updatedAt'>;

export function functionsRepo(db: Db) {
  const functions = db.collection<FunctionDoc>('functions');
  const slots = countedSlots(db, 'function_counts');
  const scope = (projectId: string) => ({ projectId: toObjectId(projectId) ?? new ObjectId(0) });
  const one = (projectId: string, id: string) => {
    const _id = toObjectId(id);
    return _id ? { ...scope(projectId), _id } : undefined;
  };
  const translate = (err: unknown): never => {
    const conflict = conflictOf(err);
    throw conflict ? new FunctionConflictError(conflict) : err;
  };

  return {
    reserveSlot: slots.reserveSlot,
    releaseSlot: slots.releaseSlot,

    async create(projectId: string, fn: NewFunction, slot: (id: string) => string): Promise<StoredFunction> {
      const now = new Date();
      const _id = new ObjectId();
      const doc: FunctionDoc = {
        _id,
        projectId: toObjectId(projectId)!,
        ...fn,
        slot: slot(_id.toHexString()),
        createdAt: now,
        updatedAt: now,
      };
      await functions.insertOne(doc).catch(translate);
      return toFunction(doc);
    },
    async list(projectId: string): Promise<StoredFunction[]> {
      return (await functions.find(scope(projectId)).sort({ createdAt: 1 }).limit(1000).toArray()).map(
        toFunction,
      );
    },
    async find(projectId: string, id: string): Promise<StoredFunction | undefined> {
      const filter = one(projectId, id);
      const doc = filter && (await functions.findOne(filter));
      return doc ? toFunction(doc) : undefined;
    },
    async findByName(projectId: string, name: string): Promise<StoredFunction | undefined> {
      const doc = await functions.findOne({ ...scope(projectId), name });
      return doc ? toFunction(doc) : undefined;
    },
    /**
     * Writes the changes only if the function is still at `latestVersion` (two concurrent updates
     * cannot both claim the next version number); undefined when it moved or is gone.
     */
    async update(
      projectId: string,
      id: string,
      expectedLatest: number,
      changes: Partial<Omit<StoredFunction, 'id' | 'projectId' | 'createdAt' | 'updatedAt'>>,
      slot: string,
    ): Promise<StoredFunction | undefined> {
      const filter = one(projectId, id);
      if (!filter) return undefined;
      const doc = await functions
        .findOneAndUpdate(
          { ...filter, latestVersion: expectedLatest },
          { $set: { ...changes, slot, updatedAt: new Date() } },
          { returnDocument: 'after' },
        )
        .catch(translate);
      return doc ? toFunction(doc) : undefined;
    },
    /** Enabled functions of every project with a schedule among their kept versions (the worker filters the active one). */
    async listScheduled(): Promise<StoredFunction[]> {
      return (
        await functions.find({ enabled: true, 'versions.trigger.type': 'schedule' }).limit(10_000).toArray()
      ).map(toFunction);
    },
    async delete(projectId: string, id: string): Promise<boolean> {
      const filter = one(projectId, id);
      return !!filter && (await functions.deleteOne(filter)).deletedCount === 1;
    },
    /** A function a restore brings back under `id` into `projectId` (checked by services/backups). */
    async restore(
      projectId: string,
      id: string,
      record: Omit<StoredFunction, 'id' | 'projectId'>,
      slot: string,
    ): Promise<void> {
      await replaceInProject(functions, projectId, id, { ...record, slot });
    },
    async deleteAll(projectId: string): Promise<void> {
      await functions.deleteMany(scope(projectId));
      await slots.remove(projectId);
    },
  };
}

export type FunctionsRepo = ReturnType<typeof functionsRepo>;
