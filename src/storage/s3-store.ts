// An S3-compatible bucket as object store: the operator's (`internal` when S3_BUCKET is set) or a
// project's own (`external`). Presigned PUT URLs sign `content-type` and `content-length`, so a
// wrong type or a larger body is refused by the bucket itself. The client never computes
// checksums unless an operation requires one: with the SDK's default, presigned URLs would carry
// the checksum of an empty body and real S3 would refuse every upload.
import http from 'node:http';
import https from 'node:https';
import {
  CopyObjectCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { ApiError } from '../http/errors.js';
import { guardedLookupFor } from '../lib/restricted-hosts.js';
import type { Readable } from 'node:stream';
import type { ObjectInfo, ObjectStore, PresignInput } from './types.js';

export interface S3StoreSettings {
  /** Omitted for AWS itself (the region's default endpoint). */
  endpoint: string | undefined;
  region: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** Base of public file URLs (`<base>/<key>`); none means files have no public URL. */
  publicUrlBase: string | undefined;
  forcePathStyle: boolean;
  /**
   * Refuse connections to restricted addresses at DNS time (developer-supplied endpoints);
   * 'metadata' under ALLOW_PRIVATE_HOSTS: link-local and metadata addresses only.
   */
  guardHosts: boolean | 'metadata';
  /** Timeout of one request to the bucket. */
  timeoutMs?: number;
  /**
   * A project's own bucket: its failures are the project's provider's, answered 502
   * STORAGE_PROVIDER_ERROR with a safe reason instead of a 500.
   */
  projectBucket?: boolean;
}

export interface S3ObjectStore extends ObjectStore {
  readonly backend: 's3';
  /** A real request (HeadBucket) proving the endpoint, the credentials and the bucket work. */
  checkBucket(): Promise<{ ok: true } | { ok: false; reason: string }>;
  /** Stores a stream of known length (backup archives, written to a temporary file first). */
  put(key: string, body: Readable, size: number, contentType: string): Promise<void>;
  open(key: string): Promise<{ stream: Readable; size: number } | undefined>;
  /** A short-lived signed GET URL of an object. */
  presignGet(key: string, expiresInSeconds: number, fileName?: string): Promise<string>;
  close(): void;
}

/** A missing object (a missing bucket is a failure of the bucket, not an absent file). */
const isNotFound = (err: unknown) =>
  err instanceof S3ServiceException &&
  err.name !== 'NoSuchBucket' &&
  (err.$metadata.httpStatusCode === 404 || err.name === 'NotFound' || err.name === 'NoSuchKey');

/** A short, safe description of a failed request (never the credentials). */
function describe(err: unknown): string {
  if (err instanceof S3ServiceException) {
    const status = err.$metadata.httpStatusCode;
    if (status === 403) return 'access denied (check the keys and the bucket policy)';
    if (status === 404) return 'bucket not found';
    if (status === 301 || status === 400)
      return `the bucket refused the request (HTTP ${status}; check the region)`;
    return `${err.name} (HTTP ${status ?? '?'})`;
  }
  const { code, name, message } = err as { code?: string; name?: string; message?: string };
  // One answer for a restricted address and a name that does not resolve: two would tell which
  // internal names exist (src/lib/restricted-hosts.ts).
  if (code === 'ERESTRICTEDHOST' || code === 'ENOTFOUND' || code === 'EAI_AGAIN')
    return 'the endpoint host does not resolve to an allowed address';
  if (name === 'TimeoutError' || code === 'ETIMEDOUT') return 'the endpoint did not answer in time';
  if (code === 'ECONNREFUSED') return 'the endpoint refused the connection';
  return code ?? name ?? message ?? 'unknown error';
}

/** The 502 for a failed request to a project's own bucket (no keys, no endpoint internals). */
export const providerError = (err: unknown) =>
  new ApiError(
    502,
    'STORAGE_PROVIDER_ERROR',
    `The project's storage bucket failed the request: ${describe(err)}`,
  );

export function s3Store(settings: S3StoreSettings): S3ObjectStore {
  const timeoutMs = settings.timeoutMs ?? 10_000;
  const agentOptions = {
    keepAlive: true,
    ...(settings.guardHosts ? { lookup: guardedLookupFor(settings.guardHosts === 'metadata') } : {}),
  };
  const client = new S3Client({
    endpoint: settings.endpoint,
    region: settings.region,
    credentials: { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey },
    forcePathStyle: settings.forcePathStyle,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    maxAttempts: 2,
    requestHandler: {
      requestTimeout: timeoutMs,
      connectionTimeout: Math.min(timeoutMs, 5000),
      httpAgent: new http.Agent(agentOptions),
      httpsAgent: new https.Agent(agentOptions),
    },
  });
  /** Runs one request; a failure other than "not found" of a project's bucket becomes a 502. */
  const guard = async <T>(request: () => Promise<T>): Promise<T> => {
    try {
      return await request();
    } catch (err) {
      if (settings.projectBucket && !isNotFound(err)) throw providerError(err);
      throw err;
    }
  };
  const Bucket = settings.bucket;
  const base = settings.publicUrlBase?.replace(/\/+$/, '');

  return {
    backend: 's3',

    async presignPut({ key, contentType, size, expiresInSeconds, now = new Date() }: PresignInput) {
      const command = new PutObjectCommand({
        Bucket,
        Key: key,
        ContentType: contentType,
        ContentLength: size,
      });
      const url = await getSignedUrl(client, command, {
        expiresIn: expiresInSeconds,
        signingDate: now,
        signableHeaders: new Set(['content-type', 'content-length']),
      });
      return { url, expiresAt: new Date(now.getTime() + expiresInSeconds * 1000) };
    },

    async head(key: string): Promise<ObjectInfo | undefined> {
      try {
        const out = await guard(() => client.send(new HeadObjectCommand({ Bucket, Key: key })));
        return { size: out.ContentLength ?? 0, contentType: out.ContentType };
      } catch (err) {
        if (isNotFound(err)) return undefined;
        throw err;
      }
    },

    async copy(source: string, target: string) {
      const CopySource = `${Bucket}/${source.split('/').map(encodeURIComponent).join('/')}`;
      try {
        await guard(() => client.send(new CopyObjectCommand({ Bucket, Key: target, CopySource })));
        return true;
      } catch (err) {
        if (isNotFound(err)) return false;
        throw err;
      }
    },

    async delete(key: string) {
      try {
        await guard(() => client.send(new DeleteObjectCommand({ Bucket, Key: key })));
      } catch (err) {
        if (!isNotFound(err)) throw err;
      }
    },

    async deletePrefix(prefix: string) {
      // One DeleteObject per key: DeleteObjects needs a Content-MD5/checksum that some
      // S3-compatible servers do not accept, and this only runs when a project is deleted.
      let ContinuationToken: string | undefined;
      do {
        const page = await guard(() =>
          client.send(new ListObjectsV2Command({ Bucket, Prefix: `${prefix}/`, ContinuationToken })),
        );
        for (const item of page.Contents ?? []) {
          if (item.Key) await guard(() => client.send(new DeleteObjectCommand({ Bucket, Key: item.Key })));
        }
        ContinuationToken = page.IsTruncated ? page.NextContinuationToken : undefined;
      } while (ContinuationToken);
    },

    publicUrl: (key: string) => (base ? `${base}/${key}` : undefined),

    async put(key, body, size, contentType) {
      await guard(() =>
        client.send(
          new PutObjectCommand({
            Bucket,
            Key: key,
            Body: body,
            ContentLength: size,
            ContentType: contentType,
          }),
        ),
      );
    },

    async open(key) {
      try {
        const out = await guard(() => client.send(new GetObjectCommand({ Bucket, Key: key })));
        return { stream: out.Body as Readable, size: out.ContentLength ?? 0 };
      } catch (err) {
        if (isNotFound(err)) return undefined;
        throw err;
      }
    },

    presignGet: (key, expiresInSeconds, fileName) =>
      getSignedUrl(
        client,
        new GetObjectCommand({
          Bucket,
          Key: key,
          ...(fileName ? { ResponseContentDisposition: `attachment; filename="${fileName}"` } : {}),
        }),
        { expiresIn: expiresInSeconds },
      ),

    async checkBucket() {
      try {
        await client.send(new HeadBucketCommand({ Bucket }), {
          abortSignal: AbortSignal.timeout(timeoutMs),
        });
        return { ok: true };
      } catch (err) {
        return { ok: false, reason: describe(err) };
      }
    },

    close: () => client.destroy(),
  };
}
