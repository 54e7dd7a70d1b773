// Server state of a project's backups (TanStack Query): the list, polled while a backup is queued
// or running; back up now, download, delete, restore into a new project or over this one; a
// restore's job, polled until it settles; and the export and import of one collection.
import { useCallback } from 'react';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, call } from '../api';
import { projectKeys } from './projects';
import { documentsKey } from './documents';
import type { operations } from '../../../generated/dashboard';

export type BackupJob =
  operations['getBackup']['responses'][200]['content']['application/json']['data']['backup'];
export type Conflicts = NonNullable<BackupJob['conflicts']>;
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
    /** Over this project: `confirm` is its name, typed. */
    replace: useMutation({
      mutationFn: async ({ backupId, confirm }: { backupId: string; confirm: string }) =>
        (
          await call(
            api.POST('/api/projects/{projectId}/backups/{backupId}/restore', {
              params: path(backupId),
              body: { target: 'same', confirm },
            }),
          )
        ).data,
      // Refused for a name the page no longer knows (renamed elsewhere), or for a job under way
      // that the list has not shown yet: both are read again.
      onError: () =>
        Promise.all([
          client.invalidateQueries({ queryKey: projectKeys.one(projectId), exact: true }),
          changed(),
        ]),
    }),
  };
}

/**
 * After a restore over a project has written into it: every cached answer about that project
 * (collections, documents, files, settings...) is stale. The restore's own job is left alone.
 */
export function useProjectRefresh(projectId: string) {
  const client = useQueryClient();
  return useCallback(
    () =>
      client.invalidateQueries({
        predicate: (q) => q.queryKey[0] !== 'restores' && q.queryKey.includes(projectId),
      }),
    [client, projectId],
  );
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

/** What an import sends: the chosen file itself, as the request body. */
export interface ImportFile {
  file: File;
  format: ImportBody['format'];
  mode: NonNullable<ImportBody['mode']>;
}

/**
 * Rows into one collection; the collection's pages are refreshed after. The file is the body (CSV
 * or JSON Lines), which the browser streams from disk and the server reads as it arrives: a file
 * larger than the JSON body limit imports too.
 */
export function useImport(projectId: string, name: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async ({ file, format, mode }: ImportFile) =>
      (
        await call(
          api.POST('/api/projects/{projectId}/collections/{collectionName}/import', {
            params: { path: { projectId, collectionName: name }, query: { mode } },
            // The typed body is the JSON form's; the streamed forms take the text as it is.
            body: file as unknown as ImportBody,
            bodySerializer: (body: unknown) => body as BodyInit,
            headers: { 'content-type': format === 'csv' ? 'text/csv' : 'application/x-ndjson' },
          }),
        )
      ).data,
    onSettled: () => client.invalidateQueries({ queryKey: documentsKey(projectId, name) }),
  });
}

/**
 * A collection's export, read whole into a Blob through the typed client, so a refusal (an ended
 * session, a collection gone) is an ApiFailure in words rather than a downloaded error text. The
 * browser holds the whole file before it is saved.
 */
export function useExport(projectId: string, name: string) {
  return useMutation({
    mutationFn: async (format: 'jsonl' | 'csv') =>
      call(
        api.GET('/api/projects/{projectId}/collections/{collectionName}/export', {
          params: { path: { projectId, collectionName: name }, query: { format } },
          parseAs: 'blob',
        }),
      ),
  });
}
