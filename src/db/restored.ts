// Writing one record a restore brings back: always under the target project's id (in the filter
// and the record), so a record whose id another project uses is refused and never overwritten.
// Each repository that owns a record kind calls this from its own typed `restore` function.
import type { Collection, Document, Filter } from 'mongodb';
import { isDuplicateKey } from './errors.js';
import { ObjectId, toObjectId } from './ids.js';

export async function replaceInProject<T extends Document>(
  collection: Collection<T>,
  projectId: string,
  id: string,
  record: Omit<T, '_id' | 'projectId'>,
): Promise<void> {
  const _id = toObjectId(id);
  const pid = toObjectId(projectId);
  if (!_id || !pid) throw new Error(`a restored ${collection.collectionName} record has no valid id`);
  const filter = { _id, projectId: pid } as unknown as Filter<T>;
  try {
    await collection.replaceOne(filter, { ...record, _id, projectId: pid } as unknown as T, { upsert: true });
  } catch (err) {
    // The upsert found no record of this project with that id and inserting it collided.
    if (isDuplicateKey(err)) {
      throw new Error(
        `a restored ${collection.collectionName} record collides with a record of another project`,
        {
          cause: err,
        },
      );
    }
    throw err;
  }
}

/** How many of `ids` are records of another project than `projectId` (a restore keeping ids must find none). */
export async function takenElsewhere(
  collection: Collection<Document>,
  projectId: string,
  ids: string[],
): Promise<number> {
  const _ids = ids.map(toObjectId).filter((id): id is ObjectId => !!id);
  if (!_ids.length) return 0;
  return collection.countDocuments({ _id: { $in: _ids }, projectId: { $ne: new ObjectId(projectId) } });
}
