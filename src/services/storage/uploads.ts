// The upload flow (SERVICE-SPEC "Upload flow", DECISIONS §6): upload request (presigned URL),
// confirm (object present, size within 1 KiB, quota charged atomically, idempotent), delete
// (permanent, quota reclaimed). Callers: the secret key, or an end user (publishable key + Bearer
// token) when the project allows end-user uploads; an end user acts only on their own files.
import {
  badRequest,
  conflict,
  forbidden,
  notFound,
  payloadTooLarge,
  quotaExceeded,
  unauthorized,
} from '../../http/errors.js';
import type { ProjectsRepo } from '../../db/projects.js';
import type { FilesRepo } from '../../db/files.js';
import type { StorageSettingsRepo } from '../../db/storage-settings.js';
import type { UploadStagingRepo } from '../../db/upload-staging.js';
import type { RequestContext } from '../context.js';
import type { ProjectsService } from '../projects.js';
import type { Project } from '../types.js';
import { newFilePath, newStagingKey, parseFilePath } from './paths.js';
import type { ObjectStore } from '../../storage/index.js';
import type { StoreResolver } from './stores.js';
import type { FileProvider, FileRecord } from './types.js';

export const MAX_FILE_BYTES = 10 * 1024 * 1024;
export const UPLOAD_URL_TTL_SECONDS = 15 * 60;
/** Confirm accepts this difference between the declared and the stored size, and charges the latter. */
export const SIZE_TOLERANCE_BYTES = 1024;
/** A confirm that held a record this long is presumed dead; another confirm may take over. */
const STALE_CLAIM_MS = 60_000;

export const NO_PUBLIC_URL_WARNING =
  'This storage provider has no public URL configured, so the file has no public URL. ' +
  'Set a public URL base for the bucket to get one.';

interface Caller {
  project: Project;
  /** The end user acting, or null for the secret key (which may act on every file). */
  userId: string | null;
}

export interface ConfirmResult {
  message: string;
  path: string;
  provider: FileProvider;
  url: string | null;
  size: number;
  warning?: string;
}

export interface StorageDeps {
  files: FilesRepo;
  staging: UploadStagingRepo;
  settings: StorageSettingsRepo;
  projectsRepo: ProjectsRepo;
  projects: ProjectsService;
  stores: StoreResolver;
}

const mb = (bytes: number) => `${(bytes / (1024 * 1024)).toFixed(2)} MB`;

