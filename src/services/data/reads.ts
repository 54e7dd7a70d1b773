// Reading documents: the list (filters, sort, page or cursor, count, total), one document by id,
// and aggregations. Trashed documents stay out unless `include_deleted=true`; private RLS mode
// limits publishable-key reads to the token user's documents.
import { badRequest, notFound } from '../../http/errors.js';
import { toObjectId } from '../../db/ids.js';
import type { DocumentsRepo, StoredDocument } from '../../db/documents.js';
import type { RequestContext } from '../context.js';
import {
  aggregateScope,
  documentId,
  openCollection,
  readScope,
  type DefinitionLookup,
  type Target,
} from './access.js';
import { encodeCursor, keysetCondition } from './cursor.js';
import { allOf, parseFilters, type Condition } from './filters.js';
import { refuseBacktrackingOnEmbedded } from './embedded-regex.js';
import { buildProjection } from './projection.js';
import { parseListOptions, parseReadOptions, type ReadOptions } from './query.js';
import { populate, populateFields } from './populate.js';
import { checkPipeline, guardLookup, withGuard, type Stage } from './pipeline.js';
import type { ApiDocument } from './serialize.js';
import { flag } from './projection.js';
import { shapeOf } from './query-plan.js';
import type { SlowQueryRecorder } from '../slow-queries.js';
import type { ListKind } from '../../db/slow-queries.js';

export const MAX_AGGREGATE_RESULTS = 1000;
/** BSON bytes of all result documents of one aggregation (their JSON is of the same order). */
export const MAX_AGGREGATE_BYTES = 8 * 1024 * 1024;
const ACTIVE: Condition = { isDeleted: { $ne: true } };
const TRASHED: Condition = { isDeleted: { $eq: true } };

export interface DocumentPage {
  documents: ApiDocument[];
  pagination: {
    page: number | null;
    limit: number;
    hasMore: boolean;
    nextCursor: string | null;
    total?: number;
  };
}

export type ListResult = { count: number } | DocumentPage;

