// Server state of a collection's indexes and the project's slow queries (TanStack Query): the
// lists, and the create and drop that refresh both (a new index changes which shapes are served).
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, call, type Schemas } from '../api';

export type Index = Schemas['Index'];
export type IndexInput = Schemas['IndexInput'];
export type IndexKey = Schemas['IndexKey'];
export type SlowQuery = Schemas['SlowQuery'];

export const indexKeys = {
  list: (projectId: string, name: string) => ['indexes', projectId, name] as const,
  slow: (projectId: string, name: string) => ['slow-queries', projectId, name] as const,
  sizes: (projectId: string) => ['collection-sizes', projectId] as const,
};

export function useIndexes(projectId: string, name: string) {
  return useQuery({
    queryKey: indexKeys.list(projectId, name),
    queryFn: async ({ signal }) =>
      (
        await call(
          api.GET('/api/projects/{projectId}/collections/{collectionName}/indexes', {
            params: { path: { projectId, collectionName: name } },
            signal,
          }),
        )
      ).data,
  });
}

export function useSlowQueries(projectId: string, name: string) {
  return useQuery({
    queryKey: indexKeys.slow(projectId, name),
    queryFn: async ({ signal }) =>
      (
        await call(
          api.GET('/api/projects/{projectId}/slow-queries', {
            params: { path: { projectId }, query: { collection: name } },
            signal,
          }),
        )
      ).data,
  });
}

export function useCollectionSizes(projectId: string) {
  return useQuery({
    queryKey: indexKeys.sizes(projectId),
    queryFn: async ({ signal }) =>
      (
        await call(
          api.GET('/api/projects/{projectId}/collection-sizes', { params: { path: { projectId } }, signal }),
        )
      ).data,
  });
}

/** Create, drop and forget-slow-queries for one collection; each refreshes the index list and the
 * slow queries (whose `index` and `suggestedIndex` follow the indexes). */
export function useIndexWrites(projectId: string, name: string) {
  const client = useQueryClient();
  const path = { projectId, collectionName: name };
  const refresh = () =>
    Promise.all([
      client.invalidateQueries({ queryKey: indexKeys.list(projectId, name) }),
      client.invalidateQueries({ queryKey: indexKeys.slow(projectId, name) }),
      client.invalidateQueries({ queryKey: indexKeys.sizes(projectId) }),
    ]);
  const create = useMutation({
    mutationFn: async (body: IndexInput) =>
      (
        await call(
          api.POST('/api/projects/{projectId}/collections/{collectionName}/indexes', {
            params: { path },
            body,
          }),
        )
      ).data.index,
    onSuccess: refresh,
  });
  const drop = useMutation({
    mutationFn: async (indexName: string) =>
      call(
        api.DELETE('/api/projects/{projectId}/collections/{collectionName}/indexes/{indexName}', {
          params: { path: { ...path, indexName } },
        }),
      ),
    onSuccess: refresh,
  });
  const forget = useMutation({
    mutationFn: async () =>
      call(
        api.DELETE('/api/projects/{projectId}/slow-queries', {
          params: { path: { projectId }, query: { collection: name } },
        }),
      ),
    onSuccess: refresh,
  });
  return { create, drop, forget };
}

/** `status ascending, createdAt descending`: an index's or a sort's keys in words a person reads. */
export const keysText = (keys: readonly IndexKey[]) =>
  keys.map((k) => `${k.field} ${k.direction === 1 ? 'ascending' : 'descending'}`).join(', ');

/** "1 day", "30 minutes": a TTL in words. */
export function durationText(seconds: number): string {
  const units: [number, string][] = [
    [86_400, 'day'],
    [3_600, 'hour'],
    [60, 'minute'],
  ];
  for (const [size, unit] of units) {
    if (seconds >= size && seconds % size === 0) {
      const n = seconds / size;
      return `${n.toLocaleString('en')} ${unit}${n === 1 ? '' : 's'}`;
    }
  }
  return `${seconds.toLocaleString('en')} second${seconds === 1 ? '' : 's'}`;
}
