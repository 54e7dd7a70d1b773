// Worker job: finishes collection imports whose process died (no heartbeat for 2 minutes): their
// rows are removed and their bytes given back, or kept when the import was keeping them
// (services/backups/import-writes.ts). The next import into the project does the same for it.
import type { Deps } from '../deps.js';
import type { Services } from '../services/index.js';
import type { Job } from './worker.js';

export function importSweepJob(deps: Pick<Deps, 'log'>, services: Pick<Services, 'backups'>): Job {
  return {
    name: 'import-sweep',
    schedule: '*/5 * * * *',
    async run() {
      const swept = await services.backups.io.sweepImports();
      if (swept) deps.log.info({ swept }, 'finished collection imports whose process died');
    },
  };
}
