// A project's storage settings on the dashboard (project admins): end-user uploads on or off, and
// the project's own S3-compatible bucket (Pro). A bucket is saved only after its endpoint passed
// the restricted-host check and a real request (HeadBucket) with the given keys succeeded; the
// secret access key is stored encrypted and never returned.
import type { Config } from '../../config.js';
import { badRequest, forbidden } from '../../http/errors.js';
import { checkHost } from '../../lib/restricted-hosts.js';
import type { StorageSettingsRepo } from '../../db/storage-settings.js';
import type { ProjectsService } from '../projects.js';
import type { Project } from '../types.js';
import type { StoreResolver } from './stores.js';
import type { StorageSettings } from './types.js';

export const PRO_FEATURE_MESSAGE =
  'Bring Your Own Storage (external S3-compatible bucket) is a Pro feature. Please upgrade to continue.';
export const RESTRICTED_ENDPOINT_MESSAGE =
  'Storage endpoint is pointing to a restricted host, internal network, or unsupported URL format.';
const CHECK_TIMEOUT_MS = 8000;

export interface ExternalBucketInput {
  endpoint: string;
  region: string;
  bucket: string;
  accessKeyId: string;
  secretAccessKey: string;
  publicUrlBase?: string | null;
  forcePathStyle?: boolean;
}

export function storageSettingsService(
  config: Config,
  repo: StorageSettingsRepo,
  projects: ProjectsService,
  stores: StoreResolver,
) {
  async function view(project: Project, settings: StorageSettings) {
    const limits = await projects.limitsOf(project);
    const external = settings.external;
    return {
      provider: external && limits.externalStorage ? ('external' as const) : ('internal' as const),
      internal: {
        backend: stores.internal.backend === 'fs' ? ('filesystem' as const) : ('s3' as const),
        publicUrls: stores.internal.publicUrl(`${project.id}/x`) !== undefined,
      },
      external: external && {
        endpoint: external.endpoint,
        region: external.region,
        bucket: external.bucket,
        accessKeyId: external.accessKeyId,
        publicUrlBase: external.publicUrlBase,
        forcePathStyle: external.forcePathStyle,
        hasSecretAccessKey: true as const,
        verifiedAt: external.verifiedAt.toISOString(),
      },
      endUserUploads: settings.endUserUploads,
      externalStorageAllowed: limits.externalStorage,
    };
  }

  /** The endpoint as a base URL, or a 400 naming what to change: https, no credentials, query or fragment. */
  async function checkEndpoint(endpoint: string): Promise<string> {
    const refuse = (message: string) => badRequest(message, [{ path: 'body.endpoint', message }]);
    let url: URL;
    try {
      url = new URL(endpoint);
    } catch {
      throw refuse(
        'The endpoint is not a URL: enter the full address of the S3 API, such as https://s3.eu-west-1.amazonaws.com',
      );
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:')
      throw refuse(
        `The endpoint must be an https:// address; ${url.protocol.replace(/:$/, '')} is not supported`,
      );
    if (url.username || url.password)
      throw refuse(
        'Remove the user name and password from the endpoint: the access key and its secret go in their own fields',
      );
    if (url.search || url.hash)
      throw refuse('Remove the query and fragment from the endpoint: it is the base address of the S3 API');
    if (url.protocol === 'http:' && !config.allowPrivateHosts)
      throw refuse(
        'The endpoint must use https://; plain http is accepted only where the operator allows private hosts (ALLOW_PRIVATE_HOSTS)',
      );
    const host = await checkHost(url.hostname, config.allowPrivateHosts);
    if (!host.ok) {
      throw badRequest(
        RESTRICTED_ENDPOINT_MESSAGE,
        [{ path: 'body.endpoint', message: host.reason }],
        'RESTRICTED_HOST',
      );
    }
    return `${url.origin}${url.pathname.replace(/\/+$/, '')}`;
  }

  return {
    async get(project: Project) {
      return view(project, await repo.get(project.id));
    },

    async setExternal(project: Project, input: ExternalBucketInput) {
      if (!(await projects.limitsOf(project)).externalStorage) {
        throw forbidden(PRO_FEATURE_MESSAGE, 'PRO_FEATURE');
      }
      const endpoint = await checkEndpoint(input.endpoint);
      const bucket = {
        endpoint,
        region: input.region,
        bucket: input.bucket,
        accessKeyId: input.accessKeyId,
        publicUrlBase: input.publicUrlBase?.replace(/\/+$/, '') || null,
        forcePathStyle: input.forcePathStyle ?? true,
        verifiedAt: new Date(),
      };
      const probe = stores.bucketStore(bucket, input.secretAccessKey, CHECK_TIMEOUT_MS);
      try {
        const check = await probe.checkBucket();
        if (!check.ok) {
          throw badRequest(
            `Could not access bucket "${input.bucket}" at ${endpoint}: ${check.reason}`,
            undefined,
            'STORAGE_CHECK_FAILED',
          );
        }
      } finally {
        probe.close();
      }
      const saved = await repo.setExternal(project.id, {
        ...bucket,
        secretAccessKeyEnc: stores.sealSecret(input.secretAccessKey),
      });
      stores.forget(project.id);
      return view(project, saved);
    },

    async update(project: Project, changes: { endUserUploads?: boolean }) {
      const saved =
        changes.endUserUploads === undefined
          ? await repo.get(project.id)
          : await repo.setEndUserUploads(project.id, changes.endUserUploads);
      return view(project, saved);
    },

    async removeExternal(project: Project) {
      const saved = await repo.setExternal(project.id, null);
      stores.forget(project.id);
      return view(project, saved);
    },
  };
}

export type StorageSettingsService = ReturnType<typeof storageSettingsService>;