export function documentReads(
  repo: DocumentsRepo,
  definitions: DefinitionLookup,
  slow?: SlowQueryRecorder,
  onEmbedded?: (projectId: string) => Promise<boolean>,
) {
  const slowMs = slow?.thresholdMs ?? Infinity;
  /** Past the threshold only: the list's shape to the slow-query record (filters and RLS scope). */
  function reportSlow(
    ms: number,
    target: Target,
    conditions: Condition[],
    filters: number,
    scope: Condition | undefined,
    options: { sort: Parameters<typeof shapeOf>[1]; total: boolean },
    kind: ListKind,
  ) {
    const asked = conditions.slice(0, filters);
    if (scope) asked.push(scope);
    slow!.report({
      projectId: target.ref.projectId,
      collection: target.ref.collection,
      kind,
      total: kind === 'list' && options.total,
      shape: shapeOf(asked, kind === 'count' ? [] : options.sort),
      ms,
    });
  }

  async function finish(
    target: Target,
    docs: StoredDocument[],
    options: ReadOptions,
    trim: (d: StoredDocument) => void,
  ) {
    if (options.populate.length) {
      const fields = populateFields(target.def, options.populate);
      const hideMeta = (doc: StoredDocument) => {
        if (!options.meta)
          for (const key of ['isDeleted', 'deletedAt', 'createdAt', 'updatedAt']) delete doc[key];
      };
      await populate(docs, fields, { caller: target.caller, definitions, repo, trim: hideMeta });
    }
    for (const doc of docs) trim(doc);
    return docs as ApiDocument[];
  }

  return {
    /** `trashedOnly`: only documents in the trash (the dashboard's trash view). */
    async list(
      ctx: RequestContext,
      name: string,
      query: Record<string, unknown>,
      trashedOnly = false,
    ): Promise<ListResult> {
      const started = performance.now();
      const target = await openCollection(ctx, name, definitions);
      const scope = readScope(target);
      const options = parseListOptions(target.def, query);
      const conditions = parseFilters(target.def, query);
      await refuseBacktrackingOnEmbedded(conditions, target.ref.projectId, onEmbedded);
      const filters = conditions.length;
      if (options.populate.length) populateFields(target.def, options.populate);
      if (trashedOnly) conditions.push(TRASHED);
      else if (!options.includeDeleted) conditions.push(ACTIVE);
      if (scope) conditions.push(scope);
      if (options.count) {
        const count = await repo.count(target.ref, allOf(conditions));
        const ms = performance.now() - started;
        if (ms >= slowMs) reportSlow(ms, target, conditions, filters, scope, options, 'count');
        return { count };
      }

      const matching = allOf(conditions);
      if (options.after) conditions.push(keysetCondition(options.sort, options.after));
      const projection = buildProjection(target.def, {
        fields: options.fields,
        meta: options.meta,
        needed: options.sort.map((k) => k.path),
        kept: options.populate,
      });
      const rows = await repo.find(target.ref, {
        filter: allOf(conditions),
        sort: Object.fromEntries(options.sort.map((k) => [k.path, k.dir])),
        skip: options.page ? (options.page - 1) * options.limit : 0,
        limit: options.limit + 1,
        projection: projection.db,
      });
      const hasMore = rows.length > options.limit;
      const docs = hasMore ? rows.slice(0, options.limit) : rows;
      const nextCursor = hasMore ? encodeCursor(options.sort, docs[docs.length - 1]!) : null;
      const documents = await finish(target, docs, options, projection.trim);
      const total = options.total ? await repo.count(target.ref, matching) : undefined;
      const ms = performance.now() - started;
      if (ms >= slowMs) reportSlow(ms, target, conditions, filters, scope, options, 'list');
      return {
        documents,
        pagination: {
          page: options.page,
          limit: options.limit,
          hasMore,
          nextCursor,
          ...(total === undefined ? {} : { total }),
        },
      };
    },

    async get(
      ctx: RequestContext,
      name: string,
      id: string,
      query: Record<string, unknown>,
    ): Promise<ApiDocument> {
      const target = await openCollection(ctx, name, definitions);
      const oid = toObjectId(documentId(id))!;
      const scope = readScope(target);
      const options = parseReadOptions(query);
      if (options.populate.length) populateFields(target.def, options.populate);
      const conditions: Condition[] = [{ _id: oid }];
      if (!options.includeDeleted) conditions.push(ACTIVE);
      if (scope) conditions.push(scope);
      const projection = buildProjection(target.def, {
        fields: options.fields,
        meta: options.meta,
        kept: options.populate,
      });
      const doc = await repo.findOne(target.ref, allOf(conditions), projection.db);
      if (!doc) throw notFound('Document not found', 'DOCUMENT_NOT_FOUND');
      const [out] = await finish(target, [doc], options, projection.trim);
      return out!;
    },

    async aggregate(
      ctx: RequestContext,
      name: string,
      pipeline: unknown,
      query: Record<string, unknown>,
    ): Promise<ApiDocument[]> {
      const target = await openCollection(ctx, name, definitions);
      const includeDeleted = flag(query.include_deleted, 'include_deleted');
      const lookups = checkPipeline(pipeline);
      await refuseBacktrackingOnEmbedded(pipeline, target.ref.projectId, onEmbedded);
      const guard = (scope: Condition | undefined) => {
        const parts: Condition[] = includeDeleted ? [] : [ACTIVE];
        if (scope) parts.push(scope);
        return parts.length ? allOf(parts) : undefined;
      };
      const mainGuard = guard(aggregateScope(target));
      const targets = new Map<string, Target['def']>();
      for (const lookup of lookups) {
        let def = targets.get(lookup.from);
        if (!def) {
          def = await definitions(target.caller.project.id, lookup.from);
          if (!def) {
            throw badRequest(
              `$lookup may only read collections of this project: "${lookup.from}" is not registered`,
              undefined,
              'LOOKUP_NOT_ALLOWED',
            );
          }
          targets.set(lookup.from, def);
        }
        guardLookup(lookup, guard(aggregateScope({ def, caller: target.caller })));
      }
      const { rows, over } = await repo.aggregate(target.ref, withGuard(pipeline as Stage[], mainGuard), {
        maxResults: MAX_AGGREGATE_RESULTS,
        maxBytes: MAX_AGGREGATE_BYTES,
      });
      if (over === 'results') {
        throw badRequest(
          `The aggregation returned more than ${MAX_AGGREGATE_RESULTS} documents; add a $limit stage`,
          undefined,
          'TOO_MANY_RESULTS',
        );
      }
      if (over === 'bytes') {
        throw badRequest(
          `The aggregation result is larger than ${MAX_AGGREGATE_BYTES / (1024 * 1024)} MiB; add $limit or $project to return less`,
          undefined,
          'RESULT_TOO_LARGE',
        );
      }
      return rows as ApiDocument[];
    },
  };
}

export type DocumentReads = ReturnType<typeof documentReads>;
