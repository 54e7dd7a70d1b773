// What a project's scheduled backups hold (platform database, collection `backup_schedules`, one
// record per project, by its id): whether the end users and their password hashes are in them.
// A project without a record has them left out: opt-in, as "Back up now" on the dashboard.
import type { Db } from 'mongodb';

interface ScheduleDoc {
  _id: string;
  includeUsers: boolean;
  updatedAt: Date;
}

export interface BackupScheduleSettings {
  includeUsers: boolean;
  /** When it was last set (null: never, the default applies). */
  updatedAt: Date | null;
}

export function backupSchedulesRepo(db: Db) {
  const schedules = db.collection<ScheduleDoc>('backup_schedules');
  return {
    async get(projectId: string): Promise<BackupScheduleSettings> {
      const doc = await schedules.findOne({ _id: projectId });
      return { includeUsers: doc?.includeUsers === true, updatedAt: doc?.updatedAt ?? null };
    },
    async set(projectId: string, includeUsers: boolean, now = new Date()): Promise<BackupScheduleSettings> {
      await schedules.updateOne(
        { _id: projectId },
        { $set: { includeUsers, updatedAt: now } },
        { upsert: true },
      );
      return { includeUsers, updatedAt: now };
    },
    async remove(projectId: string): Promise<void> {
      await schedules.deleteOne({ _id: projectId });
    },
  };
}

export type BackupSchedulesRepo = ReturnType<typeof backupSchedulesRepo>;
