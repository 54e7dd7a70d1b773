// Members of a project: the list, changing a role and removing (or leaving); invitations: the
// pending list, inviting, resending and revoking (admins), and accepting one (the invited developer).
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, call, type Schemas } from '../api';
import { projectKeys } from './projects';

export type Role = 'admin' | 'member';
export type Invitation = Schemas['Invitation'];
const key = (projectId: string) => ['members', projectId] as const;
const invitationsKey = (projectId: string) => ['invitations', projectId] as const;

export function useMembers(projectId: string) {
  return useQuery({
    queryKey: key(projectId),
    queryFn: async ({ signal }) =>
      (await call(api.GET('/api/projects/{projectId}/members', { params: { path: { projectId } }, signal })))
        .data.members,
  });
}

/** Pending invitations: admins only (`enabled` false for members, who would get a 404). */
export function useInvitations(projectId: string, enabled: boolean) {
  return useQuery({
    queryKey: invitationsKey(projectId),
    enabled,
    queryFn: async ({ signal }) =>
      (
        await call(
          api.GET('/api/projects/{projectId}/invitations', { params: { path: { projectId } }, signal }),
        )
      ).data.invitations,
  });
}

export function useMemberActions(projectId: string) {
  const client = useQueryClient();
  const changed = () => client.invalidateQueries({ queryKey: key(projectId) });
  const invitationsChanged = () => client.invalidateQueries({ queryKey: invitationsKey(projectId) });
  const member = (developerId: string) => ({ path: { projectId, developerId } });
  const invitation = (invitationId: string) => ({ path: { projectId, invitationId } });
  return {
    invite: useMutation({
      mutationFn: async (body: { email: string; role: Role }) =>
        call(api.POST('/api/projects/{projectId}/invitations', { params: { path: { projectId } }, body })),
      onSuccess: invitationsChanged,
    }),
    resend: useMutation({
      mutationFn: (invitationId: string) =>
        call(
          api.POST('/api/projects/{projectId}/invitations/{invitationId}/resend', {
            params: invitation(invitationId),
          }),
        ),
      onSettled: invitationsChanged,
    }),
    revoke: useMutation({
      mutationFn: (invitationId: string) =>
        call(
          api.DELETE('/api/projects/{projectId}/invitations/{invitationId}', {
            params: invitation(invitationId),
          }),
        ),
      onSettled: invitationsChanged,
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

/** Accepting an invitation changes the developer's projects: their list is read again. */
export function useAcceptInvitation() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (token: string) => call(api.POST('/api/invitations/accept', { body: { token } })),
    onSuccess: () => client.invalidateQueries({ queryKey: projectKeys.all }),
  });
}
