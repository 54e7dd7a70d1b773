// Storage settings of a project (platform database, collection `storage_settings`, one document
// per project keyed by its id): end-user uploads on or off, and its own S3-compatible bucket with
// the secret access key encrypted (AES-256-GCM). No document means the defaults.
import type { Db } from 'mongodb';
import type { ExternalBucket, StorageSettings } from '../services/storage/types.js';
import { ObjectId, toObjectId } from './ids.js';

type StoredBucket = ExternalBucket & { secretAccessKeyEnc: string };

interface SettingsDoc {
  _id: ObjectId;
  endUserUploads?: boolean;
  external?: StoredBucket | null;
  updatedAt: Date;
}

const defaults = (projectId: string): StorageSettings => ({
  projectId,
  endUserUploads: false,
  external: null,
  updatedAt: null,
});

export function storageSettingsRepo(db: Db) {
  const settings = db.collection<SettingsDoc>('storage_settings');
  const toSettings = (projectId: string, doc: SettingsDoc | null): StorageSettings =>
    doc
      ? {
          projectId,
          endUserUploads: doc.endUserUploads ?? false,
          external: doc.external ?? null,
          updatedAt: doc.updatedAt,
        }
      : defaults(projectId);

  async function set(projectId: string, $set: Partial<SettingsDoc>): Promise<StorageSettings> {
    const _id = toObjectId(projectId);
    if (!_id) return defaults(projectId);
    const doc = await settings.findOneAndUpdate(
      { _id },
      { $set: { ...$set, updatedAt: new Date() } },
      { upsert: true, returnDocument: 'after' },
    );
    return toSettings(projectId, doc);
  }

  return {
    async get(projectId: string): Promise<StorageSettings> {
      const _id = toObjectId(projectId);
      return toSettings(projectId, _id ? await settings.findOne({ _id }) : null);
    },
    setExternal: (projectId: string, external: StoredBucket | null) => set(projectId, { external }),
    setEndUserUploads: (projectId: string, endUserUploads: boolean) => set(projectId, { endUserUploads }),
    async delete(projectId: string): Promise<void> {
      const _id = toObjectId(projectId);
      if (_id) await settings.deleteOne({ _id });
    },
  };
}

export type StorageSettingsRepo = ReturnType<typeof storageSettingsRepo>;
