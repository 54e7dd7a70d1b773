// The one function through which the data layer reaches a project's database: the managed
// `p_<projectId>`, or the project's own deployment once one is saved. The setting is cached with
// the project (src/services/project-cache.ts), so a request costs no platform-database read, and
// a change is seen by every process at once; the pool is (re)opened only when the setting changes,
// and each opening runs the restricted-host check again.
import type { Database } from '../../db/client.js';
import { RefusedMemberError, type ExternalTarget } from '../../db/external-databases.js';
import type { MemberRule } from '../../db/external-members.js';
import type {
  ExternalDatabaseSetting,
  ExternalDatabaseSettingsRepo,
} from '../../db/external-database-settings.js';
import type { Keyring } from '../../lib/secrets.js';
import type { HostResolver } from '../../lib/restricted-hosts.js';
import { checkHost, checkHostText } from '../../lib/restricted-hosts.js';
import { connectTarget, parseDatabaseUri, splitHost } from '../../lib/mongodb-uri.js';
import { serviceUnavailable } from '../../http/errors.js';
import type { ProjectCache } from '../project-cache.js';

type Db = ReturnType<Database['project']>;

export interface ResolverDeps {
  db: Database;
  repo: ExternalDatabaseSettingsRepo;
  cached: ProjectCache;
  keys: Keyring;
  hosts: HostResolver;
  allowPrivate: boolean;
}

/** The 503 when the project's own database now resolves to a restricted address: what to do, and where. */
const RESTRICTED_DATABASE =
  "The project's own database cannot be used: its address now points to a restricted host (private, internal or reserved). Point the database's DNS at public addresses, or connect another one on the project's External database page.";

/** The sealed value changes at every save (fresh IV), so it tells settings apart. */
export const fingerprintOf = (setting: Pick<ExternalDatabaseSetting, 'uriEnc'>) => setting.uriEnc;

/** The restricted-host check of the replica-set members a deployment reports. */
export function memberRule(deps: Pick<ResolverDeps, 'hosts' | 'allowPrivate'>): MemberRule {
  return {
    check: async (member) =>
      (await checkHost(splitHost(member).host, deps.allowPrivate, deps.hosts.resolveAll)).ok,
    checkNow: (member) => checkHostText(splitHost(member).host, deps.allowPrivate).ok,
  };
}

/** Opens a saved connection string into a target, checking its hosts again. */
export async function targetOf(
  deps: Pick<ResolverDeps, 'hosts' | 'allowPrivate'>,
  uri: string,
): Promise<{ ok: true; target: ExternalTarget } | { ok: false; reason: string }> {
  const parsed = parseDatabaseUri(uri);
  if (!parsed.ok) return parsed;
  const resolved = await connectTarget(parsed.value, deps.hosts, deps.allowPrivate);
  if (!resolved.ok) return resolved;
  const lookup = deps.allowPrivate ? deps.hosts.lookup : deps.hosts.guardedLookup;
  const { uri: seeds, database } = resolved.value;
  return { ok: true, target: { uri: seeds, database, lookup, members: memberRule(deps) } };
}

export function projectDatabases(deps: ResolverDeps) {
  const settingOf = (projectId: string) =>
    deps.cached.ofProject(projectId, 'external-db', async () => (await deps.repo.get(projectId)) ?? null);

  /** Settings whose deployment reported a refused member while open: refused until saved again. */
  const refusedSettings = new Map<string, string>();

  async function open(projectId: string, setting: ExternalDatabaseSetting): Promise<ExternalTarget> {
    const uri = deps.keys.open({ keyId: setting.keyId, sealed: setting.uriEnc });
    const opened = await targetOf(deps, uri);
    // A host that became restricted since it was saved (DNS changed): no connection, a clear 503.
    if (!opened.ok) throw serviceUnavailable(RESTRICTED_DATABASE);
    const onRefusedMember = () => refusedSettings.set(projectId, fingerprintOf(setting));
    return { ...opened.target, onRefusedMember };
  }

  async function pooled(projectId: string, setting: ExternalDatabaseSetting): Promise<Db> {
    const fingerprint = fingerprintOf(setting);
    if (refusedSettings.get(projectId) === fingerprint) throw serviceUnavailable(RESTRICTED_DATABASE);
    try {
      return await deps.db.external.db(projectId, fingerprint, () => open(projectId, setting));
    } catch (err) {
      // The deployment reports a member on a restricted address: no connection, a clear 503.
      if (err instanceof RefusedMemberError) throw serviceUnavailable(RESTRICTED_DATABASE);
      throw err;
    }
  }

  return {
    /** The database that holds the project's documents. */
    async dbFor(projectId: string): Promise<Db> {
      const setting = await settingOf(projectId);
      if (!setting) {
        deps.db.external.close(projectId);
        return deps.db.project(projectId);
      }
      return pooled(projectId, setting);
    },
    /** Whether the project uses its own database (no managed quota then). */
    isExternal: async (projectId: string) => (await settingOf(projectId)) !== null,
  };
}

export type ProjectDatabases = ReturnType<typeof projectDatabases>;
