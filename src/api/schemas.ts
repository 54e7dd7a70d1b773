// /api/schemas on the public API: a collection's definition for client code (name, mode, fields,
// RLS; no ids, no timestamps, nothing else of the project), and, with the secret key, the
// dashboard's create, update and delete for scripts (the same collections service and rules).
import type { operations } from '../../generated/public.js';
import type { Handler } from '../http/types.js';
import type { Services } from '../services/index.js';
import type { CollectionDef } from '../services/types.js';
import { indexView } from './indexes.js';

const schemaView = ({ name, mode, fields, rls, indexes }: CollectionDef) => ({
  name,
  mode,
  fields,
  rls,
  indexes: (indexes ?? []).map((index) => indexView({ ...index, source: 'declared' })),
});

export function schemaHandlers({ collections }: Services) {
  const getCollectionSchema: Handler<operations['getCollectionSchema']> = async ({ params }, ctx) => {
    const def = await collections.getSchema(ctx, params.collectionName);
    return { status: 200, body: { success: true, data: { collection: schemaView(def) }, message: '' } };
  };

  const createCollectionSchema: Handler<operations['createCollectionSchema']> = async ({ body }, ctx) => {
    const def = await collections.createWithKey(ctx, body);
    return {
      status: 201,
      body: { success: true, data: { collection: schemaView(def) }, message: 'Collection created' },
    };
  };

  const updateCollectionSchema: Handler<operations['updateCollectionSchema']> = async (
    { params, body },
    ctx,
  ) => {
    const def = await collections.updateWithKey(ctx, params.collectionName, body);
    return {
      status: 200,
      body: { success: true, data: { collection: schemaView(def) }, message: 'Updated' },
    };
  };

  const deleteCollectionSchema: Handler<operations['deleteCollectionSchema']> = async ({ params }, ctx) => {
    await collections.deleteWithKey(ctx, params.collectionName);
    return {
      status: 200,
      body: { success: true, data: { name: params.collectionName }, message: 'Collection deleted' },
    };
  };

  return { getCollectionSchema, createCollectionSchema, updateCollectionSchema, deleteCollectionSchema };
}
