// Worker job: removes uploads never confirmed once their URL has expired (plus a grace period),
// and finishes deletes interrupted by a crash. Safe to run on several workers at once.
import type { Deps } from '../deps.js';
import type { Services } from '../services/index.js';
import type { Job } from './worker.js';

export function uploadCleanupJob(deps: Pick<Deps, 'log'>, services: Pick<Services, 'storage'>): Job {
  return {
    name: 'upload-cleanup',
    schedule: '*/5 * * * *',
    async run() {
      const { expired, deletes } = await services.storage.cleanupUploads();
      if (expired || deletes) deps.log.info({ expired, deletes }, 'removed unconfirmed uploads');
    },
  };
}
