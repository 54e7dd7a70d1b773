// The rows of a collection import under way, and its job record (platform collection
// `import_jobs`). Rows are inserted as they are read, each carrying IMPORT_KEY (the job's id), so
// that an import refused halfway, or whose process died, can be taken back whole: the tag is
// removed when the import is kept, the tagged rows deleted when it is not. Rows are looked up from
// the job's first possible `_id` (an ObjectId of its start time) on, never the whole collection.
import { BSON, ObjectId, type Db, type Document } from 'mongodb';
import { duplicateRows } from './backups.js';
import { registerPlatformIndexes } from './platform.js';
import { IMPORT_KEY } from './project-indexes.js';
import { abortable, asExternalTimeout, underDeadline } from './external-deadline.js';

export { IMPORT_KEY };
const COLLECTION = 'import_jobs';
registerPlatformIndexes(COLLECTION, [
  { key: { projectId: 1, heartbeatAt: 1 }, name: 'project_heartbeat' },
  { key: { heartbeatAt: 1 }, name: 'heartbeat' },
]);

export interface ImportJob {
  _id: string;
  projectId: string;
  collection: string;
  /** `committing` once the rows are to be kept: a sweep then finishes keeping them. */
  state: 'running' | 'committing';
  startedAt: Date;
  heartbeatAt: Date;
}

export function importJobsRepo(platform: Db) {
  const jobs = platform.collection<ImportJob>(COLLECTION);
  return {
    async start(job: Omit<ImportJob, 'heartbeatAt' | 'state'>): Promise<void> {
      await jobs.insertOne({ ...job, state: 'running', heartbeatAt: new Date() });
    },
    async beat(id: string, state?: ImportJob['state']): Promise<void> {
      await jobs.updateOne({ _id: id }, { $set: { heartbeatAt: new Date(), ...(state ? { state } : {}) } });
    },
    async end(id: string): Promise<void> {
      await jobs.deleteOne({ _id: id });
    },
    /** The project's jobs that beat since `after` (running in some process), the caller's own included. */
    live: (projectId: string, after: Date) =>
      jobs.countDocuments({ projectId, heartbeatAt: { $gte: after } }),
    /** A deleted project's jobs (its database, rows included, is gone). */
    async removeAll(projectId: string): Promise<void> {
      await jobs.deleteMany({ projectId });
    },
    /** Jobs (of one project, or all) whose process stopped beating before `before` (died, or hung). */
    stale: (projectId: string | undefined, before: Date) =>
      jobs.find({ ...(projectId ? { projectId } : {}), heartbeatAt: { $lt: before } }).toArray(),
    /** Takes a stale job for one sweeper: false when another took it (or it beat meanwhile). */
    async claim(job: ImportJob): Promise<boolean> {
      const res = await jobs.updateOne(
        { _id: job._id, heartbeatAt: job.heartbeatAt },
        { $set: { heartbeatAt: new Date() } },
      );
      return res.modifiedCount === 1;
    },
  };
}

export type ImportJobsRepo = ReturnType<typeof importJobsRepo>;

/** The first `_id` a row of a job started at `startedAt` can have (ids are made after it). */
const firstId = (startedAt: Date) => ObjectId.createFromTime(Math.floor(startedAt.getTime() / 1000) - 1);

/** Rows with their new `_id` (before their size is taken for the quota). */
export const withIds = (docs: Document[]) => docs.map((doc) => ({ _id: new ObjectId(), ...doc }));

/** The stored size of each row once tagged (what the quota reserves for it). */
export const taggedSizes = (docs: Document[], jobId: string) =>
  docs.map((doc) => BSON.calculateObjectSize({ ...doc, [IMPORT_KEY]: jobId }));

/**
 * Inserts rows tagged with the job's id, unordered: a row a unique index refuses is reported by
 * its index in `docs` (and the field) and the others are written. Returns the bytes written.
 */
