// The project's collection definitions (the list; the editor and the AI tools share its cache).
import { useQuery } from '@tanstack/react-query';
import { api, call } from '../api';

export const collectionsKey = (projectId: string) => ['collections', projectId] as const;

export function useCollections(projectId: string) {
  return useQuery({
    queryKey: collectionsKey(projectId),
    queryFn: async ({ signal }) =>
      (
        await call(
          api.GET('/api/projects/{projectId}/collections', { params: { path: { projectId } }, signal }),
        )
      ).data.collections,
  });
}
