// The registered collections of all projects, read from the platform database for the worker's
// sweeps (src/jobs/trash-purge.ts).
import type { Database } from './client.js';
import type { CollectionRef } from './documents.js';
import type { ObjectId } from './ids.js';

/**
 * Every registered collection of every project (platform database, `collections`), for the
 * sweeps of the worker; read in pages by `_id` so that the sweep never holds a long cursor.
 */
export async function* registeredCollections(
  database: Database,
  pageSize = 500,
): AsyncGenerator<CollectionRef> {
  const defs = database.platform.collection<{ _id: ObjectId; projectId: ObjectId; name: string }>(
    'collections',
  );
  let after: ObjectId | undefined;
  for (;;) {
    const page = await defs
      .find(after ? { _id: { $gt: after } } : {}, { projection: { projectId: 1, name: 1 } })
      .sort({ _id: 1 })
      .limit(pageSize)
      .toArray();
    for (const def of page) yield { projectId: def.projectId.toHexString(), collection: def.name };
    if (page.length < pageSize) return;
    after = page[page.length - 1]!._id;
  }
}
