// A read of the one document an `_id` pins, as a single `find` command: the command the driver's
// `findOne` sends (limit 1, one batch, so the server keeps no cursor), without the cursor object,
// its session bookkeeping and its close that `findOne` builds around it. In a closed loop on the
// test stack that is about 90 µs of the client's CPU per read instead of 120, on the data API's
// hottest path (get by id, RLS reads, the read before an update or delete).
import {
  MongoNetworkError,
  MongoServerError,
  type Db,
  type Document as MongoDocument,
  type Long,
} from 'mongodb';
import { ObjectId } from './ids.js';

interface FindReply {
  cursor?: { firstBatch?: MongoDocument[]; id?: number | Long; ns?: string };
}

/** The command of a pinned read; `Db.command` inherits nothing from the database, so its read concern is added here. */
function findCommand(
  db: Db,
  collection: string,
  filter: MongoDocument,
  projection: Record<string, 0 | 1> | undefined,
  maxTimeMS: number,
): MongoDocument {
  const command: MongoDocument = { find: collection, filter, limit: 1, singleBatch: true, maxTimeMS };
  if (projection) command.projection = projection;
  const level = db.readConcern?.level;
  if (level) command.readConcern = { level };
  return command;
}

/** Whether a filter matches at most the one document of an `_id` equality (at its top or in its `$and`). */
export function pinsOneId(filter: MongoDocument): boolean {
  const id: unknown = filter._id;
  if (id instanceof ObjectId || typeof id === 'string') return true;
  const all: unknown = filter.$and;
  return (
    Array.isArray(all) &&
    all.some((part) => part !== null && typeof part === 'object' && pinsOneId(part as MongoDocument))
  );
}

/**
 * The server error codes after which the driver retries a read once (the retryable reads
 * specification): a primary stepping down or shutting down, a member that is not primary any
 * more, a network failure the server reports.
 */
const RETRYABLE_READ_CODES = new Set([
  6, // HostUnreachable
  7, // HostNotFound
  89, // NetworkTimeout
  91, // ShutdownInProgress
  134, // ReadConcernMajorityNotAvailableYet
  189, // PrimarySteppedDown
  262, // ExceededTimeLimit
  9001, // SocketException
  10107, // NotWritablePrimary
  11600, // InterruptedAtShutdown
  11602, // InterruptedDueToReplStateChange
  13435, // NotPrimaryNoSecondaryOk
  13436, // NotPrimaryOrSecondary
]);

/** Whether the driver would have retried a `findOne` that failed so (`Db.command` retries nothing). */
export const retryableRead = (err: unknown): boolean =>
  err instanceof MongoNetworkError ||
  (err instanceof MongoServerError && typeof err.code === 'number' && RETRYABLE_READ_CODES.has(err.code));

const isOpenCursor = (id: number | Long | undefined) =>
  id !== undefined && (typeof id === 'number' ? id !== 0 : !id.isZero());

/**
 * The document, or null. Retried once after an error the driver retries reads after (a failover
 * of a project's own replica set), unless the deployment's URI turns retryable reads off. A server
 * that left a cursor open despite `singleBatch` (none known) has it closed in the background, so
 * no cursor waits for the server's idle timeout.
 */
export async function findPinned(
  db: Db,
  collection: string,
  filter: MongoDocument,
  projection: Record<string, 0 | 1> | undefined,
  maxTimeMS: number,
  /** The deadline of a project's own database (external-deadline.ts); none on the managed one. */
  signal?: AbortSignal,
): Promise<MongoDocument | null> {
  // The database's read preference (a project's own deployment may set one in its URI), as
  // `findOne` would use it; `Db.command` would otherwise read from the primary.
  const options = signal
    ? { readPreference: db.readPreference, signal }
    : { readPreference: db.readPreference };
  const read = async () =>
    (await db.command(findCommand(db, collection, filter, projection, maxTimeMS), options)) as FindReply;
  let reply: FindReply;
  try {
    reply = await read();
  } catch (err) {
    if (!retryableRead(err) || db.client.options.retryReads === false) throw err;
    reply = await read();
  }
  const cursor = reply.cursor;
  if (isOpenCursor(cursor?.id))
    void db.command({ killCursors: collection, cursors: [cursor!.id] }, options).catch(() => undefined);
  return cursor?.firstBatch?.[0] ?? null;
}
