// What a Ref cell shows: the referenced document's display field (the target's first String
// field, or the one the developer chose for that collection, kept in localStorage), read for the
// page shown in one `_id_in` list per target and per 100 ids; the id stays the link's title.
import { useQueries } from '@tanstack/react-query';
import { useCallback, useMemo, useState } from 'react';
import type { ApiDocument, Collection } from '../../api';
import { collectionDefQuery, fetchDocuments } from '../../data/documents';
import { navigate } from '../../router';

const HEX_ID = /^[0-9a-f]{24}$/i;
/** As many values as the API's `_in` filter takes. */
const MAX_IN = 100;

/** The display field the developer chose per target collection (none: its first String field). */
export function useDisplayFields(projectId: string) {
  const key = `ref-display:${projectId}`;
  const [chosen, setChosen] = useState<Record<string, string>>(() => {
    try {
      const stored = JSON.parse(localStorage.getItem(key) ?? '{}') as unknown;
      return stored && typeof stored === 'object' ? (stored as Record<string, string>) : {};
    } catch {
      return {};
    }
  });
  const choose = useCallback(
    (target: string, field: string) => {
      setChosen((now) => {
        const next = { ...now, [target]: field };
        try {
          localStorage.setItem(key, JSON.stringify(next));
        } catch {
          // Storage full or disabled: the choice lasts for this visit only.
        }
        return next;
      });
    },
    [key],
  );
  return [chosen, choose] as const;
}

/** Target collection -> (document id -> its display text), for the Ref fields of `rows`. */
export function useRefLabels(
  projectId: string,
  def: Collection | undefined,
  rows: ApiDocument[],
  chosen: Record<string, string>,
): Map<string, Map<string, string>> {
  const refFields = (def?.fields ?? []).filter((f) => f.type === 'Ref' && f.ref);
  const targets = [...new Set(refFields.map((f) => f.ref!))];
  const defs = useQueries({ queries: targets.map((t) => collectionDefQuery(projectId, t)) });
  const jobs = targets.flatMap((target, i) => {
    const targetDef = defs[i]?.data;
    const strings = (targetDef?.fields ?? []).filter((f) => f.type === 'String').map((f) => f.name);
    const field = chosen[target] && strings.includes(chosen[target]) ? chosen[target] : strings[0];
    if (!field) return [];
    const ids = new Set<string>();
    for (const f of refFields.filter((r) => r.ref === target))
      for (const row of rows) {
        const value = row[f.name];
        if (typeof value === 'string' && HEX_ID.test(value)) ids.add(value.toLowerCase());
      }
    const sorted = [...ids].sort();
    const chunks: string[][] = [];
    for (let j = 0; j < sorted.length; j += MAX_IN) chunks.push(sorted.slice(j, j + MAX_IN));
    return chunks.map((chunk) => ({ target, field, chunk }));
  });
  const found = useQueries({
    queries: jobs.map(({ target, field, chunk }) => ({
      queryKey: ['ref-labels', projectId, target, field, chunk],
      staleTime: 10_000,
      queryFn: ({ signal }: { signal: AbortSignal }) =>
        fetchDocuments(
          {
            projectId,
            name: target,
            filters: { _id_in: chunk.join(','), fields: `_id,${field}` },
            sort: '_id',
            limit: MAX_IN,
            trash: false,
          },
          signal,
        ),
    })),
  });
  const labels = new Map<string, Map<string, string>>();
  jobs.forEach(({ target, field }, i) => {
    const byId = labels.get(target) ?? new Map<string, string>();
    for (const doc of found[i]?.data?.rows ?? []) {
      const text = doc[field];
      if (text !== undefined && text !== null && text !== '') byId.set(String(doc._id), String(text));
    }
    labels.set(target, byId);
  });
  return labels;
}

/**
 * One Ref value's display text, as the grid's cell shows it (the same queries, so the same cache),
 * for a form's picker; undefined while it loads or when the document has none.
 */
export function useRefLabel(projectId: string, target: string, id: string | null): string | undefined {
  const [chosen] = useDisplayFields(projectId);
  const def = useMemo(
    () => ({ fields: [{ name: 'ref', type: 'Ref', ref: target }] }) as Collection,
    [target],
  );
  const rows = useMemo(() => (id ? [{ _id: '', ref: id } as ApiDocument] : []), [id]);
  const labels = useRefLabels(projectId, def, rows, chosen);
  return id ? labels.get(target)?.get(id.toLowerCase()) : undefined;
}

/** A Ref cell: the referenced document by its display field (its id when it has none), linked. */
export function RefLink(props: {
  projectId: string;
  target: string;
  id: string;
  labels: Map<string, Map<string, string>>;
}) {
  const { projectId, target, id } = props;
  const label = props.labels.get(target)?.get(id.toLowerCase());
  return (
    <a
      href={`/projects/${projectId}/data/${encodeURIComponent(target)}/${id}`}
      className={label ? 'ref-link' : 'ref-link mono'}
      title={id}
      tabIndex={-1}
      onClick={(e) => {
        if (e.metaKey || e.ctrlKey || e.shiftKey || e.button !== 0) return;
        e.preventDefault();
        navigate(e.currentTarget.getAttribute('href')!);
      }}
    >
      {label ?? id}
    </a>
  );
}
