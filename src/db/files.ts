// File records (platform database, collection `files`): one per upload, from the upload request to
// the delete. Every state change is one conditional update, so concurrent confirms, deletes and
// the cleanup job never act twice on the same record.
import type { Db } from 'mongodb';
import type { FileRecord, FileState, NewFileRecord } from '../services/storage/types.js';
import { ObjectId, toObjectId } from './ids.js';
import { registerPlatformIndexes } from './platform.js';
import { replaceInProject } from './restored.js';

interface FileDoc extends Omit<FileRecord, 'id' | 'projectId'> {
  _id: ObjectId;
  projectId: ObjectId;
}

registerPlatformIndexes('files', [
  { key: { path: 1 }, name: 'u_path', unique: true },
  { key: { projectId: 1, _id: 1 }, name: 'projectId' },
  { key: { state: 1, expiresAt: 1 }, name: 'state_expiresAt' },
  { key: { state: 1, claimedAt: 1 }, name: 'state_claimedAt' },
]);

const toRecord = ({ _id, projectId, ...rest }: FileDoc): FileRecord => ({
  id: _id.toHexString(),
  projectId: projectId.toHexString(),
  ...rest,
  // Records written before staging keys existed were uploaded to their path directly.
  uploadKey: rest.uploadKey ?? rest.path,
});

const after = { returnDocument: 'after' as const };

