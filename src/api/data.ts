// /api/data/:collectionName...: documents, bulk create, trash and restore (one or many) and
// aggregation.
import type { operations } from '../../generated/public.js';
import type { Handler } from '../http/types.js';
import type { Services } from '../services/index.js';
import { describeOutcome } from '../services/data/bulk-trash.js';

type Query = Record<string, unknown>;

export function dataHandlers(services: Services) {
  const data = services.data;

  const listDocuments: Handler<operations['listDocuments']> = async ({ params, query }, ctx) => {
    const result = await data.list(ctx, params.collectionName, query as Query);
    if ('count' in result) return { status: 200, body: { success: true, data: result, message: '' } };
    return {
      status: 200,
      body: { success: true, data: result.documents, message: '', pagination: result.pagination },
    };
  };

  const createDocument: Handler<operations['createDocument']> = async ({ params, body }, ctx) => ({
    status: 201,
    body: { success: true, data: await data.create(ctx, params.collectionName, body), message: 'Created' },
  });

  const createDocuments: Handler<operations['createDocuments']> = async ({ params, body }, ctx) => ({
    status: 201,
    body: {
      success: true,
      data: await data.createMany(ctx, params.collectionName, body.documents),
      message: 'Created',
    },
  });

  const getDocument: Handler<operations['getDocument']> = async ({ params, query }, ctx) => ({
    status: 200,
    body: {
      success: true,
      data: await data.get(ctx, params.collectionName, params.id, query as Query),
      message: '',
    },
  });

  const updateDocument: Handler<operations['updateDocument']> = async ({ params, body }, ctx) => ({
    status: 200,
    body: {
      success: true,
      data: await data.update(ctx, params.collectionName, params.id, body),
      message: 'Updated',
    },
  });

  const deleteDocument: Handler<operations['deleteDocument']> = async ({ params }, ctx) => ({
    status: 200,
    body: {
      success: true,
      data: await data.remove(ctx, params.collectionName, params.id),
      message: 'Deleted',
    },
  });

  const restoreDocument: Handler<operations['restoreDocument']> = async ({ params }, ctx) => ({
    status: 200,
    body: {
      success: true,
      data: await data.restore(ctx, params.collectionName, params.id),
      message: 'Restored',
    },
  });

  const deleteDocuments: Handler<operations['deleteDocuments']> = async ({ params, body }, ctx) => {
    const outcome = await data.trashMany(ctx, params.collectionName, body.ids);
    return { status: 200, body: { success: true, data: outcome, message: describeOutcome(outcome.counts) } };
  };

  const restoreDocuments: Handler<operations['restoreDocuments']> = async ({ params, body }, ctx) => {
    const outcome = await data.restoreMany(ctx, params.collectionName, body.ids);
    return { status: 200, body: { success: true, data: outcome, message: describeOutcome(outcome.counts) } };
  };

  const aggregateDocuments: Handler<operations['aggregateDocuments']> = async (
    { params, query, body },
    ctx,
  ) => ({
    status: 200,
    body: {
      success: true,
      data: await data.aggregate(ctx, params.collectionName, body.pipeline, query as Query),
      message: 'Aggregation executed successfully.',
    },
  });

  return {
    listDocuments,
    createDocument,
    createDocuments,
    getDocument,
    updateDocument,
    patchDocument: updateDocument as unknown as Handler<operations['patchDocument']>,
    deleteDocument,
    restoreDocument,
    deleteDocuments,
    restoreDocuments,
    aggregateDocuments,
  };
}
