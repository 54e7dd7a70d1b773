// The one TanStack Query client: server state (caching, invalidation after a change, cancelling
// and ordering answers) lives here rather than in hand-written loaders.
import { QueryClient } from '@tanstack/react-query';
import { ApiFailure } from './api';

export const queryClient = new QueryClient({
  defaultOptions: {
    queries: {
      // A refusal (4xx) will not change by asking again; a network or server error may.
      retry: (count, error) =>
        !(error instanceof ApiFailure && error.status >= 400 && error.status < 500) && count < 2,
      staleTime: 5_000,
      refetchOnWindowFocus: false,
    },
    mutations: { retry: false },
  },
});