export async function insertTagged(
  db: Db,
  collection: string,
  docs: Document[],
  jobId: string,
): Promise<{ bytes: number; refused: { index: number; field: string }[] }> {
  const tagged = docs.map((doc) => ({ ...doc, [IMPORT_KEY]: jobId }));
  try {
    await underDeadline(db, (signal) =>
      db.collection(collection).insertMany(tagged, { ordered: false, ...abortable(signal) }),
    );
    return { bytes: tagged.reduce((sum, doc) => sum + BSON.calculateObjectSize(doc), 0), refused: [] };
  } catch (err) {
    const refused = duplicateRows(err);
    if (!refused) {
      // Whatever was written of this batch is the job's and goes with it (the sweep or discard).
      throw err;
    }
    const failed = new Set(refused.map((r) => r.index));
    const bytes = tagged.reduce(
      (sum, doc, i) => (failed.has(i) ? sum : sum + BSON.calculateObjectSize(doc)),
      0,
    );
    return { bytes, refused: refused.map(({ index, field }) => ({ index, field })) };
  }
}

/** The job's rows, `size` at a time, by `_id`, through one cursor. */
export async function* taggedBatches(
  db: Db,
  collection: string,
  job: { id: string; startedAt: Date },
  size: number,
): AsyncGenerator<Document[]> {
  const cursor = db
    .collection(collection)
    .find(
      { _id: { $gte: firstId(job.startedAt) }, [IMPORT_KEY]: job.id },
      { sort: { _id: 1 }, batchSize: size },
    );
  let batch: Document[] = [];
  try {
    for await (const doc of cursor) {
      batch.push(doc);
      if (batch.length >= size) {
        yield batch;
        batch = [];
      }
    }
    if (batch.length) yield batch;
  } catch (err) {
    throw asExternalTimeout(db, err);
  } finally {
    await cursor.close().catch(() => undefined);
  }
}

/** Keeps the job's rows: their tag goes, in one update. Returns the stored bytes that freed. */
export async function untagAll(db: Db, collection: string, job: { id: string; startedAt: Date }) {
  // The tag's element in each document: its type, name, length and value.
  const tagBytes = BSON.calculateObjectSize({ [IMPORT_KEY]: job.id }) - BSON.calculateObjectSize({});
  const res = await underDeadline(db, (signal) =>
    db
      .collection(collection)
      .updateMany(
        { _id: { $gte: firstId(job.startedAt) }, [IMPORT_KEY]: job.id },
        { $unset: { [IMPORT_KEY]: '' } },
        abortable(signal),
      ),
  );
  return res.modifiedCount * tagBytes;
}

/** Deletes the job's rows; returns the stored bytes they took (measured first, then one delete). */
export async function removeTagged(db: Db, collection: string, job: { id: string; startedAt: Date }) {
  let bytes = 0;
  for await (const docs of taggedBatches(db, collection, job, 500))
    for (const doc of docs) bytes += BSON.calculateObjectSize(doc);
  await underDeadline(db, (signal) =>
    db
      .collection(collection)
      .deleteMany({ _id: { $gte: firstId(job.startedAt) }, [IMPORT_KEY]: job.id }, abortable(signal)),
  );
  return bytes;
}

/** Which of `ids` are active end users of the project (the `users` collection). */
export async function activeEndUsers(db: Db, ids: string[]): Promise<Set<string>> {
  const oids = ids.filter((id) => ObjectId.isValid(id) && /^[0-9a-f]{24}$/i.test(id));
  if (!oids.length) return new Set();
  const found = await underDeadline(db, (signal) =>
    db
      .collection('users')
      .find(
        { _id: { $in: oids.map((id) => new ObjectId(id)) }, isDeleted: { $ne: true } },
        { projection: { _id: 1 }, ...abortable(signal) },
      )
      .toArray(),
  );
  return new Set(found.map((doc) => String(doc._id)));
}
