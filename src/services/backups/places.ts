// Where backup archives are kept: in the operator's store, or in the project's own bucket when
// it has one its plan allows (the store its new files go to). A job records the bucket's
// location; an archive in a bucket the project no longer uses is out of reach (not found).
import type { S3ObjectStore } from '../../storage/index.js';
import { archiveStore, type ArchiveStore } from '../../storage/archives.js';
import type { StoreResolver } from '../storage/stores.js';
import type { Database } from '../../db/client.js';
import { storageSettingsRepo } from '../../db/storage-settings.js';
import type { PlanLimits } from '../types.js';
import type { BackupJobsRepo } from '../../db/backup-jobs.js';
import type { Logger } from '../../lib/logger.js';

export interface ArchivePlaces {
  readonly internal: ArchiveStore;
  /** The store of an archive at `location` of a project (null: the operator's), if reachable. */
  at(projectId: string, location: string | null): Promise<ArchiveStore | undefined>;
  /** Where a new backup of the project goes, and the location to record. */
  forNew(projectId: string): Promise<{ archives: ArchiveStore; location: string | null }>;
}

export function archivePlaces(
  platform: Database['platform'],
  stores: StoreResolver,
  limitsOf: (projectId: string) => Promise<PlanLimits | undefined>,
): ArchivePlaces {
  const settings = storageSettingsRepo(platform);
  const deps = { internal: archiveStore(stores.internal), stores, settings: settings.get, limitsOf };
  // A project's own bucket is always an S3 store.
  const wrap = (store: unknown) => archiveStore(store as S3ObjectStore);
  return {
    internal: deps.internal,
    async at(projectId, location) {
      if (!location) return deps.internal;
      const store = deps.stores.forRecord(
        { provider: 'external', backend: 's3', location },
        await deps.settings(projectId),
      );
      return store && wrap(store);
    },
    async forNew(projectId) {
      const limits = await deps.limitsOf(projectId);
      if (!limits) return { archives: deps.internal, location: null };
      const target = deps.stores.forUpload(await deps.settings(projectId), limits);
      if (target.provider !== 'external') return { archives: deps.internal, location: null };
      return { archives: wrap(target.store), location: target.location };
    },
  };
}

/**
 * Deletes the archives a deleted project kept in its own bucket, best effort (run while its
 * settings still name the bucket). Those in the operator's store go with the project's prefix.
 */
export async function removeBucketArchives(
  jobs: BackupJobsRepo,
  places: ArchivePlaces,
  projectId: string,
  log: Logger,
): Promise<void> {
  for (const job of await jobs.list(projectId, 'backup')) {
    if (!job.key || !job.location) continue;
    await (
      await places.at(projectId, job.location)
    )
      ?.delete(job.key)
      .catch((err) => log.warn({ err, key: job.key }, 'could not delete a backup of a deleted project'));
  }
}
