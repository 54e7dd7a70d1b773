// Worker job: removes uploads never confirmed once their URL has expired (plus a grace period),
// what expired upload URLs wrote to their staging keys (S3 stores), and finishes deletes
// interrupted by a crash. Safe to run on several workers at once.
import type { Deps } from '../deps.js';
import type { Services } from '../services/index.js';
import type { Job } from './worker.js';

export function uploadCleanupJob(deps: Pick<Deps, 'log'>, services: Pick<Services, 'storage'>): Job {
  return {
    name: 'upload-cleanup',
    schedule: '*/5 * * * *',
    async run() {
      const { expired, deletes, staged } = await services.storage.cleanupUploads();
      if (expired || deletes || staged) {
        deps.log.info({ expired, deletes, staged }, 'removed unconfirmed uploads and staging objects');
      }
    },
  };
}
