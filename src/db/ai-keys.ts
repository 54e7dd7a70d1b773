// AI provider keys (SERVICE-SPEC "AI provider key"), stored encrypted on the developer and the
// project records (`aiKeyEnc`). Only this file and the AI service see the sealed value; the
// records' mappers turn it into `hasAiProviderKey`.
import type { Db } from 'mongodb';
import { toObjectId } from './ids.js';

export type AiKeyOwner = 'developers' | 'projects';

export function aiKeysRepo(db: Db) {
  const collection = (owner: AiKeyOwner) => db.collection<{ aiKeyEnc?: string | null }>(owner);
  return {
    /** Stores (or with null clears) the sealed key; false when the record does not exist. */
    async set(owner: AiKeyOwner, id: string, sealed: string | null): Promise<boolean> {
      const _id = toObjectId(id);
      if (!_id) return false;
      const update = sealed
        ? { $set: { aiKeyEnc: sealed, updatedAt: new Date() } }
        : { $unset: { aiKeyEnc: '' as const }, $set: { updatedAt: new Date() } };
      return (await collection(owner).updateOne({ _id }, update)).matchedCount === 1;
    },
    /** The sealed key of one developer or project, if any. */
    async sealed(owner: AiKeyOwner, id: string): Promise<string | undefined> {
      const _id = toObjectId(id);
      const doc = _id && (await collection(owner).findOne({ _id }, { projection: { aiKeyEnc: 1 } }));
      return doc?.aiKeyEnc ?? undefined;
    },
  };
}

export type AiKeysRepo = ReturnType<typeof aiKeysRepo>;
