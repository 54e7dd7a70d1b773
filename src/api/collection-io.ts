// Export and import of one collection on the dashboard (members): JSON Lines or CSV
// (services/backups/collection-io.ts).
import type { operations } from '../../generated/dashboard.js';
import type { Handler } from '../http/types.js';
import type { Services } from '../services/index.js';

type Ops = operations;

export function collectionIoHandlers({ backups }: Services) {
  const exportCollection: Handler<Ops['exportCollection']> = async ({ params, query }, ctx) => {
    const format = query.format ?? 'jsonl';
    const stream = await backups.io.exportCollection(ctx, params.projectId, params.collectionName, format);
    return {
      status: 200,
      body: stream,
      headers: {
        'Content-Type': format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson',
        'Content-Disposition': `attachment; filename="${params.collectionName}.${format}"`,
      },
    };
  };

  const importCollection: Handler<Ops['importCollection']> = async ({ params, body }, ctx) => {
    const result = await backups.io.importCollection(ctx, params.projectId, params.collectionName, {
      format: body.format,
      mode: body.mode ?? 'all-or-nothing',
      content: body.content,
    });
    const message = `${result.imported} rows imported, ${result.rejected.length} problems in rejected rows`;
    return { status: 200, body: { success: true, data: result, message } };
  };

  return { exportCollection, importCollection };
}
