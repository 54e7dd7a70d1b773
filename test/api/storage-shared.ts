// Helpers of the storage suites (test/api/storage-*.test.ts): S3 buckets of their own on the
// stack's S3 server, and the steps of the upload flow over HTTP.
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import {
  CreateBucketCommand,
  DeleteBucketCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutBucketCorsCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { testEnv } from '../helpers/env.js';
import type { ApiClient } from '../helpers/client.js';

export const s3Env = {
  endpoint: testEnv.S3_ENDPOINT!,
  region: testEnv.S3_REGION ?? 'us-east-1',
  accessKeyId: testEnv.S3_ACCESS_KEY_ID!,
  secretAccessKey: testEnv.S3_SECRET_ACCESS_KEY!,
};

export const s3 = new S3Client({
  endpoint: s3Env.endpoint,
  region: s3Env.region,
  credentials: { accessKeyId: s3Env.accessKeyId, secretAccessKey: s3Env.secretAccessKey },
  forcePathStyle: true,
  requestChecksumCalculation: 'WHEN_REQUIRED',
  responseChecksumValidation: 'WHEN_REQUIRED',
});

/** The bucket CORS rules the README asks for (SERVICE-SPEC "Bucket CORS"). */
export const CORS_RULES = [
  {
    AllowedOrigins: ['*'],
    AllowedMethods: ['PUT', 'GET', 'HEAD'],
    AllowedHeaders: ['content-type', 'content-length'],
    MaxAgeSeconds: 600,
  },
];

/** A fresh bucket for one suite, with the CORS rules; `drop` empties and removes it. */
export async function createBucket(prefix: string) {
  const name = `${prefix}-${randomBytes(4).toString('hex')}`;
  await s3.send(new CreateBucketCommand({ Bucket: name }));
  await s3.send(new PutBucketCorsCommand({ Bucket: name, CORSConfiguration: { CORSRules: CORS_RULES } }));
  return {
    name,
    async drop() {
      const page = await s3.send(new ListObjectsV2Command({ Bucket: name }));
      for (const item of page.Contents ?? []) {
        await s3.send(new DeleteObjectCommand({ Bucket: name, Key: item.Key! }));
      }
      await s3.send(new DeleteBucketCommand({ Bucket: name })).catch(() => undefined);
    },
  };
}

export async function s3Object(bucket: string, key: string): Promise<Buffer | undefined> {
  try {
    const out = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
    return Buffer.from(await out.Body!.transformToByteArray());
  } catch (err) {
    if ((err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404)
      return undefined;
    throw err;
  }
}

export async function s3Head(bucket: string, key: string) {
  return s3.send(new HeadObjectCommand({ Bucket: bucket, Key: key })).then(
    (out) => ({ size: out.ContentLength, contentType: out.ContentType }),
    () => undefined,
  );
}

export const bytes = (size: number) => randomBytes(size);

/**
 * Test apps listen on an ephemeral port, but PUBLIC_URL (the base of the filesystem store's
 * URLs) is fixed at start: point a URL of the public API at the app actually listening.
 */
export function rebase(url: string, appUrl: string): string {
  const parsed = new URL(url);
  const target = new URL(appUrl);
  parsed.protocol = target.protocol;
  parsed.host = target.host;
  return parsed.toString();
}

export interface UploadSteps {
  client: ApiClient;
  /** Applied to signed and public URLs before fetching them (see `rebase`). */
  url?: (url: string) => string;
}

/** upload-request, expected to succeed. */
export async function requestUpload(
  client: ApiClient,
  body: { filename: string; contentType: string; size: number },
) {
  const res = await client.post('/api/storage/upload-request', body);
  expect(res.status, res.text).to.equal(200);
  return res.body.data as { signedUrl: string; filePath: string; provider: string; expiresAt: string };
}

/** PUT of raw bytes to a signed URL, as a browser or server client would do it. */
export function putBytes(
  url: string,
  body: Buffer,
  contentType: string,
  headers: Record<string, string> = {},
) {
  return fetch(url, {
    method: 'PUT',
    body: body as unknown as BodyInit,
    headers: { 'content-type': contentType, ...headers },
  });
}

/** request + PUT, expected to succeed; returns the ticket. */
export async function upload(
  steps: UploadSteps,
  body: Buffer,
  contentType = 'application/octet-stream',
  filename = 'data.bin',
) {
  const ticket = await requestUpload(steps.client, { filename, contentType, size: body.length });
  const put = await putBytes((steps.url ?? String)(ticket.signedUrl), body, contentType);
  expect(put.status, await put.clone().text()).to.equal(200);
  return ticket;
}
