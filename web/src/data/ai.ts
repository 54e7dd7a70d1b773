// The AI tools of a project: the Query Builder (a prompt becomes a checked query, not run) and
// the Collection Creator (a conversation that proposes a definition, created on confirmation).
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { api, call, type Schemas } from '../api';

export type AiSession = Schemas['AiSession'];

export function useAiActions(projectId: string) {
  const client = useQueryClient();
  const params = { path: { projectId } };
  return {
    buildQuery: useMutation({
      mutationFn: async (body: { collection: string; prompt: string }) =>
        (await call(api.POST('/api/projects/{projectId}/ai/query-builder', { params, body }))).data,
    }),
    start: useMutation({
      mutationFn: async (message: string) =>
        (
          await call(
            api.POST('/api/projects/{projectId}/ai/collection-sessions', { params, body: { message } }),
          )
        ).data.session,
    }),
    send: useMutation({
      mutationFn: async ({ sessionId, message }: { sessionId: string; message: string }) =>
        (
          await call(
            api.POST('/api/projects/{projectId}/ai/collection-sessions/{sessionId}/messages', {
              params: { path: { projectId, sessionId } },
              body: { message },
            }),
          )
        ).data.session,
    }),
    confirm: useMutation({
      mutationFn: async (sessionId: string) =>
        (
          await call(
            api.POST('/api/projects/{projectId}/ai/collection-sessions/{sessionId}/confirm', {
              params: { path: { projectId, sessionId } },
            }),
          )
        ).data.collection,
      onSuccess: () => client.invalidateQueries({ queryKey: ['collections', projectId] }),
    }),
  };
}
