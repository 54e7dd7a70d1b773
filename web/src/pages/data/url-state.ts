// The grid's state a person can share or come back to lives in the query string: filters
// (`w.<field><suffix>=value`), sort, page size, cursor and the trash view. Changes push a history
// entry, so Back returns to the previous filters or page, and a reload keeps them.
import { useCallback, useEffect, useState } from 'react';

export interface GridUrlState {
  filters: Record<string, string>;
  sort: string;
  limit: number;
  cursor?: string;
  trash: boolean;
}

export const DEFAULT_SORT = '-createdAt';
export const DEFAULT_LIMIT = 50;
export const LIMITS = [25, 50, 100, 500];

export function parseGridState(search: string): GridUrlState {
  const q = new URLSearchParams(search);
  const filters: Record<string, string> = {};
  for (const [key, value] of q) if (key.startsWith('w.') && key.length > 2) filters[key.slice(2)] = value;
  const limit = Number(q.get('limit'));
  return {
    filters,
    sort: q.get('sort') || DEFAULT_SORT,
    limit: LIMITS.includes(limit) ? limit : DEFAULT_LIMIT,
    cursor: q.get('cursor') || undefined,
    trash: q.get('trash') === '1',
  };
}

export function gridSearch(state: GridUrlState): string {
  const q = new URLSearchParams();
  for (const [key, value] of Object.entries(state.filters)) q.append(`w.${key}`, value);
  if (state.sort !== DEFAULT_SORT) q.set('sort', state.sort);
  if (state.limit !== DEFAULT_LIMIT) q.set('limit', String(state.limit));
  if (state.trash) q.set('trash', '1');
  if (state.cursor) q.set('cursor', state.cursor);
  const text = q.toString();
  return text ? `?${text}` : '';
}

/** The current query string, updated on Back and Forward and on our own pushes. */
export function useSearch(): [string, (search: string, replace?: boolean) => void] {
  const [search, setSearch] = useState(location.search);
  useEffect(() => {
    const update = () => setSearch(location.search);
    window.addEventListener('popstate', update);
    return () => window.removeEventListener('popstate', update);
  }, []);
  const push = useCallback((next: string, replace = false) => {
    if (next === location.search) return;
    const url = location.pathname + next;
    if (replace) history.replaceState(null, '', url);
    else history.pushState(null, '', url);
    setSearch(location.search);
  }, []);
  return [search, push];
}

/** The grid's state from the URL, and a setter that writes it back as a new history entry. */
export function useGridUrlState(): [GridUrlState, (patch: Partial<GridUrlState>, replace?: boolean) => void] {
  const [search, push] = useSearch();
  const state = parseGridState(search);
  const set = useCallback(
    (patch: Partial<GridUrlState>, replace = false) =>
      push(gridSearch({ ...parseGridState(location.search), ...patch }), replace),
    [push],
  );
  return [state, set];
}
