// What a restore could not bring back as it was, by collection and row (the document's line in
// its part): a row a unique index refused (a value another row holds: not written), and a Ref
// pointing at a document that is not in the restored project (written; reported once every part
// is loaded, since its target may come later). The list is bounded; the count is not.
import { existingIds, type PendingRef, type RestoreRefsRepo } from '../../db/restore-refs.js';
import { ObjectId } from '../../db/ids.js';
import type { Database } from '../../db/client.js';
import type { Conflict, Conflicts } from '../../db/backup-jobs.js';
import type { CollectionDef, FieldDef } from '../types.js';

type Document = Record<string, unknown>;

export const MAX_LISTED = 100;
const REF_BATCH = 500;

/** The conflicts of one restore, starting from what an earlier run recorded. */
export function conflictLog(start: Conflicts | null) {
  const log: Conflicts = { total: start?.total ?? 0, items: [...(start?.items ?? [])] };
  return {
    add(conflict: Conflict): void {
      log.total += 1;
      if (log.items.length < MAX_LISTED) log.items.push(conflict);
    },
    snapshot: (): Conflicts => ({ total: log.total, items: [...log.items] }),
  };
}

export type ConflictLog = ReturnType<typeof conflictLog>;

/** The Ref values of a document under `fields`, nested objects and arrays included. */
export function* refsOf(
  doc: Document,
  fields: FieldDef[],
  prefix = '',
): Generator<{ field: string; target: string; value: unknown }> {
  for (const field of fields) {
    const value = doc[field.name] as unknown;
    if (value === undefined || value === null) continue;
    const path = `${prefix}${field.name}`;
    if (field.type === 'Ref' && field.ref) yield { field: path, target: field.ref, value };
    else if (field.type === 'Object' && field.fields && isObject(value))
      yield* refsOf(value, field.fields, `${path}.`);
    else if (field.type === 'Array' && field.items && Array.isArray(value)) {
      const items = field.items;
      for (const [i, item] of value.entries()) {
        if (item === undefined || item === null) continue;
        if (items.type === 'Ref' && items.ref)
          yield { field: `${path}.${i}`, target: items.ref, value: item };
        else if (items.type === 'Object' && items.fields && isObject(item))
          yield* refsOf(item, items.fields, `${path}.${i}.`);
      }
    }
  }
}

const isObject = (value: unknown): value is Document =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof ObjectId);

const asId = (value: unknown): ObjectId | undefined => {
  if (value instanceof ObjectId) return value;
  return typeof value === 'string' && /^[0-9a-f]{24}$/i.test(value) ? new ObjectId(value) : undefined;
};

/**
 * Follows the Refs of one restore: `row` keeps those of each document loaded (written at
 * `flush`, after each batch), and `check` looks their targets up once every part is loaded.
 */
export function refTracker(repo: RestoreRefsRepo, jobId: string, definitions: CollectionDef[]) {
  const byName = new Map(definitions.map((def) => [def.name, def]));
  let pending: PendingRef[] = [];
  return {
    row(collection: string, row: number, doc: Document): void {
      const def = byName.get(collection);
      if (!def) return;
      for (const ref of refsOf(doc, def.fields)) pending.push({ collection, row, ...ref });
    },
    async flush(): Promise<void> {
      const batch = pending;
      pending = [];
      await repo.record(jobId, batch);
    },
    /** Adds a conflict for each Ref whose target is not in `db`; then forgets the job's Refs. */
    async check(db: Database['platform'], log: ConflictLog): Promise<void> {
      for await (const batch of repo.batches(jobId, REF_BATCH)) {
        const found = new Map<string, Set<string>>();
        for (const target of new Set(batch.map((ref) => ref.target))) {
          const ids = batch.filter((ref) => ref.target === target).flatMap((ref) => asId(ref.value) ?? []);
          found.set(target, await existingIds(db, target, ids));
        }
        for (const ref of batch) {
          const id = asId(ref.value);
          if (id && found.get(ref.target)!.has(id.toHexString())) continue;
          const reason = id
            ? `refers to ${id.toHexString()} in ${ref.target}, which is not in the restored project`
            : `is not a document id (a Ref to ${ref.target})`;
          log.add({ collection: ref.collection, row: ref.row, field: ref.field, reason });
        }
      }
      await repo.clear(jobId);
    },
    clear: () => repo.clear(jobId),
  };
}
