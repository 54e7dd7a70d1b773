// The AI tools of a project: the Query Builder (a prompt becomes a checked query, not run) and
// the Collection Creator (a conversation that proposes a definition, created on confirmation).
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, call, type Schemas } from '../api';

export type AiSession = Schemas['AiSession'];

/** Which key the caller's AI requests would run on (none: the installation has no platform key). */
export function useAiStatus(projectId: string) {
  return useQuery({
    queryKey: ['ai-status', projectId],
    queryFn: async ({ signal }) =>
      (await call(api.GET('/api/projects/{projectId}/ai', { params: { path: { projectId } }, signal }))).data,
  });
}

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
