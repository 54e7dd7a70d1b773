// Staging keys of uploads (platform database, collection `upload_staging`): one entry per upload
// URL that writes to a key of its own, recorded before the URL is handed out and kept after the
// file record is confirmed or gone, so the cleanup job can remove whatever the URL still wrote
// once it has expired.
import type { Db } from 'mongodb';
import type { StagedUpload } from '../services/storage/types.js';
import { ObjectId, toObjectId } from './ids.js';
import { registerPlatformIndexes } from './platform.js';

interface StagedDoc extends Omit<StagedUpload, 'id' | 'projectId'> {
  _id: ObjectId;
  projectId: ObjectId;
}

registerPlatformIndexes('upload_staging', [
  { key: { expiresAt: 1 }, name: 'expiresAt' },
  { key: { projectId: 1 }, name: 'projectId' },
]);

const toStaged = ({ _id, projectId, ...rest }: StagedDoc): StagedUpload => ({
  id: _id.toHexString(),
  projectId: projectId.toHexString(),
  ...rest,
});

export function uploadStagingRepo(db: Db) {
  const staged = db.collection<StagedDoc>('upload_staging');

  return {
    async insert(input: Omit<StagedUpload, 'id'>): Promise<void> {
      await staged.insertOne({ ...input, _id: new ObjectId(), projectId: new ObjectId(input.projectId) });
    },

    /** Entries whose URL expired before `cutoff`, oldest first. */
    async listExpired(cutoff: Date, limit: number): Promise<StagedUpload[]> {
      const docs = await staged
        .find({ expiresAt: { $lt: cutoff } })
        .sort({ expiresAt: 1 })
        .limit(limit)
        .toArray();
      return docs.map(toStaged);
    },

    async listForProject(projectId: string, limit: number): Promise<StagedUpload[]> {
      const pid = toObjectId(projectId);
      return pid ? (await staged.find({ projectId: pid }).limit(limit).toArray()).map(toStaged) : [];
    },

    async remove(id: string): Promise<void> {
      await staged.deleteOne({ _id: new ObjectId(id) });
    },
  };
}

export type UploadStagingRepo = ReturnType<typeof uploadStagingRepo>;
