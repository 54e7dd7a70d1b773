// Export and import of one collection, in the data API's JSON form: JSON Lines (one document per
// line, as `GET /api/data` shows it) or CSV (a column per declared field, objects and arrays as
// JSON). An import checks every row against the collection's schema first and reports the
// rejected ones (row, field, reason); `all-or-nothing` then writes nothing when any row is
// rejected, `skip-invalid` writes the others. Rows are written through the data service (quota,
// unique fields, events), 100 at a time.
import { Readable } from 'node:stream';
import { activeDocuments } from '../../db/backups.js';
import type { Database } from '../../db/client.js';
import { ApiError, badRequest, notFound, validationFailed } from '../../http/errors.js';
import type { RequestContext } from '../context.js';
import type { DataService } from '../data/index.js';
import { toApi } from '../data/serialize.js';
import type { ProjectsService } from '../projects.js';
import { validateDocument } from '../schema/validate-document.js';
import type { CollectionDef, FieldDef } from '../types.js';
import { csvLine, parseCsv } from './csv.js';

export type IoFormat = 'jsonl' | 'csv';
export interface RejectedRow {
  row: number;
  field: string;
  reason: string;
}

const SYSTEM = ['_id', 'createdAt', 'updatedAt', 'isDeleted', 'deletedAt'];
const CHUNK = 100;

export interface CollectionIoDeps {
  projects: ProjectsService;
  data: DataService;
  definition(projectId: string, name: string): Promise<CollectionDef | undefined>;
  dbFor(projectId: string): Promise<Database['platform']>;
}

const cellOf = (value: unknown) =>
  value === null || value === undefined
    ? ''
    : typeof value === 'object'
      ? JSON.stringify(value)
      : String(value);

/** A CSV cell back to the declared field's type (objects and arrays as JSON); empty: left out. */
function typedCell(field: FieldDef | undefined, cell: string): unknown {
  if (cell === '') return undefined;
  switch (field?.type) {
    case 'Number':
      return cell.trim() === '' || Number.isNaN(Number(cell)) ? cell : Number(cell);
    case 'Boolean':
      return cell === 'true' ? true : cell === 'false' ? false : cell;
    case 'Object':
    case 'Array':
      try {
        return JSON.parse(cell) as unknown;
      } catch {
        return cell;
      }
    default:
      return cell;
  }
}

export function collectionIo(deps: CollectionIoDeps) {
  async function open(ctx: RequestContext, projectId: string, name: string) {
    const project = await deps.projects.requireAccess(ctx, projectId, 'member');
    const def = await deps.definition(project.id, name);
    if (!def || name === 'users') throw notFound(`Collection "${name}" not found`, 'COLLECTION_NOT_FOUND');
    const asProject: RequestContext = {
      requestId: ctx.requestId,
      log: ctx.log,
      ip: ctx.ip,
      principal: { project, keyKind: 'secret' },
    };
    return { project, def, asProject };
  }

  /** The rows of an import as objects, or a rejection per row that cannot be read. */
  function rowsOf(def: CollectionDef, format: IoFormat, content: string) {
    const rows: { row: number; value?: unknown; rejected?: RejectedRow }[] = [];
    if (format === 'jsonl') {
      content.split(/\r?\n/).forEach((line, i) => {
        if (!line.trim()) return;
        try {
          rows.push({ row: i + 1, value: JSON.parse(line) as unknown });
        } catch {
          rows.push({ row: i + 1, rejected: { row: i + 1, field: '(line)', reason: 'not a JSON object' } });
        }
      });
      return rows;
    }
    let records: string[][];
    try {
      records = parseCsv(content);
    } catch (err) {
      throw badRequest(`The CSV cannot be read: ${(err as Error).message}`);
    }
    const [header, ...data] = records;
    if (!header) throw badRequest('The CSV has no header row');
    const fields = new Map(def.fields.map((f) => [f.name, f]));
    data.forEach((cells, i) => {
      const value: Record<string, unknown> = {};
      header.forEach((column, c) => {
        const typed = typedCell(fields.get(column), cells[c] ?? '');
        if (typed !== undefined) value[column] = typed;
      });
      rows.push({ row: i + 2, value }); // row numbers as a spreadsheet shows them (header is 1)
    });
    return rows;
  }

  return {
    async exportCollection(ctx: RequestContext, projectId: string, name: string, format: IoFormat) {
      const { project, def } = await open(ctx, projectId, name);
      const docs = activeDocuments(await deps.dbFor(project.id), name);
      const columns = ['_id', ...def.fields.map((f) => f.name), 'createdAt', 'updatedAt'];
      async function* lines() {
        if (format === 'csv') yield csvLine(columns);
        for await (const doc of docs) {
          const api = toApi(doc) as Record<string, unknown>;
          yield format === 'csv' ? csvLine(columns.map((c) => cellOf(api[c]))) : `${JSON.stringify(api)}\n`;
        }
      }
      return Readable.from(lines());
    },

    async importCollection(
      ctx: RequestContext,
      projectId: string,
      name: string,
      input: { format: IoFormat; mode: 'all-or-nothing' | 'skip-invalid'; content: string },
    ) {
      const { def, asProject } = await open(ctx, projectId, name);
      const rejected: RejectedRow[] = [];
      const valid: Record<string, unknown>[] = [];
      for (const { row, value, rejected: unreadable } of rowsOf(def, input.format, input.content)) {
        if (unreadable) {
          rejected.push(unreadable);
          continue;
        }
        const body =
          value && typeof value === 'object' && !Array.isArray(value)
            ? Object.fromEntries(Object.entries(value).filter(([k]) => !SYSTEM.includes(k)))
            : value;
        try {
          validateDocument(def, body, 'create');
          valid.push(body as Record<string, unknown>);
        } catch (err) {
          if (!(err instanceof ApiError)) throw err;
          const details = err.details?.length ? err.details : [{ path: '(row)', message: err.message }];
          for (const d of details) rejected.push({ row, field: d.path, reason: d.message });
        }
      }
      if (input.mode === 'all-or-nothing' && rejected.length) {
        throw validationFailed(
          `${new Set(rejected.map((r) => r.row)).size} rows are invalid; nothing was imported`,
          rejected.map((r) => ({ path: `row ${r.row}: ${r.field}`, message: r.reason })),
        );
      }
      let imported = 0;
      for (let i = 0; i < valid.length; i += CHUNK) {
        imported += (await deps.data.createMany(asProject, name, valid.slice(i, i + CHUNK))).length;
      }
      return { imported, rejected };
    },
  };
}

export type CollectionIo = ReturnType<typeof collectionIo>;
