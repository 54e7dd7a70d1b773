// A project's own database connection (platform database, collection `external_databases`, one
// document per project keyed by its id): the connection string sealed with AES-256-GCM under a key
// id (src/lib/secrets.ts), the hosts to show and when it was verified. No document: the managed
// database.
import type { Db } from 'mongodb';
import { ObjectId, toObjectId } from './ids.js';

export interface ExternalDatabaseSetting {
  projectId: string;
  /** The connection string, sealed; opened only to connect. */
  uriEnc: string;
  keyId: string;
  /** The hosts of the URI, without credentials or options. */
  host: string;
  database: string | null;
  verifiedAt: Date;
}

interface SettingDoc {
  _id: ObjectId;
  uriEnc: string;
  keyId: string;
  host: string;
  database: string | null;
  verifiedAt: Date;
  updatedAt: Date;
}

export function externalDatabaseSettingsRepo(db: Db) {
  const settings = db.collection<SettingDoc>('external_databases');
  return {
    async get(projectId: string): Promise<ExternalDatabaseSetting | undefined> {
      const _id = toObjectId(projectId);
      const doc = _id && (await settings.findOne({ _id }));
      if (!doc) return undefined;
      const { _id: _ignored, updatedAt: _updated, ...rest } = doc;
      return { projectId, ...rest };
    },
    async set(setting: ExternalDatabaseSetting): Promise<void> {
      const { projectId, ...fields } = setting;
      await settings.replaceOne(
        { _id: new ObjectId(projectId) },
        { ...fields, updatedAt: new Date() },
        { upsert: true },
      );
    },
    async delete(projectId: string): Promise<boolean> {
      const _id = toObjectId(projectId);
      return !!_id && (await settings.deleteOne({ _id })).deletedCount === 1;
    },
  };
}

export type ExternalDatabaseSettingsRepo = ReturnType<typeof externalDatabaseSettingsRepo>;
