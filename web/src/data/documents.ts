// Server state of the data pages (TanStack Query): a collection's definition, a page of its
// documents keyed by everything the request depends on (so a late answer to an older request is
// stored under its own key and never shown for the newer one; the older request is also aborted),
// and the writes (bulk trash and restore in one call per 100 ids), each refreshing the pages of its
// collection when done.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, call, type ApiDocument, type Schemas } from '../api';

export type BulkOutcome = Schemas['BulkTrashEnvelope']['data'];
export type BulkStatus = BulkOutcome['results'][number]['status'];

/** As many ids as the bulk trash and restore take in one call. */
const MAX_BULK_IDS = 100;
const NO_COUNTS: BulkOutcome['counts'] = { trashed: 0, restored: 0, notFound: 0, forbidden: 0, conflict: 0 };
const WORDS: Record<BulkStatus, string> = {
  trashed: 'moved to trash',
  restored: 'restored',
  notFound: 'not found',
  forbidden: 'forbidden',
  conflict: 'in conflict',
};

/** "3 moved to trash, 1 not found", as the API words it in its `message`. */
export function outcomeWords(counts: BulkOutcome['counts']): string {
  return (Object.keys(WORDS) as BulkStatus[])
    .filter((status) => counts[status] > 0)
    .map((status) => `${counts[status]} ${WORDS[status]}`)
    .join(', ');
}

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

/** The query of one collection's definition (shared by the pages and the Ref labels). */
export const collectionDefQuery = (projectId: string, name: string) => ({
  queryKey: ['collection', projectId, name],
  queryFn: async ({ signal }: { signal: AbortSignal }) =>
    (
      await call(
        api.GET('/api/projects/{projectId}/collections/{collectionName}', {
          params: { path: { projectId, collectionName: name } },
          signal,
        }),
      )
    ).data.collection,
});

export function useCollectionDef(projectId: string, name: string) {
  return useQuery(collectionDefQuery(projectId, name));
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

/** One document, trashed or not (the document page); under its collection's key, so every write
 * to the collection refreshes it. Not asked for without an id (a new document). */
export function useDocument(projectId: string, name: string, id: string | undefined) {
  return useQuery({
    queryKey: [...documentsKey(projectId, name), 'one', id ?? ''],
    enabled: id !== undefined,
    queryFn: async ({ signal }) =>
      (
        await call(
          api.GET('/api/projects/{projectId}/data/{collectionName}/{id}', {
            params: { path: { projectId, collectionName: name, id: id! }, query: { include_deleted: true } },
            signal,
          }),
        )
      ).data,
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
      // One call per 100 ids (the API's limit; a page shows up to 500 rows), one in most cases.
      const outcome: BulkOutcome = { results: [], counts: { ...NO_COUNTS } };
      for (let i = 0; i < ids.length; i += MAX_BULK_IDS) {
        const params = { params: { path }, body: { ids: ids.slice(i, i + MAX_BULK_IDS) } };
        const { data } = await call(
          kind === 'trash'
            ? api.POST('/api/projects/{projectId}/data/{collectionName}/bulk/delete', params)
            : api.POST('/api/projects/{projectId}/data/{collectionName}/bulk/restore', params),
        );
        outcome.results.push(...data.results);
        for (const status of Object.keys(NO_COUNTS) as BulkStatus[])
          outcome.counts[status] += data.counts[status];
      }
      return outcome;
    },
    onSettled: refresh,
  });
  return { update, lifecycle, refresh };
}
