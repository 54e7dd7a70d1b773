// The installation's plans (GET /api/plans): their labels and limits, for the pages that name a
// plan or show a limit. A limit of 2^53 - 1 is no limit (PLANS_FILE "unlimited"): nothing is shown.
import { useQuery } from '@tanstack/react-query';
import { api, call } from '../api';

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
