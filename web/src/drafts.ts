// Drafts that outlive an ended session: a form registers what it holds; when a call is refused
// for want of a session, the shell writes every registered draft to sessionStorage (this tab
// only) under the developer's id before the log-in page replaces the form; the form takes its
// draft back when it opens again for the same developer, and a different developer's log-in
// drops them unread.
import { useEffect, useRef } from 'react';

const PREFIX = 'draft:';
const sources = new Map<string, () => unknown>();

const storageKey = (developerId: string, key: string) => `${PREFIX}${developerId}:${key}`;

/** Registers the form's current draft under `key` while the form is open. */
export function useDraftSource(key: string, draft: unknown): void {
  const latest = useRef(draft);
  latest.current = draft;
  useEffect(() => {
    sources.set(key, () => latest.current);
    return () => {
      sources.delete(key);
    };
  }, [key]);
}

/** Called as the session ends: every open form's draft is kept for `developerId`. */
export function keepDrafts(developerId: string): void {
  for (const [key, read] of sources) {
    try {
      sessionStorage.setItem(storageKey(developerId, key), JSON.stringify(read()));
    } catch {
      // Storage full or disabled: the draft is lost, as before.
    }
  }
}

/** The draft kept for this developer and form, once (it is removed as it is read). */
export function takeDraft<T>(developerId: string | undefined, key: string): T | undefined {
  if (!developerId) return undefined;
  const name = storageKey(developerId, key);
  const raw = sessionStorage.getItem(name);
  if (raw === null) return undefined;
  sessionStorage.removeItem(name);
  try {
    return JSON.parse(raw) as T;
  } catch {
    return undefined;
  }
}

/** Whether a draft is kept for this developer and form (left in place): a closed form opens for it. */
export function hasDraft(developerId: string | undefined, key: string): boolean {
  return !!developerId && sessionStorage.getItem(storageKey(developerId, key)) !== null;
}

/** On a log-in: another developer's drafts in this tab are dropped, never shown. */
export function dropDraftsOfOthers(developerId: string): void {
  for (let i = sessionStorage.length - 1; i >= 0; i--) {
    const name = sessionStorage.key(i);
    if (name?.startsWith(PREFIX) && !name.startsWith(`${PREFIX}${developerId}:`))
      sessionStorage.removeItem(name);
  }
}
