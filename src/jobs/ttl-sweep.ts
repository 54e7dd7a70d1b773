// TTL indexes (declared on a Date field with `expireAfterSeconds`): the worker removes expired
// documents, trashed or not, and gives their bytes back to `databaseUsed`. One mechanism on every
// engine: mongo-java-server and FerretDB have no TTL monitor, and MongoDB's would delete behind
// the quota's back. Idempotent and safe with several workers. Deletes in batches, each project
// taking an equal share of a run. No document.deleted event or webhook is sent for an expiry.
import type { Deps } from '../deps.js';
import type { Services } from '../services/index.js';
import type { Job } from './worker.js';
import { unreachable } from './unreachable.js';

/** Documents one run removes at most, shared fairly between the projects that have expired ones. */
export const TTL_RUN_BUDGET = 10_000;
/** The least share of a project in a run, so that each one progresses even among very many. */
const MIN_PROJECT_SHARE = 100;
/** Rounds of a run: the first gives every project its share, later ones what others left. */
const MAX_ROUNDS = 3;
/** Documents read and deleted per round trip. */
export const TTL_BATCH = 500;

export interface TtlReport {
  indexes: number;
  removed: number;
  bytes: number;
  /** Documents removed per project in this run. */
  byProject: Record<string, number>;
}

export interface TtlSweepOptions {
  /** The run's budget (tests make it small). */
  budget?: number;
  batch?: number;
  /** The least share of a project (tests make it small). */
  minShare?: number;
}

type TtlDef = Awaited<ReturnType<Services['repos']['collections']['withTtl']>>[number];

export function ttlSweepJob(
  deps: Deps,
  services: Services,
  now: () => Date = () => new Date(),
  { budget = TTL_RUN_BUDGET, batch = TTL_BATCH, minShare = MIN_PROJECT_SHARE }: TtlSweepOptions = {},
): Job & { sweep(): Promise<TtlReport> } {
  const log = deps.log.child({ job: 'ttl-sweep' });
  // The project served first moves on each run, so a run cut short by its deadline does not
  // always leave the same projects waiting.
  let turn = 0;

  /** A project's TTL indexes, its share split evenly between them (what one leaves goes to the next). */
  async function sweepProject(defs: TtlDef[], share: number, report: TtlReport, count: boolean) {
    const indexes = defs.flatMap((def) =>
      (def.indexes ?? []).filter((i) => i.expireAfterSeconds !== undefined).map((index) => ({ def, index })),
    );
    let left = share;
    for (const [position, { def, index }] of indexes.entries()) {
      if (count) report.indexes += 1;
      if (left <= 0) continue;
      const ref = { projectId: def.projectId, collection: def.name };
      const cutoff = new Date(now().getTime() - index.expireAfterSeconds! * 1000);
      const max = Math.ceil(left / (indexes.length - position));
      try {
        const { removed, bytes } = await services.documents.removeExpired(
          ref,
          index.keys[0]!.field,
          cutoff,
          max,
          // One index's part of the run: the rest waits for the next run past the deadline.
          AbortSignal.timeout(deps.config.workerTaskTimeoutMs),
          batch,
        );
        left -= removed;
        if (removed === 0) continue;
        await services.repos.projects.addDatabaseUsed(def.projectId, -bytes);
        report.removed += removed;
        report.bytes += bytes;
        report.byProject[def.projectId] = (report.byProject[def.projectId] ?? 0) + removed;
      } catch (err) {
        // One unreachable project database (an external one, say) must not stop the sweep; its
        // other indexes wait for the next run rather than each wait out a deadline.
        log.error({ err, ...ref, index: index.name }, 'TTL sweep failed');
        if (unreachable(err)) return;
      }
    }
  }

  async function sweep(): Promise<TtlReport> {
    const report: TtlReport = { indexes: 0, removed: 0, bytes: 0, byProject: {} };
    const byProject = new Map<string, TtlDef[]>();
    for (const def of await services.repos.collections.withTtl()) {
      byProject.set(def.projectId, [...(byProject.get(def.projectId) ?? []), def]);
    }
    const projects = [...byProject.keys()].sort();
    if (projects.length === 0) return report;
    const first = turn++ % projects.length;
    const order = [...projects.slice(first), ...projects.slice(0, first)];
    // Each project gets an equal share of the run, not whatever the ones before it left: one
    // project with millions of expired documents no longer holds the others' expiry back.
    // What a project without a backlog leaves goes, in a next round, to those that used their share.
    let busy = order;
    for (let round = 0; round < MAX_ROUNDS && busy.length > 0; round++) {
      const left = budget - report.removed;
      if (left <= 0) break;
      const share = Math.max(minShare, Math.floor(left / busy.length));
      const next: string[] = [];
      for (const projectId of busy) {
        const before = report.byProject[projectId] ?? 0;
        await sweepProject(byProject.get(projectId)!, share, report, round === 0);
        if ((report.byProject[projectId] ?? 0) - before >= share) next.push(projectId);
      }
      busy = next;
    }
    if (report.removed) log.info({ ...report, byProject: undefined }, 'expired documents removed');
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
