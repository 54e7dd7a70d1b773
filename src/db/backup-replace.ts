// Clearing a project before a backup of its own is restored over it (a replacing restore): the
// records of the kinds an archive holds and the collections of its database. Each step may run
// again after a crash (deleting what is gone already is a no-op).
import type { Db } from 'mongodb';
import { ObjectId } from './ids.js';
import { dataCollections, type PlatformPart } from './backups.js';

/** Every file record of the project (any state, any store): the bytes a clear may delete. */
export async function* fileRecords(
  platform: Db,
  projectId: string,
): AsyncGenerator<{ id: string; path: string; provider: string }> {
  const cursor = platform
    .collection('files')
    .find({ projectId: new ObjectId(projectId) }, { projection: { path: 1, provider: 1 } });
  for await (const doc of cursor) {
    yield { id: (doc._id as ObjectId).toHexString(), path: String(doc.path), provider: String(doc.provider) };
  }
}

/** Deletes the project's records of `kinds` (collection definitions, webhooks, functions...). */
export async function clearPlatform(
  platform: Db,
  projectId: string,
  kinds: readonly PlatformPart[],
): Promise<void> {
  for (const part of kinds)
    await platform.collection(part).deleteMany({ projectId: new ObjectId(projectId) });
}

/**
 * Empties or drops each collection of a project database as `fate` says. Emptying keeps the
 * collection's indexes (the end users' unique email among them), so rows restored into it are
 * checked by them as they are written.
 */
export async function clearData(
  db: Db,
  fate: (collection: string) => 'empty' | 'drop' | 'keep',
): Promise<void> {
  for (const name of await dataCollections(db)) {
    const what = fate(name);
    if (what === 'empty') await db.collection(name).deleteMany({});
    else if (what === 'drop') await db.collection(name).drop().catch(ignoreMissing);
  }
}

const ignoreMissing = (err: unknown) => {
  if ((err as { code?: number }).code !== 26) throw err; // NamespaceNotFound: dropped already
};
