// An action of a page (a save, an upload) with its busy flag and its error; data a page shows is
// loaded through TanStack Query (web/src/data/).
import { useCallback, useState } from 'react';

/** Runs an action with a busy flag and its error kept for display. */
export function useAction() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(undefined);
  const run = useCallback(async <T>(action: () => Promise<T>): Promise<T | undefined> => {
    setBusy(true);
    setError(undefined);
    try {
      return await action();
    } catch (err) {
      setError(err);
      return undefined;
    } finally {
      setBusy(false);
    }
  }, []);
  return { busy, error, run, setError };
}
