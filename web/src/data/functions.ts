// Hooks and functions of a project: the list, one function, its kept versions and invocation log,
// and the changes (create, edit, activate a version, test run, delete). The API's schemas are
// inline in the operations, so the types are read from them.
import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { operations } from '../../../generated/dashboard';
import { api, call } from '../api';

type Json<Op extends keyof operations, Status extends number> =
  operations[Op]['responses'] extends Record<Status, { content: { 'application/json': infer T } }>
    ? T
    : never;
type Body<Op extends keyof operations> = operations[Op] extends {
  requestBody?: { content: { 'application/json': infer T } };
}
  ? T
  : never;

export type HostedFunction = Json<'getFunction', 200>['data']['function'];
export type FunctionVersion = Json<'listFunctionVersions', 200>['data']['versions'][number];
export type Invocation = Json<'listFunctionInvocations', 200>['data']['invocations'][number];
export type Outcome = Json<'testFunction', 200>['data']['outcome'];
export type FunctionInput = Body<'createFunction'>;
export type FunctionUpdate = Body<'updateFunction'>;
export type Trigger = FunctionInput['trigger'];
export type TriggerType = Trigger['type'];

const keys = {
  all: (projectId: string) => ['functions', projectId] as const,
  one: (projectId: string, functionId: string) => ['functions', projectId, functionId] as const,
};

export function useFunctions(projectId: string) {
  return useQuery({
    queryKey: keys.all(projectId),
    queryFn: async ({ signal }) =>
      (
        await call(
          api.GET('/api/projects/{projectId}/functions', { params: { path: { projectId } }, signal }),
        )
      ).data.functions,
  });
}

export function useFunction(projectId: string, functionId: string) {
  return useQuery({
    queryKey: keys.one(projectId, functionId),
    queryFn: async ({ signal }) =>
      (
        await call(
          api.GET('/api/projects/{projectId}/functions/{functionId}', {
            params: { path: { projectId, functionId } },
            signal,
          }),
        )
      ).data.function,
  });
}

export function useFunctionVersions(projectId: string, functionId: string) {
  return useQuery({
    queryKey: [...keys.one(projectId, functionId), 'versions'],
    queryFn: async ({ signal }) =>
      (
        await call(
          api.GET('/api/projects/{projectId}/functions/{functionId}/versions', {
            params: { path: { projectId, functionId } },
            signal,
          }),
        )
      ).data.versions,
  });
}

export type InvocationFilter = Omit<
  NonNullable<operations['listFunctionInvocations']['parameters']['query']>,
  'page' | 'limit'
>;
export type InvocationStats = Json<'getFunctionInvocationStats', 200>['data'];

/** One page of the invocation log, newest first, filtered; refreshed every few seconds while shown. */
export function useInvocations(
  projectId: string,
  functionId: string,
  page: number,
  filter: InvocationFilter = {},
) {
  return useQuery({
    queryKey: [...keys.one(projectId, functionId), 'invocations', page, filter],
    queryFn: async ({ signal }) =>
      (
        await call(
          api.GET('/api/projects/{projectId}/functions/{functionId}/invocations', {
            params: { path: { projectId, functionId }, query: { page, limit: 20, ...filter } },
            signal,
          }),
        )
      ).data,
    placeholderData: keepPreviousData,
    refetchInterval: 5000,
  });
}

/** Runs, failures and p50/p95 duration over the last hour and day; refreshed with the log. */
export function useInvocationStats(projectId: string, functionId: string) {
  return useQuery({
    queryKey: [...keys.one(projectId, functionId), 'invocation-stats'],
    queryFn: async ({ signal }) =>
      (
        await call(
          api.GET('/api/projects/{projectId}/functions/{functionId}/invocations/stats', {
            params: { path: { projectId, functionId } },
            signal,
          }),
        )
      ).data,
    refetchInterval: 5000,
  });
}

export function useFunctionActions(projectId: string) {
  const client = useQueryClient();
  // Every change may move the active version, the list and the log: refresh all of the project's.
  const changed = () => client.invalidateQueries({ queryKey: keys.all(projectId) });
  const path = (functionId: string) => ({ path: { projectId, functionId } });
  return {
    create: useMutation({
      mutationFn: async (body: FunctionInput) =>
        (
          await call(
            api.POST('/api/projects/{projectId}/functions', { params: { path: { projectId } }, body }),
          )
        ).data,
      onSuccess: changed,
    }),
    update: useMutation({
      mutationFn: async ({ functionId, body }: { functionId: string; body: FunctionUpdate }) =>
        (
          await call(
            api.PATCH('/api/projects/{projectId}/functions/{functionId}', { params: path(functionId), body }),
          )
        ).data,
      onSuccess: changed,
    }),
    activate: useMutation({
      mutationFn: async ({ functionId, version }: { functionId: string; version: number }) =>
        (
          await call(
            api.POST('/api/projects/{projectId}/functions/{functionId}/versions/{version}/activate', {
              params: { path: { projectId, functionId, version } },
            }),
          )
        ).data,
      onSuccess: changed,
    }),
    test: useMutation({
      mutationFn: async ({ functionId, event }: { functionId: string; event: Record<string, unknown> }) =>
        (
          await call(
            api.POST('/api/projects/{projectId}/functions/{functionId}/test', {
              params: path(functionId),
              body: { event },
            }),
          )
        ).data.outcome,
    }),
    remove: useMutation({
      mutationFn: (functionId: string) =>
        call(api.DELETE('/api/projects/{projectId}/functions/{functionId}', { params: path(functionId) })),
      onSuccess: (_answer, functionId) => {
        // The list a delete goes back to shows the function gone at once, not until its refetch.
        client.setQueryData(keys.all(projectId), (list: HostedFunction[] | undefined) =>
          list?.filter((f) => f.id !== functionId),
        );
        return changed();
      },
    }),
  };
}
