// `fields=` and `meta=false`: the projection sent to the database, widened by the paths the
// service itself needs (sort keys for the cursor, populated fields), and the trimming of those
// extra paths once they have served.
import { badRequest } from '../../http/errors.js';
import type { CollectionDef } from '../types.js';
import { commaList, META_FIELDS, resolvePath } from './field-paths.js';

export const MAX_FIELDS = 100;

export interface Projection {
  /** For the database; undefined = whole documents. */
  db: Record<string, 0 | 1> | undefined;
  /** Removes what the caller did not ask for (extra paths read for the service's own use). */
  trim(doc: Record<string, unknown>): void;
}

const covers = (path: string, by: string) => path === by || path.startsWith(`${by}.`);

/** Drops paths that another path of the list already contains (`meta` covers `meta.views`). */
function outermost(paths: string[]): string[] {
  const unique = [...new Set(paths)];
  return unique.filter((p) => !unique.some((q) => q !== p && covers(p, q)));
}

function deletePath(doc: Record<string, unknown>, path: string): void {
  const segments = path.split('.');
  let current: unknown = doc;
  for (const segment of segments.slice(0, -1)) {
    if (current === null || typeof current !== 'object') return;
    current = (current as Record<string, unknown>)[segment];
  }
  if (current !== null && typeof current === 'object' && !Array.isArray(current)) {
    delete (current as Record<string, unknown>)[segments[segments.length - 1]!];
  }
}

/**
 * `fields` (comma list, `_id` always included), `meta` (false leaves out the system fields),
 * `needed` (paths read for the service, trimmed afterwards), `kept` (paths always returned).
 */
export function buildProjection(
  def: CollectionDef,
  options: { fields?: string; meta: boolean; needed?: string[]; kept?: string[] },
): Projection {
  const needed = options.needed ?? [];
  const kept = options.kept ?? [];
  const hidden: string[] = options.meta ? [] : [...META_FIELDS];
  if (options.fields !== undefined) {
    const requested = commaList(options.fields, 'fields', MAX_FIELDS).map(
      (raw) => resolvePath(def, raw, 'fields', `Invalid fields "${raw}"`).path,
    );
    const shown = outermost([...requested.filter((p) => !hidden.includes(p)), ...kept]);
    const extra = needed.filter((p) => p !== '_id' && !shown.some((s) => covers(p, s)));
    const db: Record<string, 0 | 1> = { _id: 1 };
    for (const path of outermost([...shown, ...extra])) db[path] = 1;
    // An extra path that contains a shown one (sort by `meta`, fields `meta.lang`) stays whole.
    const trimmed = extra.filter((p) => !shown.some((s) => covers(s, p)));
    return {
      db,
      trim(doc) {
        for (const path of trimmed) deletePath(doc, path);
      },
    };
  }
  if (hidden.length === 0) return { db: undefined, trim: () => undefined };
  const excluded = hidden.filter((p) => !needed.some((n) => covers(n, p)));
  const db: Record<string, 0 | 1> = {};
  for (const path of excluded) db[path] = 0;
  return {
    db: excluded.length ? db : undefined,
    trim(doc) {
      for (const path of hidden) delete doc[path];
    },
  };
}

/** The value of a boolean-ish option that may also come as text. */
export function flag(value: unknown, name: string): boolean {
  if (value === undefined) return false;
  if (typeof value === 'boolean') return value;
  if (value === 'true') return true;
  if (value === 'false') return false;
  throw badRequest(`Validation failed: query.${name} must be true or false`, undefined, 'VALIDATION_FAILED');
}
