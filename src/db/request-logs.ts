// The request log (platform database, collection `request_logs`), written in batches by
// services/request-log/. A batch's entries of one project are stored as one document (a bucket:
// `{ projectId, count, entries }`, its `_id` the id of its newest entry), the entries as one JSON
// text of rows (`[id, at ms, method, path, status, durationMs, keyKind, userId, requestId]`, and
// the access token's prefix after them for a dashboard request made with one, then a note when
// there is one,
// oldest first): the database stores and indexes one document per project and batch and parses
// one string, not one document per request, since the log's work shares the machine with the
// requests it records. Filters run here, on the rows of the newest buckets. Bounded per project
// by count (trim keeps the newest entries) and by age (deleteOlderThan, from the worker's expiry
// sweep). An entry's id is made when it is written (a second at most after its request), so ages
// are read from ids.
import type { Db } from 'mongodb';
import { ObjectId } from './ids.js';
import { registerPlatformIndexes } from './platform.js';

const COLLECTION = 'request_logs';
registerPlatformIndexes(COLLECTION, [{ key: { projectId: 1, _id: -1 }, name: 'project_newest' }]);

export interface RequestLogEntry {
  /** Its time order: ids are created when the request ends. */
  id: string;
  projectId: string;
  at: Date;
  method: string;
  path: string;
  status: number;
  durationMs: number;
  keyKind: 'publishable' | 'secret' | 'accessToken' | null;
  userId: string | null;
  requestId: string;
  /** The prefix of the personal access token of a dashboard request (keyKind `accessToken`). */
  accessToken?: string | null;
  /** What went wrong and how to fix it, when the HTTP layer knew (a page refused credentials). */
  note?: string;
}

/** An entry as stored in its bucket's text. */
type Row = [
  id: string,
  at: number,
  method: string,
  path: string,
  status: number,
  durationMs: number,
  keyKind: RequestLogEntry['keyKind'],
  userId: string | null,
  requestId: string,
  accessToken?: string | null,
  note?: string,
];

interface BucketDoc {
  /** The id of its newest entry: no entry of a bucket is newer than the bucket's id. */
  _id: ObjectId;
  projectId: string;
  count: number;
  /** JSON of the rows, oldest first. */
  entries: string;
}

const rowOf = (e: RequestLogEntry): Row =>
  [
    e.id,
    e.at.getTime(),
    e.method,
    e.path,
    e.status,
    e.durationMs,
    e.keyKind,
    e.userId,
    e.requestId,
    ...(e.note ? [e.accessToken ?? null, e.note] : e.accessToken ? [e.accessToken] : []),
  ] as Row;
const entryOf = (projectId: string, r: Row): RequestLogEntry => ({
  id: r[0],
  projectId,
  at: new Date(r[1]),
  method: r[2],
  path: r[3],
  status: r[4],
  durationMs: r[5],
  keyKind: r[6],
  userId: r[7],
  requestId: r[8],
  accessToken: r[9] ?? null,
  ...(r[10] ? { note: r[10] } : {}),
});
/** A bucket's rows; none for a document of the format before buckets (the age sweep removes those). */
const rowsOf = (bucket: Pick<BucketDoc, 'entries'>) =>
  typeof bucket.entries === 'string' ? (JSON.parse(bucket.entries) as Row[]) : [];

export interface RequestLogQuery {
  /** Inclusive lower and exclusive upper bound of the status. */
  status?: { from: number; to: number };
  pathPrefix?: string;
  /** The id of the last entry of the page before (older entries follow). */
  before?: string;
  /** Entries older than this are not listed (the sweep may not have run yet). */
  since: Date;
  limit: number;
}

/** The smallest id made at `at` or later. */
const idAt = (at: Date) => ObjectId.createFromTime(Math.floor(at.getTime() / 1000));
/** Newest first: ids of one length compare as their hex text. */
const newestFirst = (a: Row, b: Row) => (a[0] < b[0] ? 1 : -1);

