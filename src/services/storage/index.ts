// File storage: builds the upload flow, the filesystem store's own endpoints, the dashboard
// settings, and the housekeeping (expired uploads, interrupted deletes, a deleted project's files).
import type { Config } from '../../config.js';
import type { Logger } from '../../lib/logger.js';
import type { Database } from '../../db/client.js';
import { filesRepo } from '../../db/files.js';
import { storageSettingsRepo } from '../../db/storage-settings.js';
import { uploadStagingRepo } from '../../db/upload-staging.js';
import type { ProjectsRepo } from '../../db/projects.js';
import { createInternalStore } from '../../storage/index.js';
import type { ProjectsService } from '../projects.js';
import { localFilesService } from './local-files.js';
import { storageSettingsService } from './settings.js';
import { storeResolver } from './stores.js';
import { releaseCharge, uploadsService } from './uploads.js';
import type { FileRecord, StagedUpload } from './types.js';

/** Unconfirmed uploads are removed this long after their URL expired (a PUT may still be running). */
export const CLEANUP_GRACE_MS = 5 * 60_000;
/** A delete that has not finished after this long is retried by the cleanup job. */
const STALE_DELETE_MS = 10 * 60_000;
const BATCH = 100;

export function storageServices(
  config: Config,
  log: Logger,
  platform: Database['platform'],
  projectsRepo: ProjectsRepo,
  projects: ProjectsService,
) {
  const files = filesRepo(platform);
  const staging = uploadStagingRepo(platform);
  const settings = storageSettingsRepo(platform);
  const stores = storeResolver(config, createInternalStore(config));

  /** Removes a record's object (when still reachable) and the record; gives back what it charged. */
  async function purge(record: FileRecord): Promise<boolean> {
    const store = stores.forRecord(record, await settings.get(record.projectId));
    try {
      await store?.delete(record.path);
      if (record.uploadKey !== record.path) await store?.delete(record.uploadKey);
    } catch (err) {
      log.warn({ err, path: record.path }, 'could not delete a stored object; will retry');
      return false;
    }
    const removed = await files.remove(record.id);
    if (removed) await releaseCharge(projectsRepo, removed);
    return !!removed;
  }

  /** Removes what an expired upload URL wrote to its staging key (unreachable store: forgotten). */
  async function sweepStaged(entry: StagedUpload): Promise<boolean> {
    try {
      await stores.forRecord(entry, await settings.get(entry.projectId))?.delete(entry.key);
    } catch (err) {
      log.warn({ err, key: entry.key }, 'could not delete a staging object; will retry');
      return false;
    }
    await staging.remove(entry.id);
    return true;
  }

  return {
    files,
    stores,
    uploads: uploadsService({ files, staging, settings, projectsRepo, projects, stores }),
    local: localFilesService(files, stores.internal),
    settings: storageSettingsService(config, settings, projects, stores),

    /**
     * The worker's sweep: uploads never confirmed whose URL expired more than the grace period
     * ago, and deletes interrupted by a crash. Each record is taken with a conditional update, so
     * a confirm arriving at the same moment and a second worker are both safe.
     */
    async cleanupUploads(now = new Date()): Promise<{ expired: number; deletes: number; staged: number }> {
      const cutoff = new Date(now.getTime() - CLEANUP_GRACE_MS);
      let expired = 0;
      for (;;) {
        const batch = await files.listExpiredPending(cutoff, BATCH);
        for (const record of batch) {
          const claimed = await files.claimExpired(record.id, cutoff, now);
          if (claimed && (await purge(claimed))) expired += 1;
        }
        if (batch.length < BATCH) break;
      }
      let deletes = 0;
      const stale = await files.listStaleDeleting(new Date(now.getTime() - STALE_DELETE_MS), BATCH);
      for (const record of stale) if (await purge(record)) deletes += 1;
      // Staging keys of uploads whose URL expired: the file (if any) was copied to its path at
      // confirm, so whatever is still there was written by a URL that no longer counts.
      let staged = 0;
      for (;;) {
        const batch = await staging.listExpired(cutoff, BATCH);
        let done = 0;
        for (const entry of batch) if (await sweepStaged(entry)) done += 1;
        staged += done;
        if (batch.length < BATCH || done === 0) break;
      }
      return { expired, deletes, staged };
    },

    /** Removes every file an end user uploaded, objects and records, giving back their quota. */
    async deleteUserFiles(projectId: string, userId: string): Promise<number> {
      let removed = 0;
      for (;;) {
        const batch = await files.listForOwner(projectId, userId, BATCH);
        let progressed = false;
        for (const record of batch) {
          const claimed = await files.markDeleting(record.id, new Date());
          if (claimed && (await purge({ ...claimed, state: 'deleting' }))) {
            removed += 1;
            progressed = true;
          }
        }
        // A store that refuses the delete leaves its record for the cleanup job's retry.
        if (batch.length < BATCH || !progressed) return removed;
      }
    },

    /** Removes every file of a deleted project (best effort for its own bucket) and its settings. */
    async deleteProjectFiles(projectId: string): Promise<void> {
      const current = await settings.get(projectId);
      let after: string | undefined;
      for (;;) {
        const page = await files.listForProject(projectId, after, BATCH);
        for (const record of page) {
          if (record.provider !== 'external') continue;
          const store = stores.forRecord(record, current);
          for (const key of new Set([record.path, record.uploadKey])) {
            await store
              ?.delete(key)
              .catch((err) => log.warn({ err, key }, 'could not delete a file of a deleted project'));
          }
        }
        if (page.length < BATCH) break;
        after = page[page.length - 1]!.id;
      }
      for (;;) {
        const entries = await staging.listForProject(projectId, BATCH);
        for (const entry of entries) {
          if (!(await sweepStaged(entry))) await staging.remove(entry.id);
        }
        if (entries.length < BATCH) break;
      }
      await stores.internal
        .deletePrefix(projectId)
        .catch((err) => log.warn({ err, projectId }, 'could not delete the files of a deleted project'));
      await files.deleteForProject(projectId);
      await settings.delete(projectId);
      stores.forget(projectId);
    },
  };
}

export type StorageServices = ReturnType<typeof storageServices>;
