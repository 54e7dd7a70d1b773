// Reading and writing a project's data for backups, as canonical Extended JSON lines (so ObjectId,
// Date, Decimal128, Int64 and Binary come back as they were): every collection of its database
// (trashed documents and end users included) with a cursor each, and its platform records
// (collection definitions, webhooks, mail templates, file records, hooks and functions). API keys
// are never read.
// Loading a collection upserts by `_id` (a load run again after a crash gives the same result);
// platform records are written by their own repositories (services/backups/restore-records.ts).
import { createHash } from 'node:crypto';
import { BSON, MongoBulkWriteError, type AnyBulkWriteOperation, type Db, type Document } from 'mongodb';

const { EJSON } = BSON;
import { duplicateFieldOf } from './errors.js';
import { ObjectId } from './ids.js';
import { takenElsewhere } from './restored.js';
import { toDocument, type StoredDocument } from './stored-form.js';

const BATCH = 500;

/** The platform record kinds in an archive, by their platform collection. */
export const PLATFORM_PARTS = ['collections', 'webhooks', 'mail_templates', 'files', 'functions'] as const;
export type PlatformPart = (typeof PLATFORM_PARTS)[number];

export interface DumpLine {
  line: string;
  bsonBytes: number;
}

const toLine = (doc: Document): DumpLine => ({
  line: EJSON.stringify(doc, { relaxed: false }),
  bsonBytes: BSON.calculateObjectSize(doc),
});

const fromLine = (line: string): Document => EJSON.parse(line, { relaxed: false }) as Document;

/** The collections of a project database, in name order (system collections left out). */
export async function dataCollections(db: Db): Promise<string[]> {
  const names = (await db.listCollections({}, { nameOnly: true }).toArray()).map((c) => c.name);
  return names.filter((name) => !name.startsWith('system.')).sort();
}

/** The documents of one collection by `_id`, one line each; the cursor keeps a batch in memory. */
export async function* dumpCollection(db: Db, collection: string): AsyncGenerator<DumpLine> {
  const cursor = db.collection(collection).find({}, { sort: { _id: 1 }, batchSize: BATCH });
  try {
    for await (const doc of cursor) yield toLine(doc);
  } finally {
    await cursor.close();
  }
}

export const countDocuments = (db: Db, collection: string) => db.collection(collection).countDocuments({});

/** What a load tells its caller of each row (its line in the part, 1 = first). */
export interface LoadHooks {
  /** Each document as read, before it is written. */
  row?(row: number, doc: Document): void;
  /** A row a unique index refused (a value another row has): it is not written. */
  rejected?(row: number, field: string, index: string | undefined): void;
}

/**
 * Upserts lines by `_id` in batches; `after` is told how many lines each batch held. Rows a
 * unique index refuses are told to `hooks.rejected` and the others of their batch are written.
 */
export async function loadCollection(
  db: Db,
  collection: string,
  lines: AsyncIterable<string>,
  after: (written: number) => Promise<void>,
  hooks: LoadHooks = {},
): Promise<void> {
  let batch: AnyBulkWriteOperation[] = [];
  let rows: number[] = [];
  let row = 0;
  const flush = async () => {
    if (!batch.length) return;
    try {
      await db.collection(collection).bulkWrite(batch, { ordered: false });
    } catch (err) {
      const refused = duplicateRows(err);
      if (!refused || !hooks.rejected) throw err;
      for (const r of refused) hooks.rejected(rows[r.index]!, r.field, r.indexName);
    }
    const n = batch.length;
    batch = [];
    rows = [];
    await after(n);
  };
  for await (const line of lines) {
    const doc = fromLine(line);
    row += 1;
    hooks.row?.(row, doc);
    batch.push({ replaceOne: { filter: { _id: doc._id }, replacement: doc, upsert: true } });
    rows.push(row);
    if (batch.length >= BATCH) await flush();
  }
  await flush();
}

/** The rows of a bulk write refused as duplicate keys, or undefined when anything else failed. */
export function duplicateRows(err: unknown) {
  if (!(err instanceof MongoBulkWriteError)) return undefined;
  const errors = [err.writeErrors].flat();
  if (!errors.length || errors.some((e) => e.code !== 11000)) return undefined;
  return errors.map((e) => {
    const raw = e.err as { keyValue?: Record<string, unknown>; errmsg?: string };
    const message = raw.errmsg ?? e.errmsg ?? '';
    return {
      index: e.index,
      field: duplicateFieldOf(raw.keyValue, message) ?? 'a unique field',
      indexName: /index: (\S+)/.exec(message)?.[1],
    };
  });
}

