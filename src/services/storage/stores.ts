// Which object store serves a project: the operator's internal store, or the project's own bucket
// (external, Pro only). S3 clients for project buckets are kept per project and rebuilt when the
// settings change; the secret access key is decrypted only here.
import type { Config } from '../../config.js';
import { decrypt, deriveKey, encrypt } from '../../lib/secrets.js';
import { s3Store, type InternalStore, type ObjectStore, type S3ObjectStore } from '../../storage/index.js';
import type { PlanLimits } from '../types.js';
import type { ExternalBucket, FileProvider, FileRecord, StorageSettings } from './types.js';

const MAX_CACHED_CLIENTS = 500;

export interface UploadTarget {
  provider: FileProvider;
  store: ObjectStore;
  location: string | null;
}

export const locationOf = (bucket: Pick<ExternalBucket, 'endpoint' | 'bucket'>) =>
  `${bucket.endpoint}|${bucket.bucket}`;

export function storeResolver(config: Config, internal: InternalStore) {
  const sealingKey = deriveKey(config.encryptionKey, 'storage-external-credentials');
  const clients = new Map<string, { fingerprint: string; store: S3ObjectStore }>();

  /** An S3 store for a bucket a developer supplied: connections to restricted addresses refused. */
  function bucketStore(bucket: ExternalBucket, secretAccessKey: string, timeoutMs?: number): S3ObjectStore {
    return s3Store({
      endpoint: bucket.endpoint,
      region: bucket.region,
      bucket: bucket.bucket,
      accessKeyId: bucket.accessKeyId,
      secretAccessKey,
      publicUrlBase: bucket.publicUrlBase ?? undefined,
      forcePathStyle: bucket.forcePathStyle,
      guardHosts: config.allowPrivateHosts ? 'metadata' : true,
      timeoutMs,
      projectBucket: true,
    });
  }

  function externalStore(settings: StorageSettings): S3ObjectStore | undefined {
    const external = settings.external;
    if (!external) return undefined;
    const fingerprint = `${settings.updatedAt?.getTime()}|${external.secretAccessKeyEnc}`;
    const cached = clients.get(settings.projectId);
    if (cached?.fingerprint === fingerprint) return cached.store;
    cached?.store.close();
    const store = bucketStore(external, decrypt(sealingKey, external.secretAccessKeyEnc));
    if (clients.size >= MAX_CACHED_CLIENTS) {
      const [oldest, entry] = clients.entries().next().value!;
      entry.store.close();
      clients.delete(oldest);
    }
    clients.set(settings.projectId, { fingerprint, store });
    return store;
  }

  return {
    internal,
    bucketStore,
    sealSecret: (secret: string) => encrypt(sealingKey, secret),

    /** Where a new upload goes: the project's bucket while its plan allows it, else internal. */
    forUpload(settings: StorageSettings, limits: PlanLimits): UploadTarget {
      const external = limits.externalStorage ? externalStore(settings) : undefined;
      if (external && settings.external) {
        return { provider: 'external', store: external, location: locationOf(settings.external) };
      }
      return { provider: 'internal', store: internal, location: null };
    },

    /**
     * The store holding a recorded file, or undefined when it is out of reach: the project no
     * longer uses that bucket, or the operator moved the internal store to another backend.
     */
    forRecord(
      record: Pick<FileRecord, 'provider' | 'backend' | 'location'>,
      settings: StorageSettings,
    ): ObjectStore | undefined {
      if (record.provider === 'internal') return record.backend === internal.backend ? internal : undefined;
      if (!settings.external || locationOf(settings.external) !== record.location) return undefined;
      return externalStore(settings);
    },

    forget(projectId: string): void {
      clients.get(projectId)?.store.close();
      clients.delete(projectId);
    },
  };
}

export type StoreResolver = ReturnType<typeof storeResolver>;
