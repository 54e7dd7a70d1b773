// Export and import of one collection, in the data API's JSON form: JSON Lines (one document per
// line, as `GET /api/data` shows it) or CSV (a column per declared field, objects and arrays as
// JSON). The export streams the active documents; the import (collection-import.ts) streams rows
// in, checked and written in batches.
import { Readable } from 'node:stream';
import { activeDocuments } from '../../db/backups.js';
import type { Database } from '../../db/client.js';
import { notFound } from '../../http/errors.js';
import type { RequestContext } from '../context.js';
import { toApi } from '../data/serialize.js';
import { secretKeyProject } from '../collections.js';
import type { ProjectsService } from '../projects.js';
import type { CollectionDef, FieldDef } from '../types.js';
import { collectionImport, type ImportInput } from './collection-import.js';
import { csvLine, escapeFormula } from './csv.js';
import type { IoFormat } from './import-reader.js';
import { importWrites } from './import-writes.js';
import { importJobsRepo } from '../../db/import-rows.js';
import type { Config } from '../../config.js';
import type { DatabaseQuota } from '../data/quota.js';
import type { EventBus } from '../events.js';

export type { IoFormat };

export interface CollectionIoDeps {
  projects: ProjectsService;
  definition(projectId: string, name: string): Promise<CollectionDef | undefined>;
  dbFor(projectId: string): Promise<Database['platform']>;
  quota: DatabaseQuota;
  events: EventBus;
  platform: Database['platform'];
  config: Pick<Config, 'importMaxBytes' | 'bodyLimitBytes'>;
}

/** Export options: text cells escaped against spreadsheet formulas unless `escapeFormulas` is false. */
export interface ExportOptions {
  escapeFormulas?: boolean;
}

const cellOf = (value: unknown, escape: boolean) =>
  value === null || value === undefined
    ? ''
    : typeof value === 'object'
      ? JSON.stringify(value)
      : typeof value === 'string' && escape
        ? escapeFormula(value)
        : String(value);

/** A CSV cell back to the declared field's type (objects and arrays as JSON); empty: left out. */
export function typedCell(field: FieldDef | undefined, cell: string): unknown {
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
  const jobs = importJobsRepo(deps.platform);
  const writes = importWrites({ ...deps, jobs });
  deps.projects.onDelete((projectId) => jobs.removeAll(projectId));
  // A row is at most what one JSON body may be.
  const limits = { maxBytes: deps.config.importMaxBytes, maxRowBytes: deps.config.bodyLimitBytes };
  const importRows = collectionImport({ writes, dbFor: deps.dbFor, limits });
  /** The project of a dashboard member (`projectId`), or of the secret key (null). */
  async function open(ctx: RequestContext, projectId: string | null, name: string) {
    const project =
      projectId === null
        ? secretKeyProject(ctx)
        : await deps.projects.requireAccess(ctx, projectId, 'member');
    const def = await deps.definition(project.id, name);
    if (!def || name === 'users') throw notFound(`Collection "${name}" not found`, 'COLLECTION_NOT_FOUND');
    return { project, def };
  }

  return {
    async exportCollection(
      ctx: RequestContext,
      projectId: string | null,
      name: string,
      format: IoFormat,
      { escapeFormulas = true }: ExportOptions = {},
    ) {
      const { project, def } = await open(ctx, projectId, name);
      const docs = activeDocuments(await deps.dbFor(project.id), name);
      const columns = ['_id', ...def.fields.map((f) => f.name), 'createdAt', 'updatedAt'];
      async function* lines() {
        if (format === 'csv') yield csvLine(columns);
        for await (const doc of docs) {
          const api = toApi(doc) as Record<string, unknown>;
          yield format === 'csv'
            ? csvLine(columns.map((c) => cellOf(api[c], escapeFormulas)))
            : `${JSON.stringify(api)}\n`;
        }
      }
      return Readable.from(lines());
    },

    /** Finishes the imports of every project whose process died (the worker's `import-sweep`). */
    sweepImports: () => writes.sweep(),

    /** The import (collection-import.ts) into a collection of a member's or the secret key's project. */
    async importCollection(ctx: RequestContext, projectId: string | null, name: string, input: ImportInput) {
      const { project, def } = await open(ctx, projectId, name);
      return importRows(project, def, input);
    },
  };
}

export type CollectionIo = ReturnType<typeof collectionIo>;
