// GET /api/schemas/:collectionName on the public API: a collection's definition for client code
// (name, mode, fields, RLS; no ids, no timestamps, nothing else of the project).
import type { operations } from '../../generated/public.js';
import type { Handler } from '../http/types.js';
import type { Services } from '../services/index.js';

export function schemaHandlers({ collections }: Services) {
  const getCollectionSchema: Handler<operations['getCollectionSchema']> = async ({ params }, ctx) => {
    const { name, mode, fields, rls } = await collections.getSchema(ctx, params.collectionName);
    return {
      status: 200,
      body: { success: true, data: { collection: { name, mode, fields, rls } }, message: '' },
    };
  };
  return { getCollectionSchema };
}
