// Which columns the grid shows, and in what order, per collection: every schema field (or, for a
// flexible collection, every key of the rows shown), then the system dates. The person's choice
// (hidden columns and order) is kept in localStorage under the project and collection.
import { useCallback, useState } from 'react';
import type { ApiDocument, Collection, FieldDef } from '../../api';

export const SYSTEM_COLUMNS = ['createdAt', 'updatedAt'];
const NOT_COLUMNS = new Set(['_id', 'isDeleted', 'deletedAt', ...SYSTEM_COLUMNS]);

export interface ColumnPrefs {
  order: string[];
  hidden: string[];
}

/** Every column the data has: declared fields first, then undeclared keys of the rows shown. */
export function availableColumns(def: Collection | undefined, rows: ApiDocument[]): string[] {
  const names = (def?.fields ?? []).map((f) => f.name);
  const seen = new Set(names);
  for (const row of rows)
    for (const key of Object.keys(row))
      if (!seen.has(key) && !NOT_COLUMNS.has(key)) {
        seen.add(key);
        names.push(key);
      }
  return [...names, ...SYSTEM_COLUMNS];
}

/** The columns in the person's order (new ones at the end), with the hidden ones left out. */
export function orderedColumns(all: string[], prefs: ColumnPrefs): { shown: string[]; ordered: string[] } {
  const known = prefs.order.filter((c) => all.includes(c));
  const ordered = [...known, ...all.filter((c) => !known.includes(c))];
  return { ordered, shown: ordered.filter((c) => !prefs.hidden.includes(c)) };
}

export function fieldOf(def: Collection | undefined, name: string): FieldDef | undefined {
  return def?.fields.find((f) => f.name === name);
}

export function useColumnPrefs(projectId: string, name: string) {
  const key = `grid-columns:${projectId}:${name}`;
  const [prefs, setPrefs] = useState<ColumnPrefs>(() => {
    try {
      const stored = JSON.parse(localStorage.getItem(key) ?? 'null') as ColumnPrefs | null;
      if (stored && Array.isArray(stored.order) && Array.isArray(stored.hidden)) return stored;
    } catch {
      // A damaged entry is as good as none.
    }
    return { order: [], hidden: [] };
  });
  const save = useCallback(
    (next: ColumnPrefs) => {
      setPrefs(next);
      try {
        localStorage.setItem(key, JSON.stringify(next));
      } catch {
        // Storage full or disabled: the choice lasts for this visit only.
      }
    },
    [key],
  );
  return [prefs, save] as const;
}
