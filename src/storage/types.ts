// The object-store interface the storage services work with. Two implementations: the local
// filesystem (uploads through signed URLs of the public API itself) and any S3-compatible bucket
// (the operator's, or a project's own). Keys are `<project_id>/<uuid>_<sanitized name>`.
import type { Readable } from 'node:stream';

export type StoreBackend = 'fs' | 's3';

export interface PresignInput {
  key: string;
  /** Bound into the signature: the upload must send exactly this `Content-Type`. */
  contentType: string;
  /** Bound into the signature: the upload may not send more bytes than this. */
  size: number;
  expiresInSeconds: number;
  /** Signing time; defaults to now (tests backdate it to get an expired URL). */
  now?: Date;
}

export interface PresignedUpload {
  url: string;
  expiresAt: Date;
  /** For providers that need a token besides the URL; none of the current ones does. */
  token?: string;
}

export interface ObjectInfo {
  size: number;
  contentType: string | undefined;
}

export interface ObjectStore {
  readonly backend: StoreBackend;
  presignPut(input: PresignInput): Promise<PresignedUpload>;
  /** Size and type of a stored object, or undefined when there is none. */
  head(key: string): Promise<ObjectInfo | undefined>;
  /**
   * Copies an object to another key (type and size kept); false when there is no source object.
   * Confirm moves an upload from its staging key, where its URL writes, to the file's key.
   */
  copy(source: string, target: string): Promise<boolean>;
  /** Removes an object; removing a missing one is not an error. */
  delete(key: string): Promise<void>;
  /** Removes every object under `<prefix>/` (a deleted project's files). */
  deletePrefix(prefix: string): Promise<void>;
  /** The public URL of an object, or undefined when the store has none. */
  publicUrl(key: string): string | undefined;
}

/** What the filesystem store adds: it receives the uploads and serves the files itself. */
export interface FsObjectStore extends ObjectStore {
  readonly backend: 'fs';
  verifyUpload(input: UploadCheckInput): UploadCheck;
  write(key: string, body: Readable, options: WriteOptions): Promise<WriteResult>;
  open(key: string): Promise<{ stream: Readable; size: number } | undefined>;
}

export interface UploadCheckInput {
  key: string;
  /** The request's Content-Type header. */
  contentType: string | undefined;
  maxSize: number;
  expires: number;
  signature: string;
  now?: Date;
}

export type UploadCheck = { ok: true } | { ok: false; reason: 'signature' | 'expired' };

export interface WriteOptions {
  contentType: string;
  maxSize: number;
  /** The request's Content-Length, when sent: refused at once when over the limit. */
  contentLength?: number;
  /** Asked once the bytes are in, before they replace the object; false discards them. */
  mayCommit?: () => Promise<boolean>;
}

export type WriteResult =
  { ok: true; size: number } | { ok: false; reason: 'too-large' | 'aborted' | 'closed' };
