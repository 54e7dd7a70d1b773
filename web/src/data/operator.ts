// The operator's area (/api/admin): the installation's overview, developer accounts, every
// project with its limits, and the mail outbox.
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, call, type Schemas } from '../api';

export type PlanLimits = Schemas['PlanLimits'];

const keys = {
  overview: ['operator', 'overview'] as const,
  developers: (search: string) => ['operator', 'developers', search] as const,
  projects: ['operator', 'projects'] as const,
  outbox: ['operator', 'outbox'] as const,
};

export function useOverview() {
  return useQuery({
    queryKey: keys.overview,
    queryFn: async ({ signal }) => (await call(api.GET('/api/admin/overview', { signal }))).data,
    // The processes' "last seen" moves with their heartbeats (every 30 s).
    refetchInterval: 30_000,
  });
}

export function useDevelopers(search: string) {
  return useQuery({
    queryKey: keys.developers(search),
    queryFn: async ({ signal }) =>
      (await call(api.GET('/api/admin/developers', { params: { query: search ? { search } : {} }, signal })))
        .data.developers,
    placeholderData: keepPreviousData,
  });
}

export type DeveloperRow = NonNullable<ReturnType<typeof useDevelopers>['data']>[number];

/** The changes to an account: plan, disable or enable, delete; each refreshes the lists. */
export function useDeveloperChanges() {
  const client = useQueryClient();
  const settle = () => client.invalidateQueries({ queryKey: ['operator'] });
  const path = (developerId: string) => ({ params: { path: { developerId } } });
  return {
    setPlan: useMutation({
      mutationFn: ({ developerId, plan }: { developerId: string; plan: string }) =>
        call(api.PUT('/api/admin/developers/{developerId}/plan', { ...path(developerId), body: { plan } })),
      onSettled: settle,
    }),
    setDisabled: useMutation({
      mutationFn: ({ developerId, disabled }: { developerId: string; disabled: boolean }) =>
        disabled
          ? call(api.POST('/api/admin/developers/{developerId}/disable', path(developerId)))
          : call(api.POST('/api/admin/developers/{developerId}/enable', path(developerId))),
      onSettled: settle,
    }),
    remove: useMutation({
      mutationFn: (developerId: string) =>
        call(api.DELETE('/api/admin/developers/{developerId}', path(developerId))),
      onSettled: settle,
    }),
  };
}

export function useAllProjects() {
  return useQuery({
    queryKey: keys.projects,
    queryFn: async ({ signal }) => (await call(api.GET('/api/admin/projects', { signal }))).data.projects,
  });
}

export type ProjectRow = NonNullable<ReturnType<typeof useAllProjects>['data']>[number];

export function useSetProjectLimits() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: ({ projectId, limits }: { projectId: string; limits: Partial<PlanLimits> }) =>
      call(
        api.PUT('/api/admin/projects/{projectId}/limits', {
          params: { path: { projectId } },
          body: { limits },
        }),
      ),
    onSettled: () => client.invalidateQueries({ queryKey: ['operator'] }),
  });
}

export function useOutbox(enabled: boolean) {
  return useQuery({
    queryKey: keys.outbox,
    queryFn: async ({ signal }) => (await call(api.GET('/api/admin/outbox', { signal }))).data,
    enabled,
    refetchInterval: 5000,
  });
}
