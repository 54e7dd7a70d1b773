// Slow queries: list requests slower than SLOW_QUERY_MS, kept per project by shape (fields, never
// values), with the index that serves them now and the one that would. The list path pays one
// timer comparison; only a slow request is recorded, after its answer, off the request's path.
// A shape's first slow request is written at once; those that follow within RECORD_WINDOW_MS are
// counted here and written together at its end (one update per shape and window): on a loaded
// server every list can be slow, and one platform write per list doubled what a list cost the
// database (issue 47). A process that stops loses at most one window of counts.
import type { Logger } from '../lib/logger.js';
import type { CollectionsRepo } from '../db/collections.js';
import { keyOf, type SlowQueriesRepo, type SlowSample } from '../db/slow-queries.js';
import type { ProjectsService } from './projects.js';
import type { RequestContext } from './context.js';
import { servingIndex, suggestedIndex } from './data/query-plan.js';
import { collectionIndexes } from './schema/index-definitions.js';

export interface SlowQueryRecorder {
  readonly thresholdMs: number;
  /** Records a slow request in the background; a failure is logged, never the request's. */
  report(sample: SlowSample): void;
}

export const RECORD_WINDOW_MS = 500;
/** Shapes counted at once in a process; a sample past it is written on its own. */
const MAX_PENDING = 10_000;

export function slowQueriesService(
  repo: SlowQueriesRepo,
  collections: CollectionsRepo,
  projects: ProjectsService,
  log: Logger,
  thresholdMs: number,
) {
  const write = (sample: SlowSample) =>
    repo
      .record(sample)
      .catch((err) => log.warn({ err, projectId: sample.projectId }, 'slow query not recorded'));
  /** Shapes written within their window, with what came since (undefined: nothing yet). */
  const windows = new Map<string, Required<SlowSample> | undefined>();
  const closeWindow = (key: string) => {
    const since = windows.get(key);
    windows.delete(key);
    if (since) open(key, since);
  };
  const open = (key: string, sample: SlowSample) => {
    windows.set(key, undefined);
    setTimeout(closeWindow, RECORD_WINDOW_MS, key).unref();
    void write(sample);
  };
  const recorder: SlowQueryRecorder = {
    thresholdMs,
    report(sample) {
      const key = `${sample.projectId}\0${sample.collection}\0${keyOf(sample)}`;
      if (!windows.has(key)) {
        if (windows.size >= MAX_PENDING) return void write(sample);
        return open(key, sample);
      }
      const since = windows.get(key);
      if (!since) windows.set(key, { ...sample, count: 1, totalMs: sample.ms });
      else {
        since.count += 1;
        since.totalMs += sample.ms;
        since.ms = Math.max(since.ms, sample.ms);
      }
    },
  };

  return {
    recorder,

    /** The project's slow shapes, worst first, each with the index that serves it today. */
    async list(ctx: RequestContext, projectId: string, collection?: string) {
      const project = await projects.requireAccess(ctx, projectId, 'member');
      const [records, defs] = await Promise.all([
        repo.list(project.id, collection),
        collections.list(project.id),
      ]);
      const byName = new Map(defs.map((def) => [def.name, def]));
      // A deleted collection's records are left out (its name may come back as another collection).
      const current = records.filter((record) => byName.has(record.collection));
      const queries = current.map(({ shape, totalMs, ...record }) => {
        const use = servingIndex(collectionIndexes(byName.get(record.collection)!), shape);
        const served = use.filterServed && use.sortServed;
        return {
          ...record,
          filter: { equality: shape.equality, range: shape.range, other: shape.other },
          sort: shape.sort,
          averageMs: Math.round((totalMs / record.count) * 10) / 10,
          ...use,
          suggestedIndex: served ? null : suggestedIndex(shape),
        };
      });
      return { thresholdMs, queries };
    },

    async clear(ctx: RequestContext, projectId: string, collection?: string): Promise<number> {
      const project = await projects.requireAccess(ctx, projectId, 'member');
      return repo.clear(project.id, collection);
    },
  };
}

export type SlowQueriesService = ReturnType<typeof slowQueriesService>;
