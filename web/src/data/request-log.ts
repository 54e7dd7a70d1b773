// The project's request log (TanStack Query): pages newest first, each older page after the
// cursor of the one before, keyed by the filters so a late answer never lands under new ones.
import { useInfiniteQuery } from '@tanstack/react-query';
import { api, call } from '../api';

export type StatusClass = '2xx' | '3xx' | '4xx' | '5xx';

export function useRequestLog(projectId: string, status: StatusClass | undefined, path: string) {
  return useInfiniteQuery({
    queryKey: ['request-log', projectId, status ?? '', path],
    initialPageParam: undefined as string | undefined,
    queryFn: async ({ pageParam, signal }) =>
      (
        await call(
          api.GET('/api/projects/{projectId}/request-log', {
            params: {
              path: { projectId },
              query: { status, path: path || undefined, cursor: pageParam, limit: 100 },
            },
            signal,
          }),
        )
      ).data,
    getNextPageParam: (last) => last.pagination.nextCursor ?? undefined,
  });
}
