// Server state of a project's backups (TanStack Query): the list, polled while a backup is queued
// or running; back up now, download, delete and restore into a new project; a restore's job,
// polled until it settles; and the import of rows into one collection.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, call } from '../api';
import { projectKeys } from './projects';
import { documentsKey } from './documents';
import type { operations } from '../../../generated/dashboard';

export type BackupJob =
  operations['getBackup']['responses'][200]['content']['application/json']['data']['backup'];
export type ImportBody = operations['importCollection']['requestBody']['content']['application/json'];

const keys = {
  list: (projectId: string) => ['backups', projectId] as const,
  restore: (projectId: string, restoreId: string) => ['restores', projectId, restoreId] as const,
};

/** Still moving: the page polls until every job is done or failed. */
export const unsettled = (job: Pick<BackupJob, 'state'>) => job.state === 'queued' || job.state === 'running';

const POLL_MS = 1000;

export function useBackups(projectId: string) {
  return useQuery({
    queryKey: keys.list(projectId),
    queryFn: async ({ signal }) =>
      (await call(api.GET('/api/projects/{projectId}/backups', { params: { path: { projectId } }, signal })))
        .data,
    // Polling stops once nothing moves, and with the page (no observer, no interval).
    refetchInterval: (query) => (query.state.data?.backups.some(unsettled) ? POLL_MS : false),
    retry: false,
  });
}

export function useBackupActions(projectId: string) {
  const client = useQueryClient();
  const changed = () => client.invalidateQueries({ queryKey: keys.list(projectId) });
  const path = (backupId: string) => ({ path: { projectId, backupId } });
  return {
    create: useMutation({
      mutationFn: async (includeUsers: boolean) =>
        (
          await call(
            api.POST('/api/projects/{projectId}/backups', {
              params: { path: { projectId } },
              body: { includeUsers },
            }),
          )
        ).data.backup,
      // A refusal (one already under way) also means the list is out of date.
      onSettled: changed,
    }),
    remove: useMutation({
      mutationFn: (backupId: string) =>
        call(api.DELETE('/api/projects/{projectId}/backups/{backupId}', { params: path(backupId) })),
      onSuccess: changed,
    }),
    download: useMutation({
      mutationFn: async (backupId: string) =>
        (
          await call(
            api.POST('/api/projects/{projectId}/backups/{backupId}/download', { params: path(backupId) }),
          )
        ).data,
    }),
    restore: useMutation({
      mutationFn: async ({ backupId, name }: { backupId: string; name: string }) =>
        (
          await call(
            api.POST('/api/projects/{projectId}/backups/{backupId}/restore', {
              params: path(backupId),
              body: { name },
            }),
          )
        ).data,
      onSuccess: () => client.invalidateQueries({ queryKey: projectKeys.all, exact: true }),
    }),
  };
}

/** A restore, asked of the project it writes; polled while it is queued or running. */
export function useRestore(projectId: string, restoreId: string) {
  return useQuery({
    queryKey: keys.restore(projectId, restoreId),
    queryFn: async ({ signal }) =>
      (
        await call(
          api.GET('/api/projects/{projectId}/restores/{restoreId}', {
            params: { path: { projectId, restoreId } },
            signal,
          }),
        )
      ).data.restore,
    refetchInterval: (query) => (query.state.data && !unsettled(query.state.data) ? false : POLL_MS),
  });
}

/** Rows into one collection; the collection's pages are refreshed after. */
export function useImport(projectId: string, name: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (body: ImportBody) =>
      (
        await call(
          api.POST('/api/projects/{projectId}/collections/{collectionName}/import', {
            params: { path: { projectId, collectionName: name } },
            body,
          }),
        )
      ).data,
    onSettled: () => client.invalidateQueries({ queryKey: documentsKey(projectId, name) }),
  });
}

/** The URL of a collection's export (an anchor downloads it with the session cookie). */
export const exportUrl = (projectId: string, name: string, format: 'jsonl' | 'csv') =>
  `/api/projects/${encodeURIComponent(projectId)}/collections/${encodeURIComponent(name)}/export?format=${format}`;
