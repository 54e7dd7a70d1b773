// AI provider keys and the AI tools on the dashboard: the account and project keys (only
// `hasAiProviderKey` is ever shown), the Query Builder and Collection Creator sessions.
import type { operations } from '../../generated/dashboard.js';
import type { Handler } from '../http/types.js';
import type { Services } from '../services/index.js';
import { collectionView } from './collections.js';

type Ops = operations;

const SAVED = 'BYOK key saved successfully';

export function aiHandlers({ ai }: Services) {
  const setDeveloperAiKey: Handler<Ops['setDeveloperAiKey']> = async ({ body }, ctx) => ({
    status: 200,
    body: { success: true, data: await ai.saveDeveloperKey(ctx, body.aiProviderKey ?? null), message: SAVED },
  });

  const setProjectAiKey: Handler<Ops['setProjectAiKey']> = async ({ params, body }, ctx) => ({
    status: 200,
    body: {
      success: true,
      data: await ai.saveProjectKey(ctx, params.projectId, body.aiProviderKey ?? null),
      message: SAVED,
    },
  });

  const getAiStatus: Handler<Ops['getAiStatus']> = async ({ params }, ctx) => ({
    status: 200,
    body: { success: true, data: await ai.status(ctx, params.projectId), message: '' },
  });

  const buildAiQuery: Handler<Ops['buildAiQuery']> = async ({ params, body }, ctx) => ({
    status: 200,
    body: { success: true, data: await ai.buildQuery(ctx, params.projectId, body), message: 'Query built' },
  });

  const startAiCollectionSession: Handler<Ops['startAiCollectionSession']> = async (
    { params, body },
    ctx,
  ) => ({
    status: 201,
    body: {
      success: true,
      data: { session: await ai.creator.start(ctx, params.projectId, body.message) },
      message: 'Session started',
    },
  });

  const sendAiCollectionMessage: Handler<Ops['sendAiCollectionMessage']> = async ({ params, body }, ctx) => ({
    status: 200,
    body: {
      success: true,
      data: { session: await ai.creator.message(ctx, params.projectId, params.sessionId, body.message) },
      message: '',
    },
  });

  const confirmAiCollection: Handler<Ops['confirmAiCollection']> = async ({ params }, ctx) => {
    const def = await ai.creator.confirm(ctx, params.projectId, params.sessionId);
    return {
      status: 201,
      body: { success: true, data: { collection: collectionView(def) }, message: 'Collection created' },
    };
  };

  return {
    setDeveloperAiKey,
    setProjectAiKey,
    getAiStatus,
    buildAiQuery,
    startAiCollectionSession,
    sendAiCollectionMessage,
    confirmAiCollection,
  };
}
