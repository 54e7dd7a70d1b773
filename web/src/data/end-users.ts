// End users of a project (the dashboard's user management): the searched list, and disable,
// enable, sign out everywhere, edit and delete, each refreshing the list.
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, call, type Schemas } from '../api';

export type ManagedUser = Schemas['ManagedUser'];

export interface UserSearch {
  /** Found anywhere in the email or the name, any case (the API's `search`). */
  text: string;
  state: 'all' | 'active' | 'disabled';
  page: number;
}

const keys = {
  all: (projectId: string) => ['end-users', projectId] as const,
  list: (projectId: string, search: UserSearch) => ['end-users', projectId, search] as const,
};

export function useEndUsers(projectId: string, search: UserSearch) {
  return useQuery({
    queryKey: keys.list(projectId, search),
    queryFn: async ({ signal }) =>
      call(
        api.GET('/api/projects/{projectId}/users', {
          params: {
            path: { projectId },
            query: {
              page: search.page,
              limit: 50,
              total: true,
              ...(search.text ? { search: search.text } : {}),
              ...(search.state === 'all' ? {} : { disabled: search.state === 'disabled' }),
            },
          },
          signal,
        }),
      ),
    placeholderData: keepPreviousData,
  });
}

/** The `users` collection's definition: the fields an edit may set. */
export function useUsersCollection(projectId: string) {
  return useQuery({
    queryKey: ['collections', projectId, 'users'],
    queryFn: async ({ signal }) =>
      (
        await call(
          api.GET('/api/projects/{projectId}/collections/{collectionName}', {
            params: { path: { projectId, collectionName: 'users' } },
            signal,
          }),
        )
      ).data.collection,
  });
}

export function useEndUserActions(projectId: string) {
  const client = useQueryClient();
  const done = () => client.invalidateQueries({ queryKey: keys.all(projectId) });
  const path = (userId: string) => ({ path: { projectId, userId } });
  return {
    disable: useMutation({
      mutationFn: (userId: string) =>
        call(api.POST('/api/projects/{projectId}/users/{userId}/disable', { params: path(userId) })),
      onSuccess: done,
    }),
    enable: useMutation({
      mutationFn: (userId: string) =>
        call(api.POST('/api/projects/{projectId}/users/{userId}/enable', { params: path(userId) })),
      onSuccess: done,
    }),
    signOut: useMutation({
      mutationFn: async (userId: string) =>
        (
          await call(
            api.POST('/api/projects/{projectId}/users/{userId}/revoke-sessions', { params: path(userId) }),
          )
        ).data.revokedSessions,
    }),
    update: useMutation({
      mutationFn: ({ userId, changes }: { userId: string; changes: Record<string, unknown> }) =>
        call(api.PATCH('/api/projects/{projectId}/users/{userId}', { params: path(userId), body: changes })),
      onSuccess: done,
    }),
    remove: useMutation({
      mutationFn: async ({ userId, documents }: { userId: string; documents: boolean }) =>
        (
          await call(
            api.DELETE('/api/projects/{projectId}/users/{userId}', {
              params: { ...path(userId), query: { documents } },
            }),
          )
        ).data,
      onSuccess: done,
    }),
  };
}
