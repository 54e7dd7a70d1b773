#!/usr/bin/env node
// Makes sure the stack's S3 bucket exists, through the S3 API (not mkdir), so that the gateway
// records owner and ACL metadata as it would for any bucket the app creates. Doubles as the
// readiness check of the S3 server: a signed request that succeeds proves the gateway is serving
// and accepts the generated credentials. Gives the bucket the CORS rules the README asks of an
// operator's bucket, so that pages can upload to its presigned URLs (test/api/browser-cors.test.ts).
//
// Reads S3_ENDPOINT, S3_REGION, S3_BUCKET, S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY.

import { CreateBucketCommand, HeadBucketCommand, PutBucketCorsCommand, S3Client } from '@aws-sdk/client-s3';

const { S3_ENDPOINT, S3_REGION, S3_BUCKET, S3_ACCESS_KEY_ID, S3_SECRET_ACCESS_KEY } = process.env;
for (const [name, value] of Object.entries({
  S3_ENDPOINT,
  S3_REGION,
  S3_BUCKET,
  S3_ACCESS_KEY_ID,
  S3_SECRET_ACCESS_KEY,
})) {
  if (!value) {
    console.error(`[stack] s3-bucket: ${name} is not set`);
    process.exit(2);
  }
}

const client = new S3Client({
  endpoint: S3_ENDPOINT,
  region: S3_REGION,
  credentials: { accessKeyId: S3_ACCESS_KEY_ID, secretAccessKey: S3_SECRET_ACCESS_KEY },
  forcePathStyle: true,
  requestChecksumCalculation: 'WHEN_REQUIRED',
  responseChecksumValidation: 'WHEN_REQUIRED',
  maxAttempts: 1,
});

try {
  await client.send(new HeadBucketCommand({ Bucket: S3_BUCKET }));
  console.log(`[stack] s3 bucket ${S3_BUCKET} exists`);
} catch (err) {
  const status = err?.$metadata?.httpStatusCode;
  if (status !== 404) {
    console.error(
      `[stack] s3-bucket: HeadBucket ${S3_BUCKET} failed: ${err.name} ${status ?? ''} ${err.message}`,
    );
    process.exit(1);
  }
  try {
    await client.send(new CreateBucketCommand({ Bucket: S3_BUCKET }));
    console.log(`[stack] s3 bucket ${S3_BUCKET} created`);
  } catch (createErr) {
    console.error(
      `[stack] s3-bucket: CreateBucket ${S3_BUCKET} failed: ${createErr.name} ${createErr.message}`,
    );
    process.exit(1);
  }
}

try {
  await client.send(
    new PutBucketCorsCommand({
      Bucket: S3_BUCKET,
      CORSConfiguration: {
        CORSRules: [
          {
            AllowedOrigins: ['*'],
            AllowedMethods: ['PUT', 'GET', 'HEAD'],
            AllowedHeaders: ['content-type', 'content-length'],
            MaxAgeSeconds: 600,
          },
        ],
      },
    }),
  );
} catch (err) {
  console.error(`[stack] s3-bucket: PutBucketCors ${S3_BUCKET} failed: ${err.name} ${err.message}`);
  process.exit(1);
}
