// TTL indexes (declared on a Date field with `expireAfterSeconds`): the worker removes expired
// documents, trashed or not, and gives their bytes back to `databaseUsed`. One mechanism on every
// engine: mongo-java-server and FerretDB have no TTL monitor, and MongoDB's would delete behind
// the quota's back. Idempotent and safe with several workers (each document is removed once).
import type { Deps } from '../deps.js';
import type { Services } from '../services/index.js';
import type { Job } from './worker.js';

/** Documents removed per TTL index and run at most, so that one run stays within its lease. */
export const TTL_BATCH = 10_000;

export interface TtlReport {
  indexes: number;
  removed: number;
  bytes: number;
}

export function ttlSweepJob(
  deps: Deps,
  services: Services,
  now: () => Date = () => new Date(),
): Job & { sweep(): Promise<TtlReport> } {
  const log = deps.log.child({ job: 'ttl-sweep' });
  async function sweep(): Promise<TtlReport> {
    const report: TtlReport = { indexes: 0, removed: 0, bytes: 0 };
    for (const def of await services.repos.collections.withTtl()) {
      for (const index of def.indexes ?? []) {
        if (index.expireAfterSeconds === undefined) continue;
        report.indexes += 1;
        const ref = { projectId: def.projectId, collection: def.name };
        const cutoff = new Date(now().getTime() - index.expireAfterSeconds * 1000);
        try {
          // One collection's share of the run: the rest waits for the next run past the deadline.
          const { removed, bytes } = await services.documents.removeExpired(
            ref,
            index.keys[0]!.field,
            cutoff,
            TTL_BATCH,
            AbortSignal.timeout(deps.config.workerTaskTimeoutMs),
          );
          if (removed === 0) continue;
          await services.repos.projects.addDatabaseUsed(def.projectId, -bytes);
          report.removed += removed;
          report.bytes += bytes;
        } catch (err) {
          // One unreachable project database (an external one, say) must not stop the sweep.
          log.error({ err, ...ref, index: index.name }, 'TTL sweep failed');
        }
      }
    }
    if (report.removed) log.info(report, 'expired documents removed');
    return report;
  }
  return {
    name: 'ttl-sweep',
    schedule: '* * * * *',
    sweep,
    async run() {
      await sweep();
    },
  };
}
