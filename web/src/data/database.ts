// The project's external database: its state (hosts, database, when verified, the addresses to
// allow-list) and connecting (verified by the API first) or going back to the managed one.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, call } from '../api';

const key = (projectId: string) => ['database', projectId] as const;

export function useExternalDatabase(projectId: string) {
  return useQuery({
    queryKey: key(projectId),
    queryFn: async ({ signal }) =>
      (await call(api.GET('/api/projects/{projectId}/database', { params: { path: { projectId } }, signal })))
        .data,
  });
}

export function useExternalDatabaseActions(projectId: string) {
  const client = useQueryClient();
  const params = { path: { projectId } };
  const changed = (data: unknown) => client.setQueryData(key(projectId), data);
  return {
    connect: useMutation({
      mutationFn: async (uri: string) =>
        (await call(api.PUT('/api/projects/{projectId}/database', { params, body: { uri } }))).data,
      onSuccess: changed,
    }),
    disconnect: useMutation({
      mutationFn: async () => (await call(api.DELETE('/api/projects/{projectId}/database', { params }))).data,
      onSuccess: changed,
    }),
  };
}