export function filesRepo(db: Db) {
  const files = db.collection<FileDoc>('files');
  const byPath = (projectId: string, path: string) => {
    const pid = toObjectId(projectId);
    return pid ? { projectId: pid, path } : undefined;
  };

  return {
    async insert(input: NewFileRecord): Promise<FileRecord> {
      const doc: FileDoc = {
        ...input,
        _id: new ObjectId(),
        projectId: new ObjectId(input.projectId),
        size: null,
        chargedBytes: 0,
        state: 'pending',
        url: null,
        claimedAt: null,
        confirmedAt: null,
      };
      await files.insertOne(doc);
      return toRecord(doc);
    },

    async findByPath(projectId: string, path: string): Promise<FileRecord | undefined> {
      const filter = byPath(projectId, path);
      const doc = filter && (await files.findOne(filter));
      return doc ? toRecord(doc) : undefined;
    },

    /**
     * Takes a record for a confirm: from `pending`, or from a `confirming` claim older than
     * `staleBefore` (its holder died). Undefined when another request holds it or it moved on.
     */
    async claimForConfirm(id: string, now: Date, staleBefore: Date): Promise<FileRecord | undefined> {
      const doc = await files.findOneAndUpdate(
        {
          _id: new ObjectId(id),
          $or: [{ state: 'pending' }, { state: 'confirming', claimedAt: { $lt: staleBefore } }],
        },
        { $set: { state: 'confirming', claimedAt: now } },
        after,
      );
      return doc ? toRecord(doc) : undefined;
    },

    /** Gives a confirm's claim back (object not there yet, size mismatch): pending again. */
    async unclaim(id: string, claimedAt: Date): Promise<void> {
      await files.updateOne(
        { _id: new ObjectId(id), state: 'confirming', claimedAt },
        { $set: { state: 'pending', claimedAt: null } },
      );
    },

    /** Completes a confirm; false when the record was deleted meanwhile. */
    async markConfirmed(
      id: string,
      claimedAt: Date,
      result: { size: number; chargedBytes: number; url: string | null; confirmedAt: Date },
    ): Promise<FileRecord | undefined> {
      const doc = await files.findOneAndUpdate(
        { _id: new ObjectId(id), state: 'confirming', claimedAt },
        { $set: { ...result, state: 'confirmed', claimedAt: null } },
        after,
      );
      return doc ? toRecord(doc) : undefined;
    },

    /** Marks a record as being deleted (any state); it is then neither served nor confirmable. */
    async markDeleting(id: string, now: Date, states?: FileState[]): Promise<FileRecord | undefined> {
      const doc = await files.findOneAndUpdate(
        { _id: new ObjectId(id), ...(states ? { state: { $in: states } } : {}) },
        { $set: { state: 'deleting', claimedAt: now } },
        { returnDocument: 'before' },
      );
      return doc ? toRecord(doc) : undefined;
    },

    /** Removes a record; only one of several concurrent callers gets it back. */
    async remove(id: string): Promise<FileRecord | undefined> {
      const doc = await files.findOneAndDelete({ _id: new ObjectId(id) });
      return doc ? toRecord(doc) : undefined;
    },

    /** The confirmed file at a path (public file serving). */
    async findConfirmed(path: string): Promise<FileRecord | undefined> {
      const doc = await files.findOne({ path, state: 'confirmed' });
      return doc ? toRecord(doc) : undefined;
    },

    /** Pending uploads whose URL expired before `cutoff`. */
    async listExpiredPending(cutoff: Date, limit: number): Promise<FileRecord[]> {
      const docs = await files
        .find({ state: 'pending', expiresAt: { $lt: cutoff } })
        .sort({ expiresAt: 1 })
        .limit(limit)
        .toArray();
      return docs.map(toRecord);
    },

    /** Records left `deleting` by a process that died before finishing. */
    async listStaleDeleting(before: Date, limit: number): Promise<FileRecord[]> {
      const docs = await files
        .find({ state: 'deleting', claimedAt: { $lt: before } })
        .limit(limit)
        .toArray();
      return docs.map(toRecord);
    },

    /** Takes an expired pending record for the cleanup job (unless a confirm took it first). */
    async claimExpired(id: string, cutoff: Date, now: Date): Promise<FileRecord | undefined> {
      const doc = await files.findOneAndUpdate(
        { _id: new ObjectId(id), state: 'pending', expiresAt: { $lt: cutoff } },
        { $set: { state: 'deleting', claimedAt: now } },
        after,
      );
      return doc ? toRecord(doc) : undefined;
    },

    /** A page of a project's records, in id order (project deletion). */
    async listForProject(projectId: string, afterId: string | undefined, limit: number) {
      const pid = toObjectId(projectId);
      if (!pid) return [];
      const docs = await files
        .find({ projectId: pid, ...(afterId ? { _id: { $gt: new ObjectId(afterId) } } : {}) })
        .sort({ _id: 1 })
        .limit(limit)
        .toArray();
      return docs.map(toRecord);
    },

    /** A page of a project's confirmed files, newest first (the dashboard's file browser). */
    async listConfirmed(projectId: string, beforeId: string | undefined, limit: number) {
      const pid = toObjectId(projectId);
      if (!pid) return [];
      const docs = await files
        .find({
          projectId: pid,
          state: 'confirmed',
          ...(beforeId ? { _id: { $lt: new ObjectId(beforeId) } } : {}),
        })
        .sort({ _id: -1 })
        .limit(limit)
        .toArray();
      return docs.map(toRecord);
    },

    /** Records of the files an end user uploaded (user erasure), a page at a time. */
    async listForOwner(projectId: string, userId: string, limit: number) {
      const pid = toObjectId(projectId);
      if (!pid) return [];
      const docs = await files.find({ projectId: pid, ownerUserId: userId }).limit(limit).toArray();
      return docs.map(toRecord);
    },

    /**
     * What a project's file records have charged (confirmed files, and deletes not finished yet:
     * their bytes go back when the record is removed), and whether a confirm claimed since
     * `freshSince` may be charging right now (its bytes are counted before its record shows them).
     */
    async chargedBytes(
      projectId: string,
      freshSince: Date,
    ): Promise<{ bytes: number; inFlight: boolean; chargedIds: Set<string> }> {
      const pid = toObjectId(projectId);
      let bytes = 0;
      let inFlight = false;
      const chargedIds = new Set<string>();
      if (!pid) return { bytes, inFlight, chargedIds };
      const cursor = files.find(
        { projectId: pid, $or: [{ chargedBytes: { $gt: 0 } }, { state: 'confirming' }] },
        { projection: { chargedBytes: 1, state: 1, claimedAt: 1 } },
      );
      for await (const doc of cursor) {
        bytes += doc.chargedBytes ?? 0;
        if (doc.chargedBytes) chargedIds.add(doc._id.toHexString());
        if (doc.state === 'confirming' && doc.claimedAt && doc.claimedAt >= freshSince) inFlight = true;
      }
      return { bytes, inFlight, chargedIds };
    },

    /**
     * A confirmed file record a restore brings back under `id` into `projectId`; the service has
     * put its path under the project (`<projectId>/...`), which the unique path index keeps one.
     */
    async restoreConfirmed(
      projectId: string,
      id: string,
      record: Omit<FileRecord, 'id' | 'projectId' | 'state'>,
    ): Promise<void> {
      if (!record.path.startsWith(`${projectId}/`))
        throw new Error('a restored file path is outside its project');
      await replaceInProject(files, projectId, id, { ...record, state: 'confirmed' });
    },
    async deleteForProject(projectId: string): Promise<void> {
      const pid = toObjectId(projectId);
      if (pid) await files.deleteMany({ projectId: pid });
    },
  };
}

export type FilesRepo = ReturnType<typeof filesRepo>;