export function requestLogsRepo(db: Db) {
  const collection = db.collection<BucketDoc>(COLLECTION);
  return {
    /** One bucket per project of the batch. */
    async insertMany(entries: RequestLogEntry[]): Promise<void> {
      const byProject = new Map<string, Row[]>();
      for (const entry of entries) {
        let rows = byProject.get(entry.projectId);
        if (!rows) byProject.set(entry.projectId, (rows = []));
        rows.push(rowOf(entry));
      }
      if (!byProject.size) return;
      const buckets = [...byProject].map(([projectId, rows]) => {
        rows.sort((a, b) => -newestFirst(a, b));
        const newest = new ObjectId(rows[rows.length - 1]![0]);
        return { _id: newest, projectId, count: rows.length, entries: JSON.stringify(rows) };
      });
      await collection.insertMany(buckets, { ordered: false });
    },

    /**
     * Newest first; one more than `limit` is read to tell whether more follow. Buckets are read
     * newest first until none left can hold an entry newer than the page's last one.
     */
    async list(projectId: string, q: RequestLogQuery): Promise<RequestLogEntry[]> {
      const before = q.before;
      const since = idAt(q.since).toHexString();
      const keeps = (r: Row) => {
        if (r[0] < since || (before !== undefined && r[0] >= before)) return false;
        if (q.status && (r[4] < q.status.from || r[4] >= q.status.to)) return false;
        return !q.pathPrefix || r[3].startsWith(q.pathPrefix);
      };
      const filter: Record<string, unknown> = { projectId, _id: { $gte: idAt(q.since) } };
      const picked: Row[] = [];
      const want = q.limit + 1;
      for await (const bucket of collection.find(filter).sort({ _id: -1 }).batchSize(50)) {
        if (picked.length >= want && bucket._id.toHexString() < picked[want - 1]![0]) break;
        for (const r of rowsOf(bucket)) if (keeps(r)) picked.push(r);
        picked.sort(newestFirst);
        if (picked.length > want) picked.length = want;
      }
      return picked.map((r) => entryOf(projectId, r));
    },

    /** Deletes all but the newest `keep` entries of a project; answers how many went. */
    async trim(projectId: string, keep: number): Promise<number> {
      let kept = 0;
      let removed = 0;
      const whole: ObjectId[] = [];
      const buckets = collection.find({ projectId }, { projection: { count: 1 } }).sort({ _id: -1 });
      for await (const bucket of buckets) {
        if (typeof bucket.count !== 'number') continue; // the format before buckets: swept by age
        if (kept >= keep) {
          whole.push(bucket._id);
          removed += bucket.count;
        } else if (kept + bucket.count > keep) {
          // The bucket at the edge keeps its newest entries (the last ones written).
          const left = keep - kept;
          const full = await collection.findOne({ _id: bucket._id });
          if (full) {
            const rows = rowsOf(full);
            const newest = rows.slice(rows.length - left);
            await collection.updateOne(
              { _id: bucket._id },
              { $set: { entries: JSON.stringify(newest), count: newest.length } },
            );
            removed += rows.length - newest.length;
          }
          kept = keep;
        } else kept += bucket.count;
      }
      if (whole.length) await collection.deleteMany({ _id: { $in: whole } });
      return removed;
    },

    /** Deletes the buckets whose newest entry was written before `at`; answers how many entries went. */
    async deleteOlderThan(at: Date): Promise<number> {
      const filter = { _id: { $lt: idAt(at) } };
      const old = await collection.find(filter, { projection: { count: 1 } }).toArray();
      if (!old.length) return 0;
      await collection.deleteMany({ _id: { $in: old.map((b) => b._id) } });
      // A document of the format before buckets held one entry.
      return old.reduce((sum, b) => sum + (typeof b.count === 'number' ? b.count : 1), 0);
    },

    async deleteProject(projectId: string): Promise<void> {
      await collection.deleteMany({ projectId });
    },
  };
}

export type RequestLogsRepo = ReturnType<typeof requestLogsRepo>;