/** The platform records of a project of one kind (API keys live on the project: never read). */
export async function* dumpPlatform(
  platform: Db,
  part: PlatformPart,
  projectId: string,
): AsyncGenerator<DumpLine> {
  const cursor = platform
    .collection(part)
    .find({ projectId: new ObjectId(projectId) }, { sort: { _id: 1 }, batchSize: BATCH });
  try {
    for await (const doc of cursor) yield toLine(doc);
  } finally {
    await cursor.close();
  }
}

/** A record's id in the target project: fixed by both ids, so a load run twice writes the same. */
export function movedId(targetProjectId: string, id: string): string {
  const digest = createHash('sha256').update(`${targetProjectId}:${id}`).digest();
  return new ObjectId(digest.subarray(0, 12)).toHexString();
}

/** How many of `ids` (records of one kind) belong to another project than `projectId`. */
export const idsTakenElsewhere = (platform: Db, part: PlatformPart, projectId: string, ids: string[]) =>
  takenElsewhere(platform.collection(part), projectId, ids);

/** The confirmed files of the project kept in the operator's store, whose bytes a backup holds. */
export async function* internalFiles(
  platform: Db,
  projectId: string,
): AsyncGenerator<{ id: string; path: string }> {
  const cursor = platform
    .collection('files')
    .find(
      { projectId: new ObjectId(projectId), state: 'confirmed', provider: 'internal' },
      { sort: { _id: 1 }, projection: { path: 1 } },
    );
  for await (const doc of cursor) yield { id: (doc._id as ObjectId).toHexString(), path: String(doc.path) };
}

/** Where the bytes of a restored file record go: only a record of the operator's store, in the project. */
export async function restoredFilePath(platform: Db, targetProjectId: string, id: string) {
  const doc = await platform
    .collection('files')
    .findOne({ _id: new ObjectId(id), projectId: new ObjectId(targetProjectId), provider: 'internal' });
  const path = doc && String(doc.path);
  return path?.startsWith(`${targetProjectId}/`)
    ? { path, contentType: String(doc!.contentType) }
    : undefined;
}

/** Sets the slot counters that collection definitions, webhooks and functions take, from the real counts. */
export async function recountSlots(platform: Db, projectId: string): Promise<void> {
  const scope = { projectId: new ObjectId(projectId) };
  const collections = await platform.collection('collections').countDocuments(scope);
  await platform
    .collection('projects')
    .updateOne({ _id: new ObjectId(projectId) }, { $set: { collectionsCount: collections } });
  for (const [kind, counter] of [
    ['webhooks', 'webhook_counts'],
    ['functions', 'function_counts'],
  ] as const) {
    const count = await platform.collection(kind).countDocuments(scope);
    await platform
      .collection<{ _id: string; count: number }>(counter)
      .updateOne({ _id: projectId }, { $set: { count } }, { upsert: true });
  }
}

/** The project's settings and name as stored (no keys, no JWT secret, no usage). */
export async function projectSettings(platform: Db, projectId: string) {
  const doc = await platform
    .collection('projects')
    .findOne({ _id: new ObjectId(projectId) }, { projection: { name: 1, settings: 1 } });
  return doc ? { name: String(doc.name), settings: doc.settings as Document } : undefined;
}

export { fromLine as parseLine, toLine as formatLine };

/** A platform record's line with plain JavaScript numbers (ids and dates stay typed), for its checks. */
export const parseRecordLine = (line: string): Document => EJSON.parse(line, { relaxed: true }) as Document;

/** The documents of a collection not in the trash, by `_id`, in the services' form (an export). */
export async function* activeDocuments(db: Db, collection: string): AsyncGenerator<StoredDocument> {
  const cursor = db
    .collection(collection)
    .find({ isDeleted: { $ne: true } }, { sort: { _id: 1 }, batchSize: BATCH });
  try {
    for await (const doc of cursor) yield toDocument(doc);
  } finally {
    await cursor.close();
  }
}
