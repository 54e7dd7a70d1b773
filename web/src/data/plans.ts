// The installation's plans (GET /api/plans): their labels and limits, for the pages that name a
// plan or show a limit, and their edit on the operator's Plans page. A limit of 2^53 - 1 is no
// limit ("unlimited"): nothing is shown.
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { api, call } from '../api';
import type { operations } from '../../../generated/dashboard';

export const UNLIMITED = Number.MAX_SAFE_INTEGER;

/** True for a limit that exists (not missing, not "unlimited"). */
export const isLimit = (limit: number | null | undefined): limit is number =>
  typeof limit === 'number' && limit < UNLIMITED;

export function usePlans() {
  return useQuery({
    queryKey: ['plans'],
    queryFn: async ({ signal }) => (await call(api.GET('/api/plans', { signal }))).data,
    staleTime: Infinity,
  });
}

/** The words for a plan: its label on this installation, else its name. */
export function usePlanLabel(name: string | undefined): string | undefined {
  const plans = usePlans();
  if (!name) return undefined;
  return plans.data?.plans.find((p) => p.name === name)?.label ?? name;
}

export type InstallationPlans = NonNullable<ReturnType<typeof usePlans>['data']>;
export type PlansEdit = operations['updatePlans']['requestBody']['content']['application/json'];

/** The operator's edit of the plans (PUT /api/admin/plans): the answer is the plans in force. */
export function useSavePlans() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: async (body: PlansEdit) => (await call(api.PUT('/api/admin/plans', { body }))).data,
    onSuccess: (plans) => client.setQueryData(['plans'], plans),
  });
}
