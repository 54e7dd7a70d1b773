// The project's confirmed files (TanStack Query): a page per cursor, newest first, so the answer
// to an older page never shows for a newer one; uploads and deletes refresh every page.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { api, call } from '../api';

export const filesKey = (projectId: string) => ['files', projectId] as const;

export function useProjectFiles(projectId: string, cursor: string | undefined) {
  return useQuery({
    queryKey: [...filesKey(projectId), cursor ?? ''],
    queryFn: async ({ signal }) =>
      call(
        api.GET('/api/projects/{projectId}/files', {
          params: { path: { projectId }, query: cursor ? { cursor } : {} },
          signal,
        }),
      ),
  });
}

/** Asks for the file pages again (after an upload or a delete). */
export function useRefreshFiles(projectId: string) {
  const client = useQueryClient();
  return () => client.invalidateQueries({ queryKey: filesKey(projectId) });
}
