// The trash purge (SERVICE-SPEC "Document lifecycle"): documents in the trash for more than 30
// days are removed for good and their size is given back to the project's `databaseUsed`.
// Idempotent and safe with several workers: each document is removed (and counted) once.
import type { Deps } from '../deps.js';
import type { Services } from '../services/index.js';
import { registeredCollections } from '../db/registered-collections.js';
import type { Job } from './worker.js';
import { unreachable } from './unreachable.js';

export const TRASH_RETENTION_DAYS = 30;
const DAY_MS = 24 * 60 * 60 * 1000;

export interface PurgeReport {
  collections: number;
  removed: number;
  bytes: number;
}

export function trashPurgeJob(
  deps: Deps,
  services: Services,
  now: () => Date = () => new Date(),
): Job & {
  purge(): Promise<PurgeReport>;
} {
  const log = deps.log.child({ job: 'trash-purge' });
  async function purge(): Promise<PurgeReport> {
    const cutoff = new Date(now().getTime() - TRASH_RETENTION_DAYS * DAY_MS);
    const report: PurgeReport = { collections: 0, removed: 0, bytes: 0 };
    /** Projects whose database did not answer in this run: their other collections wait for the next. */
    const skipped = new Set<string>();
    for await (const ref of registeredCollections(deps.db)) {
      report.collections += 1;
      if (skipped.has(ref.projectId)) continue;
      try {
        // One collection's share of the run: the rest waits for the next run past the deadline.
        const { removed, bytes } = await services.documents.purgeTrashed(
          ref,
          cutoff,
          AbortSignal.timeout(deps.config.workerTaskTimeoutMs),
        );
        if (removed === 0) continue;
        await services.repos.projects.addDatabaseUsed(ref.projectId, -bytes);
        report.removed += removed;
        report.bytes += bytes;
      } catch (err) {
        // One unreachable project database (an external one, say) must not stop the sweep.
        log.error({ err, projectId: ref.projectId, collection: ref.collection }, 'trash purge failed');
        if (unreachable(err)) skipped.add(ref.projectId);
      }
    }
    if (report.removed) log.info(report, 'trash purged');
    return report;
  }
  return {
    name: 'trash-purge',
    schedule: '17 * * * *',
    purge,
    async run() {
      await purge();
    },
  };
}
