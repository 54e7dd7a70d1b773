// The developer's personal access tokens: the list, creation (the token is in that answer only)
// and revocation.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, call } from '../api';
import type { operations } from '../../../generated/dashboard';

export type AccessToken =
  operations['listAccessTokens']['responses'][200]['content']['application/json']['data']['tokens'][number];
export type NewAccessToken = operations['createAccessToken']['requestBody']['content']['application/json'];

const key = ['access-tokens'] as const;

export function useAccessTokens() {
  return useQuery({
    queryKey: key,
    queryFn: async ({ signal }) => (await call(api.GET('/api/user/me/tokens', { signal }))).data.tokens,
  });
}

export function useCreateAccessToken() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (body: NewAccessToken) => (await call(api.POST('/api/user/me/tokens', { body }))).data,
    onSuccess: () => client.invalidateQueries({ queryKey: key }),
  });
}

export function useRevokeAccessToken() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (tokenId: string) =>
      call(api.DELETE('/api/user/me/tokens/{tokenId}', { params: { path: { tokenId } } })),
    onSuccess: () => client.invalidateQueries({ queryKey: key }),
  });
}
