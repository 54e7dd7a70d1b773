// The exact stored size of a project's documents, for the usage counters: documents are read as
// raw BSON (never decoded), so each one's size is its buffer's length. Whole scans, meant for the
// usage recount and for deleting a collection, never for a request's hot path.
import type { Collection, Db } from 'mongodb';

async function storedSize(target: Collection): Promise<number> {
  let total = 0;
  for await (const raw of target.find({}, { raw: true })) total += (raw as unknown as Uint8Array).length;
  return total;
}

export function storedSizes(dbFor: (projectId: string) => Db | Promise<Db>) {
  return {
    /** The stored size of every document of a collection, trashed ones included. */
    async collectionSize(ref: { projectId: string; collection: string }): Promise<number> {
      return storedSize((await dbFor(ref.projectId)).collection(ref.collection));
    },

    /** The stored size of every document in a project's database: all collections, trash included. */
    async databaseSize(projectId: string): Promise<number> {
      const db = await dbFor(projectId);
      const names = await db.listCollections({}, { nameOnly: true }).toArray();
      let total = 0;
      for (const { name } of names) {
        if (!name.startsWith('system.')) total += await storedSize(db.collection(name));
      }
      return total;
    },
  };
}
