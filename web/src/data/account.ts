// The logged-in developer (GET /api/user/me): null when signed out.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { api, ApiFailure, call, type Developer } from '../api';

export const meKey = ['me'] as const;

export function useMe() {
  return useQuery({
    queryKey: meKey,
    queryFn: async ({ signal }): Promise<Developer | null> => {
      try {
        return (await call(api.GET('/api/user/me', { signal }))).data.developer;
      } catch (err) {
        if (err instanceof ApiFailure && err.status === 401) return null;
        throw err;
      }
    },
    retry: false,
  });
}

/** After a log-in, log-out or an end of session: the new developer, and nothing cached for the old. */
export function useSetMe() {
  const client = useQueryClient();
  return (developer: Developer | null) => {
    client.removeQueries({ predicate: (q) => q.queryKey[0] !== meKey[0] });
    client.setQueryData(meKey, developer);
  };
}
