// Limits of a project that must hold under concurrent requests in any number of processes, each
// kept on the project record and moved by single conditional updates (no transactions): the
// collection slots (collectionsPerProject), the database size charged by writes before they are
// made, and the per-upload storage charges of confirms.
import type { Collection } from 'mongodb';
import { ObjectId } from './ids.js';
import type { ProjectDoc } from './projects.js';

/** The bytes an upload's charge marker holds (the list is short: confirms under way). */
const chargeOf = (doc: Pick<ProjectDoc, 'storageCharges'> | null, fileId: string) =>
  doc?.storageCharges?.find((c) => c.fileId === fileId)?.bytes;

export function projectSlots(projects: Collection<ProjectDoc>) {
  return {
    /**
     * Takes a collection slot if fewer than `limit` are taken: the check and the increment are
     * one conditional update, so two concurrent creates cannot both take the last slot. A project
     * without the counter gets it from `countNow` first (only one of concurrent initialisers wins).
     */
    async claimCollectionSlot(id: string, limit: number, countNow: () => Promise<number>): Promise<boolean> {
      const _id = new ObjectId(id);
      const claim = () =>
        projects.updateOne({ _id, collectionsCount: { $lt: limit } }, { $inc: { collectionsCount: 1 } });
      if ((await claim()).modifiedCount === 1) return true;
      // Refused: either full, or a project without the counter yet (set it, then claim again).
      await projects.updateOne(
        { _id, collectionsCount: { $exists: false } },
        { $set: { collectionsCount: await countNow() } },
      );
      return (await claim()).modifiedCount === 1;
    },
    /**
     * Adds `bytes` to `usage.databaseUsed` only if the sum stays within `limit`: the check and the
     * charge are one conditional update, so concurrent writes in any number of processes cannot
     * pass the limit together. Returns the counter after the charge (what is left under the limit
     * sizes the quota's leases), undefined when refused. A counter never written yet counts as 0.
     */
    async reserveDatabaseBytes(id: string, bytes: number, limit: number): Promise<number | undefined> {
      if (bytes > limit) return undefined;
      const after = await projects.findOneAndUpdate(
        {
          _id: new ObjectId(id),
          $or: [{ 'usage.databaseUsed': { $lte: limit - bytes } }, { 'usage.databaseUsed': null }],
        },
        { $inc: { 'usage.databaseUsed': bytes } },
        // The whole (small) project document: FerretDB 1.24 refuses findAndModify's `fields`.
        { returnDocument: 'after' },
      );
      return after ? (after.usage?.databaseUsed ?? bytes) : undefined;
    },
    /** Gives a collection slot back (a create that failed, a delete). */
    async releaseCollectionSlot(id: string): Promise<void> {
      await projects.updateOne(
        { _id: new ObjectId(id), collectionsCount: { $gt: 0 } },
        { $inc: { collectionsCount: -1 } },
      );
    },
    /**
     * Charges an upload's bytes once, only if they stay within the limit: the check, the increment
     * and the upload's charge marker are one atomic update, so two uploads racing for the last
     * bytes cannot both win, and a confirm retried after a crash cannot charge twice. Returns the
     * bytes charged for the upload (now or by an earlier attempt), undefined when refused.
     */
    async chargeUpload(
      id: string,
      fileId: string,
      bytes: number,
      limitBytes: number,
    ): Promise<number | undefined> {
      const _id = new ObjectId(id);
      const result = await projects.updateOne(
        { _id, 'usage.storageUsed': { $lte: limitBytes - bytes }, 'storageCharges.fileId': { $ne: fileId } },
        { $inc: { 'usage.storageUsed': bytes }, $push: { storageCharges: { fileId, bytes } } },
      );
      if (result.modifiedCount === 1) return bytes;
      const earlier = await projects.findOne(
        { _id, 'storageCharges.fileId': fileId },
        { projection: { storageCharges: 1 } },
      );
      return chargeOf(earlier, fileId);
    },
    /** The charge markers of confirms not settled yet (the usage recount counts them too). */
    async uploadCharges(id: string): Promise<{ fileId: string; bytes: number }[]> {
      const doc = await projects.findOne({ _id: new ObjectId(id) }, { projection: { storageCharges: 1 } });
      return doc?.storageCharges ?? [];
    },
    /** The upload's charge now stands on its confirmed file record: drops the marker. */
    async settleUploadCharge(id: string, fileId: string): Promise<void> {
      await projects.updateOne({ _id: new ObjectId(id) }, { $pull: { storageCharges: { fileId } } });
    },
    /**
     * Gives back the charge of an upload whose confirm never completed (deleted meanwhile, or
     * left by a crash): only the caller that removes the marker gives the bytes back.
     */
    async releaseUploadCharge(id: string, fileId: string): Promise<void> {
      const _id = new ObjectId(id);
      const before = await projects.findOneAndUpdate(
        { _id, 'storageCharges.fileId': fileId },
        { $pull: { storageCharges: { fileId } } },
        // Without a projection, as in reserveDatabaseBytes (FerretDB 1.24).
      );
      const bytes = chargeOf(before, fileId) ?? 0;
      if (bytes > 0) await projects.updateOne({ _id }, { $inc: { 'usage.storageUsed': -bytes } });
    },
  };
}
