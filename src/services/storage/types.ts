// Records of the storage services: file records (one per upload, from the request to the delete)
// and a project's storage settings (end-user uploads, its own S3-compatible bucket).
import type { StoreBackend } from '../../storage/index.js';

export type FileProvider = 'internal' | 'external';

/**
 * pending: URL issued, not confirmed. confirming: a confirm holds the record while it charges the
 * quota. confirmed: charged, public. deleting: being removed (no longer served or confirmable).
 */
export type FileState = 'pending' | 'confirming' | 'confirmed' | 'deleting';

export interface FileRecord {
  id: string;
  projectId: string;
  /** `<project_id>/<uuid>_<sanitized filename>`, unique; also the object key. */
  path: string;
  provider: FileProvider;
  backend: StoreBackend;
  /** External files: `<endpoint>|<bucket>`, to tell whether the project still uses that bucket. */
  location: string | null;
  /**
   * The key the upload URL writes to. On S3 stores a staging key of its own, which confirm copies
   * to `path` and which nothing ever reads: a presigned URL cannot be revoked, so this is what
   * keeps it from overwriting a confirmed file. The filesystem store refuses the PUTs itself once
   * the record is no longer pending, so there it is `path`.
   */
  uploadKey: string;
  filename: string;
  contentType: string;
  declaredSize: number;
  /** The real size, known once confirmed. */
  size: number | null;
  /** Bytes charged to the project's storage quota (0 until confirmed). */
  chargedBytes: number;
  /** The end user who uploaded it (publishable key + Bearer token), else null. */
  ownerUserId: string | null;
  state: FileState;
  url: string | null;
  createdAt: Date;
  /** When the upload URL expires. */
  expiresAt: Date;
  /** When the current confirm or delete took hold of the record. */
  claimedAt: Date | null;
  confirmedAt: Date | null;
}

export type NewFileRecord = Omit<
  FileRecord,
  'id' | 'size' | 'chargedBytes' | 'state' | 'url' | 'claimedAt' | 'confirmedAt'
>;

export interface ExternalBucket {
  endpoint: string;
  region: string;
  bucket: string;
  accessKeyId: string;
  publicUrlBase: string | null;
  forcePathStyle: boolean;
  verifiedAt: Date;
}

export interface StorageSettings {
  projectId: string;
  /** Lets end users upload with the publishable key and their Bearer token. */
  endUserUploads: boolean;
  external: (ExternalBucket & { secretAccessKeyEnc: string }) | null;
  updatedAt: Date | null;
}

/** A staging key to remove once its upload URL has expired, whatever became of the upload. */
export interface StagedUpload {
  id: string;
  projectId: string;
  provider: FileProvider;
  backend: StoreBackend;
  location: string | null;
  key: string;
  expiresAt: Date;
}
