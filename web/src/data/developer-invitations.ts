// The operator's invitations of new developers (/api/admin/developer-invitations): the pending
// ones, a new one (mailed), and a revoke; and the sign-up through an invitation's link.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, call } from '../api';

const key = ['operator', 'developer-invitations'] as const;

export function useDeveloperInvitations() {
  return useQuery({
    queryKey: key,
    queryFn: async ({ signal }) =>
      (await call(api.GET('/api/admin/developer-invitations', { signal }))).data.invitations,
  });
}

export type DeveloperInvitation = NonNullable<ReturnType<typeof useDeveloperInvitations>['data']>[number];

export function useDeveloperInvitationChanges() {
  const client = useQueryClient();
  const settle = () => client.invalidateQueries({ queryKey: key });
  return {
    invite: useMutation({
      mutationFn: (body: { email: string; plan?: string }) =>
        call(api.POST('/api/admin/developer-invitations', { body })),
      onSettled: settle,
    }),
    revoke: useMutation({
      mutationFn: (invitationId: string) =>
        call(
          api.DELETE('/api/admin/developer-invitations/{invitationId}', {
            params: { path: { invitationId } },
          }),
        ),
      onSettled: settle,
    }),
  };
}
