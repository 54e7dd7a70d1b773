// An action of a page (a save, an upload) with its busy flag and its error; data a page shows is
// loaded through TanStack Query (web/src/data/).
import { useCallback, useState } from 'react';
import { errorText } from './api';

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

export interface PageNotice {
  text: string;
  error?: boolean;
}

/**
 * The one line a page shows after an action of its own (enable, rotate, activate): the words of
 * its result, or of its failure. `act` clears the last one and runs `after` once it succeeded.
 */
export function useNotice() {
  const [notice, setNotice] = useState<PageNotice>();
  const act = useCallback(<T>(promise: Promise<T>, words: (result: T) => string, after?: () => void) => {
    setNotice(undefined);
    promise.then(
      (result) => {
        setNotice({ text: words(result) });
        after?.();
      },
      (err: unknown) => setNotice({ text: errorText(err), error: true }),
    );
  }, []);
  const fail = useCallback((err: unknown) => setNotice({ text: errorText(err), error: true }), []);
  return { notice, setNotice, act, fail };
}