export function uploadsService({ files, staging, settings, projectsRepo, projects, stores }: StorageDeps) {
  /** The project's settings and the caller; 401/403 for a publishable key that may not upload. */
  async function resolveCaller(ctx: RequestContext) {
    const { project, keyKind, endUser } = ctx.principal;
    if (!project) throw unauthorized('Missing API key', 'MISSING_API_KEY');
    const current = await settings.get(project.id);
    if (keyKind === 'secret') return { caller: { project, userId: null } as Caller, settings: current };
    if (!current.endUserUploads) {
      throw forbidden(
        'Storage requires the secret key: end-user uploads are disabled for this project',
        'SECRET_KEY_REQUIRED',
      );
    }
    if (!endUser) {
      throw unauthorized(
        'End-user uploads need an access token: send Authorization: Bearer <accessToken>',
        'MISSING_TOKEN',
      );
    }
    return { caller: { project, userId: endUser.id } as Caller, settings: current };
  }

  /** The record at a client-given path: 400 when malformed, 404 when absent or another project's. */
  async function findRecord(caller: Caller, path: string, field: string): Promise<FileRecord> {
    const parsed = parseFilePath(path);
    if (!parsed) {
      const message = `Invalid file path: expected "<project_id>/<file name>" as returned by upload-request`;
      throw badRequest(message, [{ path: `body.${field}`, message }], 'INVALID_PATH');
    }
    const record =
      parsed.projectId === caller.project.id ? await files.findByPath(caller.project.id, path) : undefined;
    if (!record || record.state === 'deleting') throw notFound('File not found', 'FILE_NOT_FOUND');
    if (caller.userId !== null && record.ownerUserId !== caller.userId) {
      throw forbidden('This file belongs to another user', 'NOT_FILE_OWNER');
    }
    return record;
  }

  const resultOf = (record: FileRecord): ConfirmResult => ({
    message: 'File uploaded successfully',
    path: record.path,
    provider: record.provider,
    url: record.url,
    size: record.size ?? record.declaredSize,
    ...(record.url ? {} : { warning: NO_PUBLIC_URL_WARNING }),
  });

  const notReady = (message: string) => conflict(message, 'UPLOAD_NOT_READY');

  /**
   * Removes an upload's staging object now. Best effort: its URL may still write there until it
   * expires, and the cleanup job removes the key again after that.
   */
  const discardStaging = async (store: ObjectStore, record: FileRecord) => {
    if (record.uploadKey !== record.path) await store.delete(record.uploadKey).catch(() => undefined);
  };

  return {
    async requestUpload(ctx: RequestContext, input: { filename: string; contentType: string; size: number }) {
      const { caller, settings: current } = await resolveCaller(ctx);
      const { project } = caller;
      if (input.size > MAX_FILE_BYTES) {
        throw payloadTooLarge(`File exceeds the 10 MB per-file limit (${input.size} bytes)`);
      }
      const [limits, usage] = await Promise.all([projects.limitsOf(project), projectsRepo.usage(project.id)]);
      const remaining = Math.max(0, limits.storageBytes - usage.storageUsed);
      if (input.size > remaining) {
        throw quotaExceeded(
          `Storage quota exceeded: the file needs ${mb(input.size)}, ${mb(remaining)} of ` +
            `${mb(limits.storageBytes)} are left`,
        );
      }
      const target = stores.forUpload(current, limits);
      const path = newFilePath(project.id, input.filename);
      // A presigned S3 URL cannot be revoked: it writes to a staging key of its own, which confirm
      // copies to the path, so it never reaches a confirmed file. Recorded before the URL exists,
      // so the cleanup job removes what it writes whatever becomes of the upload.
      const uploadKey = target.store.backend === 's3' ? newStagingKey(project.id) : path;
      const now = new Date();
      const presigned = await target.store.presignPut({
        key: uploadKey,
        contentType: input.contentType,
        size: input.size,
        expiresInSeconds: UPLOAD_URL_TTL_SECONDS,
        now,
      });
      const where = { provider: target.provider, backend: target.store.backend, location: target.location };
      if (uploadKey !== path) {
        await staging.insert({
          projectId: project.id,
          ...where,
          key: uploadKey,
          expiresAt: presigned.expiresAt,
        });
      }
      await files.insert({
        projectId: project.id,
        path,
        ...where,
        uploadKey,
        filename: input.filename,
        contentType: input.contentType,
        declaredSize: input.size,
        ownerUserId: caller.userId,
        createdAt: now,
        expiresAt: presigned.expiresAt,
      });
      return {
        signedUrl: presigned.url,
        filePath: path,
        ...(presigned.token ? { token: presigned.token } : {}),
        provider: target.provider,
        expiresAt: presigned.expiresAt.toISOString(),
      };
    },

    async confirmUpload(
      ctx: RequestContext,
      input: { filePath: string; size: number },
    ): Promise<ConfirmResult> {
      const { caller, settings: current } = await resolveCaller(ctx);
      const { project } = caller;
      const record = await findRecord(caller, input.filePath, 'filePath');
      if (record.state === 'confirmed') return resultOf(record);
      const store = stores.forRecord(record, current);
      if (!store)
        throw notFound('File not found: its storage bucket is no longer configured', 'FILE_NOT_FOUND');

      const now = new Date();
      const claimed = await files.claimForConfirm(record.id, now, new Date(now.getTime() - STALE_CLAIM_MS));
      if (!claimed) {
        const latest = await files.findByPath(project.id, record.path);
        if (latest?.state === 'confirmed') return resultOf(latest);
        if (!latest || latest.state === 'deleting') throw notFound('File not found', 'FILE_NOT_FOUND');
        throw notReady('This upload is being confirmed by another request; retry shortly');
      }

      let size: number;
      try {
        // From the staging key to the path; when the staging object is gone, a confirm that died
        // after copying may have left the file at its path already.
        if (record.uploadKey !== record.path) await store.copy(record.uploadKey, record.path);
        const info = await store.head(record.path);
        if (!info) throw notReady('Upload not ready: the file has not arrived in storage yet; retry shortly');
        if (Math.abs(info.size - input.size) > SIZE_TOLERANCE_BYTES) {
          throw badRequest(
            `Size mismatch: ${input.size} bytes declared, ${info.size} bytes stored`,
            [{ path: 'body.size', message: `must be within 1 KiB of the stored size (${info.size})` }],
            'SIZE_MISMATCH',
          );
        }
        if (info.size > Math.min(record.declaredSize + SIZE_TOLERANCE_BYTES, MAX_FILE_BYTES)) {
          throw badRequest(
            `The stored file (${info.size} bytes) is larger than requested (${record.declaredSize} bytes)`,
            undefined,
            'SIZE_MISMATCH',
          );
        }
        size = info.size;
      } catch (err) {
        await files.unclaim(record.id, now);
        throw err;
      }

      const limits = await projects.limitsOf(project);
      // Charged once per upload: a confirm that died after charging left its marker, and this
      // retry finds that charge instead of charging again.
      const charged = await projectsRepo.chargeUpload(project.id, record.id, size, limits.storageBytes);
      if (charged === undefined) {
        // Lost the race for the last bytes (or the quota shrank): the upload is refused for good.
        await store.delete(record.path);
        await discardStaging(store, record);
        await files.remove(record.id);
        throw quotaExceeded(
          `Storage quota exceeded: the file needs ${mb(size)} and the project's ` +
            `${mb(limits.storageBytes)} are used up; the upload was discarded`,
        );
      }
      const url = store.publicUrl(record.path) ?? null;
      const done = await files.markConfirmed(record.id, now, {
        size,
        chargedBytes: charged,
        url,
        confirmedAt: new Date(),
      });
      if (!done) {
        // Deleted while being confirmed: the delete or this confirm gives the charge back (whichever
        // takes the marker), and the copy this confirm may have made after the delete is removed.
        await projectsRepo.releaseUploadCharge(project.id, record.id);
        if (record.uploadKey !== record.path) await store.delete(record.path);
        await discardStaging(store, record);
        throw notFound('File not found', 'FILE_NOT_FOUND');
      }
      await projectsRepo.settleUploadCharge(project.id, record.id);
      await discardStaging(store, record);
      return resultOf(done);
    },

    async deleteFile(ctx: RequestContext, path: string): Promise<void> {
      const { caller, settings: current } = await resolveCaller(ctx);
      const record = await findRecord(caller, path, 'path');
      await files.markDeleting(record.id, new Date());
      const store = stores.forRecord(record, current);
      await store?.delete(record.path);
      if (store) await discardStaging(store, record);
      const removed = await files.remove(record.id);
      if (!removed) throw notFound('File not found or already deleted', 'FILE_NOT_FOUND');
      await releaseCharge(projectsRepo, removed);
    },
  };
}

/**
 * Gives back what a removed record charged: its confirmed bytes, or the charge of a confirm that
 * never completed (a crash, or a delete racing the confirm), known only by its marker.
 */
export async function releaseCharge(projectsRepo: ProjectsRepo, removed: FileRecord): Promise<void> {
  if (removed.chargedBytes > 0) {
    await projectsRepo.releaseStorage(removed.projectId, removed.chargedBytes);
    await projectsRepo.settleUploadCharge(removed.projectId, removed.id);
  } else {
    await projectsRepo.releaseUploadCharge(removed.projectId, removed.id);
  }
}

export type UploadsService = ReturnType<typeof uploadsService>;
