// Server state of a project's backup schedule (TanStack Query): the plan's period and count, and
// whether the scheduled backups hold the end users (opt-in), set by an admin.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, call } from '../api';
import type { operations } from '../../../generated/dashboard';

export type BackupSchedule =
  operations['getBackupSchedule']['responses'][200]['content']['application/json']['data']['schedule'];

const key = (projectId: string) => ['backup-schedule', projectId] as const;

export function useBackupSchedule(projectId: string) {
  return useQuery({
    queryKey: key(projectId),
    queryFn: async ({ signal }) =>
      (
        await call(
          api.GET('/api/projects/{projectId}/backup-schedule', { params: { path: { projectId } }, signal }),
        )
      ).data.schedule,
    retry: false,
  });
}

export function useSetBackupSchedule(projectId: string) {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (includeUsers: boolean) =>
      (
        await call(
          api.PUT('/api/projects/{projectId}/backup-schedule', {
            params: { path: { projectId } },
            body: { includeUsers },
          }),
        )
      ).data.schedule,
    onSuccess: (schedule) => client.setQueryData(key(projectId), schedule),
  });
}
