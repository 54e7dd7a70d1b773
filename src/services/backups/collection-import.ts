// The import of one collection from JSON Lines or CSV, read as the body streams in: each row is
// checked against the collection's schema and, under row-level security, its owner (an active end
// user of the project), then written in batches of 500 tagged with the import's job
// (import-writes.ts). `all-or-nothing` stops reading at the first refused row (the rest of the
// body is never read) and takes back everything the job wrote; `skip-invalid` keeps the valid
// rows. The answer lists the first 100 problems and counts the refused rows. A project runs at
// most MAX_IMPORTS_PER_PROJECT imports at once.
import type { Database } from '../../db/client.js';
import { activeEndUsers } from '../../db/import-rows.js';
import { ApiError, badRequest, conflict, quotaExceeded, validationFailed } from '../../http/errors.js';
import { assertNoLookalikeOwner } from '../data/access.js';
import { validateDocument } from '../schema/validate-document.js';
import type { CollectionDef, Project } from '../types.js';
import { typedCell } from './collection-io.js';
import { readRows, type IoFormat, type ReadLimits } from './import-reader.js';
import type { ImportWrites, JobRef } from './import-writes.js';

export type ImportMode = 'all-or-nothing' | 'skip-invalid';
export interface RejectedRow {
  row: number;
  field: string;
  reason: string;
}
export interface ImportInput {
  format: IoFormat;
  mode: ImportMode;
  /** The end user given to rows without an owner (RLS collections). */
  owner?: string;
  body: AsyncIterable<Buffer | string> | Iterable<string>;
}

const SYSTEM = new Set(['_id', 'createdAt', 'updatedAt', 'isDeleted', 'deletedAt']);
const BATCH = 500;
/** Problems listed in an answer; the refused rows are all counted. */
export const MAX_LISTED = 100;

export interface CollectionImportDeps {
  writes: ImportWrites;
  dbFor(projectId: string): Promise<Database['platform']>;
  limits: ReadLimits;
}

/** The problems of one import: the first MAX_LISTED listed, the rows counted. */
class Rejections {
  readonly items: RejectedRow[] = [];
  rows = 0;
  /** Whether every refused row was refused by a unique index only (a 409 then). */
  onlyUnique = true;
  add(row: number, problems: { field: string; reason: string }[], unique = false): void {
    this.rows += 1;
    if (!unique) this.onlyUnique = false;
    for (const p of problems) if (this.items.length < MAX_LISTED) this.items.push({ row, ...p });
  }
}

