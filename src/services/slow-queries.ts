// Slow queries: list requests slower than SLOW_QUERY_MS, kept per project by shape (fields, never
// values), with the index that serves them now and the one that would. The list path pays one
// timer comparison; only a slow request is recorded, after its answer, off the request's path.
import type { Logger } from '../lib/logger.js';
import type { CollectionsRepo } from '../db/collections.js';
import type { SlowQueriesRepo, SlowSample } from '../db/slow-queries.js';
import type { ProjectsService } from './projects.js';
import type { RequestContext } from './context.js';
import { servingIndex, suggestedIndex } from './data/query-plan.js';
import { collectionIndexes } from './schema/index-definitions.js';

export interface SlowQueryRecorder {
  readonly thresholdMs: number;
  /** Records a slow request in the background; a failure is logged, never the request's. */
  report(sample: SlowSample): void;
}

export function slowQueriesService(
  repo: SlowQueriesRepo,
  collections: CollectionsRepo,
  projects: ProjectsService,
  log: Logger,
  thresholdMs: number,
) {
  const recorder: SlowQueryRecorder = {
    thresholdMs,
    report(sample) {
      repo
        .record(sample)
        .catch((err) => log.warn({ err, projectId: sample.projectId }, 'slow query not recorded'));
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
