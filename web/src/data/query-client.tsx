// The TanStack Query client of the data pages, used only while the app shell provides none: once
// the shell wraps the app in its own QueryClientProvider, this passes its children through.
import { QueryClient, QueryClientContext, QueryClientProvider } from '@tanstack/react-query';
import { useContext, type ReactNode } from 'react';
import { ApiFailure } from '../api';

const fallback = new QueryClient({
  defaultOptions: {
    queries: {
      // A refusal (4xx) will not change on a retry; a network failure or a 5xx may.
      retry: (count, err) =>
        count < 2 && !(err instanceof ApiFailure && err.status >= 400 && err.status < 500),
      refetchOnWindowFocus: false,
      staleTime: 5_000,
    },
  },
});

export function DataQueryProvider({ children }: { children: ReactNode }) {
  const shell = useContext(QueryClientContext);
  if (shell) return <>{children}</>;
  return <QueryClientProvider client={fallback}>{children}</QueryClientProvider>;
}
