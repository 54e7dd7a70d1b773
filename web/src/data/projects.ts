// Projects: the list, one project, and the changes to them, with the caches they invalidate.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, call, type Project } from '../api';
import type { operations } from '../../../generated/dashboard';

type UpdateBody = operations['updateProject']['requestBody']['content']['application/json'];

export const projectKeys = {
  all: ['projects'] as const,
  one: (projectId: string) => ['projects', projectId] as const,
};

export function useProjects() {
  return useQuery({
    queryKey: projectKeys.all,
    queryFn: async ({ signal }) => (await call(api.GET('/api/projects', { signal }))).data.projects,
  });
}

export function useProject(projectId: string) {
  return useQuery({
    queryKey: projectKeys.one(projectId),
    queryFn: async ({ signal }) =>
      (await call(api.GET('/api/projects/{projectId}', { params: { path: { projectId } }, signal }))).data
        .project,
  });
}

export function useCreateProject() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (body: { name: string; endUserSignIn?: boolean }) =>
      (await call(api.POST('/api/projects', { body }))).data,
    onSuccess: () => client.invalidateQueries({ queryKey: projectKeys.all }),
  });
}

export function useUpdateProject(projectId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (body: UpdateBody) =>
      (await call(api.PATCH('/api/projects/{projectId}', { params: { path: { projectId } }, body }))).data
        .project,
    onSuccess: (project: Project) => {
      client.setQueryData(projectKeys.one(projectId), project);
      return client.invalidateQueries({ queryKey: projectKeys.all, exact: true });
    },
  });
}

export function useDeleteProject(projectId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: () => call(api.DELETE('/api/projects/{projectId}', { params: { path: { projectId } } })),
    onSuccess: () => {
      client.removeQueries({ queryKey: projectKeys.one(projectId) });
      return client.invalidateQueries({ queryKey: projectKeys.all, exact: true });
    },
  });
}
