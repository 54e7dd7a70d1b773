// The request log (platform database, collection `request_logs`): one document per public API
// request of a project, written in batches by services/request-log/. Bounded per project by
// count (trim keeps the newest) and by age (deleteOlderThan, from the worker's expiry sweep).
// An entry's id is made when it is written (a second at most after its request), so its age is
// read from the id: one index besides `_id` to keep up to date per entry, none for the time.
import type { Db } from 'mongodb';
import { ObjectId } from './ids.js';
import { registerPlatformIndexes } from './platform.js';

const COLLECTION = 'request_logs';
registerPlatformIndexes(COLLECTION, [{ key: { projectId: 1, _id: -1 }, name: 'project_newest' }]);

/** The smallest id made at `at` or later. */
const idAt = (at: Date) => ObjectId.createFromTime(Math.floor(at.getTime() / 1000));

export interface RequestLogEntry {
  /** Its time order: ids are created when the request ends. */
  id: string;
  projectId: string;
  at: Date;
  method: string;
  path: string;
  status: number;
  durationMs: number;
  keyKind: 'publishable' | 'secret' | null;
  userId: string | null;
  requestId: string;
}

interface EntryDoc extends Omit<RequestLogEntry, 'id'> {
  _id: ObjectId;
}

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

const toEntry = ({ _id, ...rest }: EntryDoc): RequestLogEntry => ({ id: _id.toHexString(), ...rest });

export function requestLogsRepo(db: Db) {
  const collection = db.collection<EntryDoc>(COLLECTION);
  return {
    async insertMany(entries: RequestLogEntry[]): Promise<void> {
      if (!entries.length) return;
      await collection.insertMany(
        entries.map(({ id, ...rest }) => ({ _id: new ObjectId(id), ...rest })),
        { ordered: false },
      );
    },

    /** Newest first; one more than `limit` is read to tell whether more follow. */
    async list(projectId: string, q: RequestLogQuery): Promise<RequestLogEntry[]> {
      const filter: Record<string, unknown> = {
        projectId,
        _id: q.before ? { $gte: idAt(q.since), $lt: new ObjectId(q.before) } : { $gte: idAt(q.since) },
      };
      if (q.status) filter.status = { $gte: q.status.from, $lt: q.status.to };
      if (q.pathPrefix) filter.path = { $gte: q.pathPrefix, $lt: `${q.pathPrefix}\uffff` };
      const docs = await collection
        .find(filter)
        .sort({ _id: -1 })
        .limit(q.limit + 1)
        .toArray();
      return docs.map(toEntry);
    },

    /** Deletes all but the newest `keep` entries of a project; answers how many went. */
    async trim(projectId: string, keep: number): Promise<number> {
      const [edge] = await collection
        .find({ projectId }, { projection: { _id: 1 } })
        .sort({ _id: -1 })
        .skip(keep)
        .limit(1)
        .toArray();
      if (!edge) return 0;
      return (await collection.deleteMany({ projectId, _id: { $lte: edge._id } })).deletedCount;
    },

    /** Deletes the entries written before `at` (by their id's time). */
    async deleteOlderThan(at: Date): Promise<number> {
      return (await collection.deleteMany({ _id: { $lt: idAt(at) } })).deletedCount;
    },

    async deleteProject(projectId: string): Promise<void> {
      await collection.deleteMany({ projectId });
    },
  };
}

export type RequestLogsRepo = ReturnType<typeof requestLogsRepo>;