export function collectionImport(deps: CollectionImportDeps) {
  /** The owner a row under RLS names (its existence is checked per batch), or why it has none. */
  function ownerOf(def: CollectionDef, doc: Record<string, unknown>): string | { reason: string } {
    const value = doc[def.rls.ownerField];
    if (value === undefined || value === null || value === '')
      return { reason: `owner field ${def.rls.ownerField} is missing` };
    return typeof value === 'string' ? value : { reason: `no end user ${JSON.stringify(value)}` };
  }

  return async function importCollection(
    project: Project,
    def: CollectionDef,
    input: ImportInput,
  ): Promise<{ imported: number; rejected: RejectedRow[]; rejectedRows: number }> {
    const rls = def.rls.enabled;
    const db = await deps.dbFor(project.id);
    if (input.owner !== undefined) {
      if (!rls)
        throw badRequest(`owner applies to collections with row-level security; "${def.name}" has none`);
      if (!(await activeEndUsers(db, [input.owner])).has(input.owner))
        throw badRequest(`owner: no end user ${input.owner} in this project`);
    }
    await deps.writes.sweep(project.id);
    const fields = new Map(def.fields.map((f) => [f.name, f]));
    const rows = readRows(input.body, input.format, deps.limits, (column, cell) =>
      typedCell(fields.get(column), cell),
    );
    const rejected = new Rejections();
    const job: JobRef = await deps.writes.start(project.id, def.name);
    const stopBeating = deps.writes.heartbeat(job);
    let imported = 0;
    let pending: { row: number; doc: Record<string, unknown> }[] = [];
    /** All-or-nothing after a refusal: nothing more is written, rows are only checked. */
    const failed = () => input.mode === 'all-or-nothing' && rejected.rows > 0;

    const flush = async () => {
      let batch = pending;
      pending = [];
      if (rls && batch.length) {
        const owners = await activeEndUsers(db, [
          ...new Set(batch.map((r) => r.doc[def.rls.ownerField] as string)),
        ]);
        batch = batch.filter(({ row, doc }) => {
          const owner = doc[def.rls.ownerField] as string;
          if (owners.has(owner)) return true;
          rejected.add(row, [{ field: def.rls.ownerField, reason: `no end user ${owner}` }]);
          return false;
        });
      }
      if (failed() || !batch.length) return;
      const now = new Date();
      const result = await deps.writes.insert(
        project,
        job,
        batch.map(({ row, doc }) => ({
          row,
          doc: Object.assign(doc, { isDeleted: false, deletedAt: null, createdAt: now, updatedAt: now }),
        })),
      );
      imported += result.written;
      for (const r of result.refused)
        rejected.add(
          r.row,
          [{ field: r.field, reason: `${r.field} must be unique: another document has this value` }],
          true,
        );
      if (result.quota) throw quotaStop(result.quota.row, result.quota.error);
    };
    const quotaStop = (row: number, err: ApiError) =>
      Object.assign(quotaExceeded(`${err.message} (at row ${row})`), { stopRow: row });

    try {
      for await (const read of rows) {
        // Leaving the loop ends the reading: the rest of the body stays unread.
        if (failed()) break;
        if (read.unreadable !== undefined) {
          rejected.add(read.row, [{ field: '(line)', reason: read.unreadable }]);
          continue;
        }
        const doc = checkRow(def, read.value, input.owner);
        if ('problems' in doc) {
          rejected.add(read.row, doc.problems);
          continue;
        }
        pending.push({ row: read.row, doc: doc.data });
        if (pending.length >= BATCH) await flush();
      }
      if (!failed()) await flush();
    } catch (err) {
      stopBeating();
      const stop = (err as { stopRow?: number }).stopRow;
      if (stop !== undefined && input.mode === 'skip-invalid') {
        await deps.writes.keep(job);
        const kept =
          imported === 0
            ? 'no row was written before it'
            : imported === 1
              ? 'the row written before it is kept'
              : `the ${imported} rows written before it are kept`;
        throw quotaExceeded(`${(err as Error).message}; ${kept}`);
      }
      await deps.writes.discard(job);
      if (stop !== undefined) throw quotaExceeded(`${(err as Error).message}; nothing was imported`);
      throw err;
    }
    stopBeating();
    if (failed()) {
      await deps.writes.discard(job);
      const first = Math.min(...rejected.items.map((r) => r.row));
      const message =
        rejected.rows === 1
          ? `Row ${first} is invalid; nothing was imported (the rows after it were not read)`
          : `${rejected.rows} rows are invalid; nothing was imported (the rows after them were not read)`;
      const details = rejected.items
        .sort((a, b) => a.row - b.row)
        .map((r) => ({ path: `row ${r.row}: ${r.field}`, message: r.reason }));
      throw rejected.onlyUnique
        ? conflict(message, 'DUPLICATE_VALUE', details)
        : validationFailed(message, details);
    }
    await deps.writes.keep(job);
    // By row: owner problems are found per batch, after the schema problems of later rows.
    const listed = rejected.items.sort((a, b) => a.row - b.row);
    return { imported, rejected: listed, rejectedRows: rejected.rows };
  };

  /** A row checked as a secret-key create is, and under RLS for its owner field. */
  function checkRow(
    def: CollectionDef,
    value: unknown,
    owner: string | undefined,
  ): { data: Record<string, unknown> } | { problems: { field: string; reason: string }[] } {
    let body = value;
    if (value && typeof value === 'object' && !Array.isArray(value)) {
      const kept = Object.fromEntries(Object.entries(value).filter(([k]) => !SYSTEM.has(k)));
      const ownerField = def.rls.ownerField;
      if (
        def.rls.enabled &&
        owner !== undefined &&
        (kept[ownerField] === undefined || kept[ownerField] === null)
      )
        kept[ownerField] = owner;
      body = kept;
    }
    let data: Record<string, unknown>;
    try {
      data = validateDocument(def, body, 'create');
      assertNoLookalikeOwner(def, Object.keys(data));
    } catch (err) {
      if (!(err instanceof ApiError)) throw err;
      const details = err.details?.length ? err.details : [{ path: '(row)', message: err.message }];
      return { problems: details.map((d) => ({ field: d.path, reason: d.message })) };
    }
    if (def.rls.enabled) {
      const found = ownerOf(def, data);
      if (typeof found !== 'string')
        return { problems: [{ field: def.rls.ownerField, reason: found.reason }] };
    }
    return { data };
  }
}

export type CollectionImport = ReturnType<typeof collectionImport>;
