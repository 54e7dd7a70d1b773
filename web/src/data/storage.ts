// Storage settings of a project: where files go, whether end users may upload, and the project's
// own S3-compatible bucket (verified by the API before it is used).
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, call, type Schemas } from '../api';

export type BucketInput = Schemas['StorageExternalBucketInput'];
const key = (projectId: string) => ['storage', projectId] as const;

export function useStorageSettings(projectId: string) {
  return useQuery({
    queryKey: key(projectId),
    queryFn: async ({ signal }) =>
      (await call(api.GET('/api/projects/{projectId}/storage', { params: { path: { projectId } }, signal })))
        .data,
  });
}

export function useStorageActions(projectId: string) {
  const client = useQueryClient();
  const params = { path: { projectId } };
  const changed = (data: unknown) => client.setQueryData(key(projectId), data);
  return {
    setUploads: useMutation({
      mutationFn: async (endUserUploads: boolean) =>
        (await call(api.PATCH('/api/projects/{projectId}/storage', { params, body: { endUserUploads } })))
          .data,
      onSuccess: changed,
    }),
    connect: useMutation({
      mutationFn: async (body: BucketInput) =>
        (await call(api.PUT('/api/projects/{projectId}/storage', { params, body }))).data,
      onSuccess: changed,
    }),
    disconnect: useMutation({
      mutationFn: async () => (await call(api.DELETE('/api/projects/{projectId}/storage', { params }))).data,
      onSuccess: changed,
    }),
  };
}
