// Declared indexes of a collection: list, create and drop, on the dashboard (members) and on the
// public API with the secret key (`/api/schemas/{collectionName}/indexes`); the slow queries.
import type { operations as PublicOps } from '../../generated/public.js';
import type { operations as DashboardOps } from '../../generated/dashboard.js';
import type { Handler } from '../http/types.js';
import type { Services } from '../services/index.js';
import type { ListedIndex } from '../services/indexes.js';

export const indexView = ({ createdAt, ...index }: ListedIndex) => ({
  ...index,
  ...(createdAt ? { createdAt: createdAt.toISOString() } : {}),
});

const listed = (result: { indexes: ListedIndex[]; limit: number }) => ({
  status: 200 as const,
  body: {
    success: true as const,
    data: { indexes: result.indexes.map(indexView), limit: result.limit },
    message: '',
  },
});

const created = (index: ListedIndex) => ({
  status: 201 as const,
  body: { success: true as const, data: { index: indexView(index) }, message: 'Index created' },
});

const dropped = (name: string) => ({
  status: 200 as const,
  body: { success: true as const, data: { name }, message: 'Index dropped' },
});

export function dashboardIndexHandlers({ indexes }: Services) {
  const listCollectionIndexes: Handler<DashboardOps['listCollectionIndexes']> = async ({ params }, ctx) =>
    listed(await indexes.list(ctx, params.projectId, params.collectionName));

  const createCollectionIndex: Handler<DashboardOps['createCollectionIndex']> = async (
    { params, body },
    ctx,
  ) => created(await indexes.create(ctx, params.projectId, params.collectionName, body));

  const dropCollectionIndex: Handler<DashboardOps['dropCollectionIndex']> = async ({ params }, ctx) => {
    await indexes.drop(ctx, params.projectId, params.collectionName, params.indexName);
    return dropped(params.indexName);
  };

  return { listCollectionIndexes, createCollectionIndex, dropCollectionIndex };
}

export function publicIndexHandlers({ indexes }: Services) {
  const listSchemaIndexes: Handler<PublicOps['listSchemaIndexes']> = async ({ params }, ctx) =>
    listed(await indexes.listWithKey(ctx, params.collectionName));

  const createSchemaIndex: Handler<PublicOps['createSchemaIndex']> = async ({ params, body }, ctx) =>
    created(await indexes.createWithKey(ctx, params.collectionName, body));

  const dropSchemaIndex: Handler<PublicOps['dropSchemaIndex']> = async ({ params }, ctx) => {
    await indexes.dropWithKey(ctx, params.collectionName, params.indexName);
    return dropped(params.indexName);
  };

  return { listSchemaIndexes, createSchemaIndex, dropSchemaIndex };
}

export function slowQueryHandlers({ slowQueries }: Services) {
  const listSlowQueries: Handler<DashboardOps['listSlowQueries']> = async ({ params, query }, ctx) => {
    const { thresholdMs, queries } = await slowQueries.list(ctx, params.projectId, query?.collection);
    return {
      status: 200,
      body: {
        success: true,
        data: {
          thresholdMs,
          queries: queries.map((q) => ({
            ...q,
            firstAt: q.firstAt.toISOString(),
            lastAt: q.lastAt.toISOString(),
          })),
        },
        message: '',
      },
    };
  };

  const clearSlowQueries: Handler<DashboardOps['clearSlowQueries']> = async ({ params, query }, ctx) => {
    const removed = await slowQueries.clear(ctx, params.projectId, query?.collection);
    return { status: 200, body: { success: true, data: { removed }, message: 'Slow queries cleared' } };
  };

  return { listSlowQueries, clearSlowQueries };
}

export function collectionSizeHandlers({ collectionSizes }: Services) {
  const getCollectionSizes: Handler<DashboardOps['getCollectionSizes']> = async ({ params }, ctx) => ({
    status: 200,
    body: { success: true, data: await collectionSizes.get(ctx, params.projectId), message: '' },
  });
  return { getCollectionSizes };
}
