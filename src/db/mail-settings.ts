// Mail settings of a project (platform database, collection `mail_settings`, one document per
// project keyed by its id): its own SMTP server (Pro) with the password encrypted (AES-256-GCM).
import type { Db } from 'mongodb';
import { ObjectId, toObjectId } from './ids.js';

export interface StoredSmtp {
  host: string;
  port: number;
  secure: boolean;
  username: string;
  passwordEnc: string;
  from: string;
  verifiedAt: Date;
}

interface SettingsDoc {
  _id: ObjectId;
  smtp: StoredSmtp | null;
  updatedAt: Date;
}

export function mailSettingsRepo(db: Db) {
  const settings = db.collection<SettingsDoc>('mail_settings');
  return {
    async getSmtp(projectId: string): Promise<StoredSmtp | null> {
      const _id = toObjectId(projectId);
      return (_id && (await settings.findOne({ _id }))?.smtp) || null;
    },
    async setSmtp(projectId: string, smtp: StoredSmtp | null): Promise<void> {
      const _id = toObjectId(projectId);
      if (!_id) return;
      await settings.updateOne({ _id }, { $set: { smtp, updatedAt: new Date() } }, { upsert: true });
    },
    async delete(projectId: string): Promise<void> {
      const _id = toObjectId(projectId);
      if (_id) await settings.deleteOne({ _id });
    },
  };
}

export type MailSettingsRepo = ReturnType<typeof mailSettingsRepo>;
