// The object stores: the operator's `internal` store chosen from the configuration (an S3 bucket
// when S3_BUCKET is set, else the local filesystem under STORAGE_DIR), and S3 stores for the
// projects' own buckets. The only place that imports the AWS SDK and the filesystem store.
import type { Config } from '../config.js';
import { fsStore } from './fs-store.js';
import { s3Store, type S3ObjectStore, type S3StoreSettings } from './s3-store.js';
import type { FsObjectStore } from './types.js';

export type InternalStore = FsObjectStore | S3ObjectStore;

export function createInternalStore(config: Config): InternalStore {
  if (config.s3) {
    return s3Store({
      endpoint: config.s3.endpoint,
      region: config.s3.region,
      bucket: config.s3.bucket,
      accessKeyId: config.s3.accessKeyId,
      secretAccessKey: config.s3.secretAccessKey,
      publicUrlBase: config.s3.publicUrl,
      forcePathStyle: true,
      // The operator's own endpoint may well be on a private network.
      guardHosts: false,
    });
  }
  return fsStore({
    dir: config.storageDir,
    publicUrl: config.publicUrl,
    encryptionKey: config.encryptionKey,
  });
}

export { s3Store, fsStore };
export { UPLOAD_ROUTE } from './fs-store.js';
export type { S3ObjectStore, S3StoreSettings };
export type * from './types.js';
