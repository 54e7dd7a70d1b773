// A project's own database (SERVICE-SPEC "External database connection", DECISIONS §7): project
// admins save, replace and remove the connection string on the dashboard; it is verified first
// (verify.ts), stored sealed under a key id, and never returned. The public role answers the
// dashboard's second check through an internal endpoint. The data layer reaches the project's
// database through `databases.dbFor` (resolver.ts).
import type { Config } from '../../config.js';
import type { Database } from '../../db/client.js';
import { probeDatabase } from '../../db/external-databases.js';
import type {
  ExternalDatabaseSetting,
  ExternalDatabaseSettingsRepo,
} from '../../db/external-database-settings.js';
import { projectIndexes } from '../../db/project-indexes.js';
import type { CollectionsRepo } from '../../db/collections.js';
import { forbidden } from '../../http/errors.js';
import { hostResolver } from '../../lib/restricted-hosts.js';
import { keyring, safeEqual } from '../../lib/secrets.js';
import { syncCollectionIndexes } from '../collections.js';
import type { ProjectCache } from '../project-cache.js';
import type { ProjectsService } from '../projects.js';
import type { Project } from '../types.js';
import { publicRoleCheck } from './public-check.js';
import { fingerprintOf, projectDatabases } from './resolver.js';
import { checkFromHere, verifyConnection, type CheckDeps, type RemoteCheck } from './verify.js';

export const NOT_ON_PLAN_MESSAGE = "Bring Your Own Database is not available on this project's plan.";

export interface ExternalDbDeps {
  config: Config;
  db: Database;
  repo: ExternalDatabaseSettingsRepo;
  collections: Pick<CollectionsRepo, 'list'>;
  cached: ProjectCache;
  projects: ProjectsService;
  /** Replaces the call to the public role (tests of the dashboard alone). */
  remote?: RemoteCheck;
}

export function externalDatabaseService(deps: ExternalDbDeps) {
  const { config } = deps;
  const keys = keyring([config.encryptionKey, ...config.encryptionKeysPrevious], 'external-database-uri');
  const hosts = hostResolver(config.dnsServers);
  const check: CheckDeps = { hosts, allowPrivate: config.allowPrivateHosts, probe: probeDatabase };
  const remote = deps.remote ?? publicRoleCheck(config.publicInternalUrl, config.internalApiSecret);
  const egressIps = config.externalDatabases.egressIps;
  const databases = projectDatabases({ ...check, db: deps.db, repo: deps.repo, cached: deps.cached, keys });

  const view = (setting: ExternalDatabaseSetting | undefined) => ({
    connected: !!setting,
    host: setting?.host ?? null,
    database: setting ? setting.database : null,
    verifiedAt: setting?.verifiedAt.toISOString() ?? null,
    egressIps: { dashboard: egressIps.dashboard, public: egressIps.public },
  });

  return {
    databases,

    async get(project: Project) {
      return view(await deps.repo.get(project.id));
    },

    /**
     * Verifies, prepares the project's collections and unique indexes in the new database (409
     * when its documents already break a unique field), then stores the sealed URI. Nothing is
     * stored when any step fails.
     */
    async set(project: Project, uri: string) {
      if (!(await deps.projects.limitsOf(project)).externalDatabase) {
        throw forbidden(NOT_ON_PLAN_MESSAGE, 'PLAN_FEATURE');
      }
      const verified = await verifyConnection({ ...check, remote, egressIps }, uri);
      const sealed = keys.seal(uri);
      const setting: ExternalDatabaseSetting = {
        projectId: project.id,
        uriEnc: sealed.sealed,
        keyId: sealed.keyId,
        host: verified.host,
        database: verified.database,
        verifiedAt: new Date(),
      };
      const db = await deps.db.external.db(project.id, fingerprintOf(setting), async () => verified.target);
      const indexes = projectIndexes(db);
      for (const def of await deps.collections.list(project.id)) await syncCollectionIndexes(indexes, def);
      await deps.repo.set(setting);
      await deps.cached.changed(project.id);
      return view(setting);
    },

    /** Back to the managed database; the project's own database is left as it is. */
    async remove(projectId: string) {
      await deps.repo.delete(projectId);
      await deps.cached.changed(projectId);
      deps.db.external.close(projectId);
      return view(undefined);
    },

    /** The public role's half of the verification (internal endpoint). */
    checkHere: (uri: string) => checkFromHere(check, uri),

    /** Whether a request carries the shared secret of the internal endpoints. */
    acceptsInternalSecret: (secret: string) => safeEqual(secret, config.internalApiSecret),
  };
}

export type ExternalDatabaseService = ReturnType<typeof externalDatabaseService>;
