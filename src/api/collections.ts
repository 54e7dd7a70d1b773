// Collections on the dashboard: create, list, get, update and delete a project's collection
// definitions, and make the `users` collection from the server's sign-in definition.
import type { operations } from '../../generated/dashboard.js';
import type { Handler } from '../http/types.js';
import type { Services } from '../services/index.js';
import type { CollectionDef } from '../services/types.js';
import { indexView } from './indexes.js';

type Ops = operations;

export const collectionView = (def: CollectionDef) => ({
  id: def.id,
  projectId: def.projectId,
  name: def.name,
  mode: def.mode,
  fields: def.fields,
  rls: def.rls,
  indexes: (def.indexes ?? []).map((index) => indexView({ ...index, source: 'declared' })),
  createdAt: def.createdAt.toISOString(),
  updatedAt: def.updatedAt.toISOString(),
});

export function collectionHandlers({ collections }: Services) {
  const createCollection: Handler<Ops['createCollection']> = async ({ params, body }, ctx) => {
    const def = await collections.create(ctx, params.projectId, body);
    return {
      status: 201,
      body: { success: true, data: { collection: collectionView(def) }, message: 'Collection created' },
    };
  };

  const createUsersCollection: Handler<Ops['createUsersCollection']> = async ({ params }, ctx) => {
    const def = await collections.createUsers(ctx, params.projectId);
    return {
      status: 201,
      body: { success: true, data: { collection: collectionView(def) }, message: 'Collection created' },
    };
  };

  const listCollections: Handler<Ops['listCollections']> = async ({ params }, ctx) => {
    const list = await collections.list(ctx, params.projectId);
    return {
      status: 200,
      body: { success: true, data: { collections: list.map(collectionView) }, message: '' },
    };
  };

  const getCollection: Handler<Ops['getCollection']> = async ({ params }, ctx) => {
    const def = await collections.get(ctx, params.projectId, params.collectionName);
    return { status: 200, body: { success: true, data: { collection: collectionView(def) }, message: '' } };
  };

  const updateCollection: Handler<Ops['updateCollection']> = async ({ params, body }, ctx) => {
    const def = await collections.update(ctx, params.projectId, params.collectionName, body);
    return {
      status: 200,
      body: { success: true, data: { collection: collectionView(def) }, message: 'Updated' },
    };
  };

  const deleteCollection: Handler<Ops['deleteCollection']> = async ({ params }, ctx) => {
    await collections.delete(ctx, params.projectId, params.collectionName);
    return {
      status: 200,
      body: { success: true, data: { name: params.collectionName }, message: 'Collection deleted' },
    };
  };

  return {
    createCollection,
    createUsersCollection,
    listCollections,
    getCollection,
    updateCollection,
    deleteCollection,
  };
}
