// Members of a project: the list, and inviting, changing a role and removing (or leaving).
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, call } from '../api';

export type Role = 'admin' | 'member';
const key = (projectId: string) => ['members', projectId] as const;

export function useMembers(projectId: string) {
  return useQuery({
    queryKey: key(projectId),
    queryFn: async ({ signal }) =>
      (await call(api.GET('/api/projects/{projectId}/members', { params: { path: { projectId } }, signal })))
        .data.members,
  });
}

export function useMemberActions(projectId: string) {
  const client = useQueryClient();
  const changed = () => client.invalidateQueries({ queryKey: key(projectId) });
  const member = (developerId: string) => ({ path: { projectId, developerId } });
  return {
    invite: useMutation({
      mutationFn: async (body: { email: string; role: Role }) =>
        call(api.POST('/api/projects/{projectId}/members', { params: { path: { projectId } }, body })),
      onSuccess: changed,
    }),
    changeRole: useMutation({
      mutationFn: ({ developerId, role }: { developerId: string; role: Role }) =>
        call(
          api.PATCH('/api/projects/{projectId}/members/{developerId}', {
            params: member(developerId),
            body: { role },
          }),
        ),
      onSettled: changed,
    }),
    remove: useMutation({
      mutationFn: (developerId: string) =>
        call(api.DELETE('/api/projects/{projectId}/members/{developerId}', { params: member(developerId) })),
      onSuccess: changed,
    }),
  };
}
