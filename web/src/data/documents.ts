// Server state of the data pages (TanStack Query): a collection's definition, a page of its
// documents keyed by everything the request depends on (so a late answer to an older request is
// stored under its own key and never shown for the newer one; the older request is also aborted),
// and the writes, each refreshing the pages of its collection when done.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, call, type ApiDocument } from '../api';

export interface ListParams {
  projectId: string;
  name: string;
  /** Filter query parameters as the data API takes them (`price_gte` → `10`). */
  filters: Record<string, string>;
  sort: string;
  cursor?: string;
  limit: number;
  trash: boolean;
}

export const documentsKey = (projectId: string, name: string) => ['documents', projectId, name] as const;

export function useCollectionDef(projectId: string, name: string) {
  return useQuery({
    queryKey: ['collection', projectId, name],
    queryFn: async ({ signal }) =>
      (
        await call(
          api.GET('/api/projects/{projectId}/collections/{collectionName}', {
            params: { path: { projectId, collectionName: name } },
            signal,
          }),
        )
      ).data.collection,
  });
}

export function useCollections(projectId: string) {
  return useQuery({
    queryKey: ['collections', projectId],
    queryFn: async ({ signal }) =>
      (
        await call(
          api.GET('/api/projects/{projectId}/collections', { params: { path: { projectId } }, signal }),
        )
      ).data,
  });
}

export async function fetchDocuments(p: ListParams, signal?: AbortSignal) {
  const query: Record<string, string | number | boolean> = { ...p.filters, sort: p.sort, limit: p.limit };
  if (p.cursor) query.cursor = p.cursor;
  if (p.trash) query.trash = true;
  const res = await call(
    api.GET('/api/projects/{projectId}/data/{collectionName}', {
      params: { path: { projectId: p.projectId, collectionName: p.name }, query: query as never },
      signal,
    }),
  );
  return {
    rows: (Array.isArray(res.data) ? res.data : []) as ApiDocument[],
    hasMore: res.pagination?.hasMore ?? false,
    nextCursor: res.pagination?.nextCursor ?? null,
  };
}

export function useDocumentList(p: ListParams) {
  return useQuery({
    queryKey: [...documentsKey(p.projectId, p.name), p.trash, p.sort, p.filters, p.cursor ?? '', p.limit],
    queryFn: ({ signal }) => fetchDocuments(p, signal),
  });
}

type Path = { projectId: string; collectionName: string };

/** Writes to one collection's documents; every success refreshes its pages. */
export function useDocumentWrites(projectId: string, name: string) {
  const client = useQueryClient();
  const path: Path = { projectId, collectionName: name };
  const refresh = () => client.invalidateQueries({ queryKey: documentsKey(projectId, name) });
  const update = useMutation({
    mutationFn: async ({ id, patch }: { id: string; patch: Record<string, unknown> }) =>
      (
        await call(
          api.PATCH('/api/projects/{projectId}/data/{collectionName}/{id}', {
            params: { path: { ...path, id } },
            body: patch,
          }),
        )
      ).data,
    onSuccess: refresh,
  });
  const lifecycle = useMutation({
    mutationFn: async ({ ids, kind }: { ids: string[]; kind: 'trash' | 'restore' }) => {
      // One call per document, a few at a time: there is no bulk operation on the dashboard API.
      const failed: string[] = [];
      for (let i = 0; i < ids.length; i += 8) {
        await Promise.all(
          ids.slice(i, i + 8).map(async (id) => {
            const params = { params: { path: { ...path, id } } };
            try {
              if (kind === 'trash')
                await call(api.DELETE('/api/projects/{projectId}/data/{collectionName}/{id}', params));
              else
                await call(api.POST('/api/projects/{projectId}/data/{collectionName}/{id}/restore', params));
            } catch {
              failed.push(id);
            }
          }),
        );
      }
      return { done: ids.length - failed.length, failed };
    },
    onSettled: refresh,
  });
  return { update, lifecycle, refresh };
}
