// The usage recount: sets every project's counters to what is really stored, so that no bug, crash
// or lost race can leave a project stuck at its quota. `databaseUsed` becomes the BSON size of all
// documents in the project's database (every collection, trashed documents and end users included);
// `storageUsed` the bytes its file records have charged. Each correction is logged with the drift.
// Runs daily in the worker and once on demand (`npm run recount`, `node dist/main.js recount`).
//
// Concurrent writes: the counters are read first, the data measured, and the new values written
// with a compare-and-set on the values read (db/projects.ts `setUsageIf`). A write charged during
// the measure moves the counter, so the set fails and the project is measured again (up to three
// times, then left for the next run). What remains is a write between its database change and its
// charge (a few milliseconds); its bytes may then be counted twice or not at all until the next
// run, which measures again. Storage waits while a confirm is under way (its bytes are charged
// before its record shows them). Running it twice in a row changes nothing the second time.
// Reading the counters settles this process's database quota leases first (services/index.ts);
// another process's open lease (about a second at most) may leave the counter low by its unused
// rest until the next run.
import type { Deps } from '../deps.js';
import type { Services } from '../services/index.js';
import type { ProjectUsage } from '../services/types.js';
import type { Job } from './worker.js';

const ATTEMPTS = 3;
/** A confirm claimed longer ago than this has died (see storage STALE_CLAIM_MS); it charges nothing. */
const CONFIRM_IN_FLIGHT_MS = 5 * 60_000;

export interface RecountReport {
  projects: number;
  corrected: number;
  /** Projects whose counters kept moving during every attempt; the next run tries again. */
  busy: number;
  failed: number;
}

export type ProjectRecount =
  | { status: 'exact'; usage: ProjectUsage }
  | { status: 'corrected'; before: ProjectUsage; after: ProjectUsage }
  | { status: 'busy' };

export function usageRecountJob(
  deps: Deps,
  services: Services,
  now: () => Date = () => new Date(),
): Job & { recount(): Promise<RecountReport>; recountProject(projectId: string): Promise<ProjectRecount> } {
  const log = deps.log.child({ job: 'usage-recount' });
  const projects = services.repos.projects;

  async function recountProject(projectId: string): Promise<ProjectRecount> {
    for (let attempt = 0; attempt < ATTEMPTS; attempt++) {
      const before = await projects.usage(projectId);
      // A project on its own database keeps its managed counter as it is (no quota applies there).
      const databaseUsed = (await services.externalDb.databases.isExternal(projectId))
        ? before.databaseUsed
        : await services.documents.databaseSize(projectId);
      const files = await services.storage.files.chargedBytes(
        projectId,
        new Date(now().getTime() - CONFIRM_IN_FLIGHT_MS),
      );
      // A confirm that charged and then died keeps its marker until it is retried or deleted;
      // those bytes stay charged (unless the file record already holds them).
      const unsettled = (await projects.uploadCharges(projectId))
        .filter((charge) => !files.chargedIds.has(charge.fileId))
        .reduce((sum, charge) => sum + charge.bytes, 0);
      const storageUsed = files.inFlight ? before.storageUsed : files.bytes + unsettled;
      const after = { databaseUsed, storageUsed };
      if (after.databaseUsed === before.databaseUsed && after.storageUsed === before.storageUsed) {
        return { status: 'exact', usage: before };
      }
      if (await projects.setUsageIf(projectId, before, after)) {
        log.warn(
          {
            projectId,
            before,
            after,
            drift: {
              databaseUsed: before.databaseUsed - after.databaseUsed,
              storageUsed: before.storageUsed - after.storageUsed,
            },
          },
          'usage counters corrected',
        );
        return { status: 'corrected', before, after };
      }
    }
    return { status: 'busy' };
  }

  async function recount(): Promise<RecountReport> {
    const report: RecountReport = { projects: 0, corrected: 0, busy: 0, failed: 0 };
    for await (const projectId of projects.ids()) {
      report.projects += 1;
      try {
        const result = await recountProject(projectId);
        if (result.status === 'corrected') report.corrected += 1;
        if (result.status === 'busy') report.busy += 1;
      } catch (err) {
        // One unreachable project database must not stop the sweep.
        report.failed += 1;
        log.error({ err, projectId }, 'usage recount failed');
      }
    }
    log.info(report, 'usage recounted');
    return report;
  }

  return {
    name: 'usage-recount',
    schedule: '41 3 * * *',
    recount,
    recountProject,
    async run() {
      await recount();
    },
  };
}
