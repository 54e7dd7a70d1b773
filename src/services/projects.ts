// Projects: creation with its two keys (shown once), access control by membership and role,
// settings, key rotation, deletion, and the resolution of API keys for the public API.
import { badRequest, forbidden, notFound, unauthorized } from '../http/errors.js';
import { generateApiKey, keyKindOf, sha256 } from '../lib/secrets.js';
import { limitsOf as planLimits, type PlanTable } from '../lib/plan-table.js';
import { isObjectId } from '../db/ids.js';
import type { ProjectsRepo } from '../db/projects.js';
import type { DevelopersRepo } from '../db/developers.js';
import type { EndUserTokens } from './tokens.js';
import type { ProjectCache } from './project-cache.js';
import type { RequestContext } from './context.js';
import type { Developer, KeyKind, MemberRole, PlanLimits, Project, ProjectSettings } from './types.js';
import { counted } from '../lib/words.js';

export const ACCESS_DENIED = 'Project not found or access denied';
const MAX_REMEMBERED_KEYS = 10_000;

/** Cleanup steps other resources register for a deleted project (database, files, webhooks). */
export type ProjectCleanup = (projectId: string) => Promise<void>;

function storedKey(kind: KeyKind) {
  const key = generateApiKey(kind);
  return { key, stored: { hash: sha256(key), last4: key.slice(-4), createdAt: new Date() } };
}

/** A key's SHA-256 (as stored) and the project cache key it is found under. */
interface KeyHash {
  hash: string;
  cacheKey: string;
}

/**
 * 403 `ADMIN_ONLY` unless the caller of `project` (already found for a member) is one of its
 * admins: for acts a member may see but not do, named rather than hidden behind a 404.
 */
export function requireProjectAdmin(ctx: RequestContext, project: Project, what: string): void {
  const developer = requireDeveloper(ctx);
  const member = project.members.find((m) => m.developerId === developer.id);
  if (member?.role !== 'admin') throw forbidden(`Only project admins may ${what}`, 'ADMIN_ONLY');
}

export function requireDeveloper(ctx: RequestContext): Developer {
  if (!ctx.principal.developer) throw unauthorized('Not logged in', 'NOT_LOGGED_IN');
  return ctx.principal.developer;
}

export function projectsService(
  repo: ProjectsRepo,
  developers: DevelopersRepo,
  tokens: EndUserTokens,
  cache: ProjectCache,
  plans: PlanTable,
) {
  const cleanups: ProjectCleanup[] = [];
  /**
   * Hashes of keys that resolved to a project (with the cache key they are found under), so a busy
   * key is not hashed on every request. Only valid keys get in (a flood of made-up keys cannot
   * fill it), and it is bounded; the project behind a key is still looked up, and checked
   * against its version, every time.
   */
  const keyHashes = new Map<string, KeyHash>();
  function rememberHash(key: string, hash: KeyHash) {
    if (keyHashes.has(key)) return;
    if (keyHashes.size >= MAX_REMEMBERED_KEYS) keyHashes.delete(keyHashes.keys().next().value!);
    keyHashes.set(key, hash);
  }
  const hashOf = (key: string, kind: KeyKind): KeyHash => {
    const hash = sha256(key);
    return { hash, cacheKey: `key:${kind}:${hash}` };
  };

  /**
   * Refuses a caller who may not create a project: an access token limited to some projects (403
   * ACCESS_TOKEN_PROJECTS), a developer owning as many as their plan allows (403 PLAN_LIMIT).
   */
  async function checkProjectSlot(ctx: RequestContext): Promise<void> {
    const developer = requireDeveloper(ctx);
    if (ctx.principal.accessToken?.projectIds)
      throw forbidden(
        'This access token is limited to some projects: it cannot create one',
        'ACCESS_TOKEN_PROJECTS',
      );
    const limits = planLimits(plans, { limits: {} }, developer.plan);
    if ((await repo.countOwnedBy(developer.id)) >= limits.projectsPerDeveloper) {
      throw forbidden(
        `Plan limit reached: the ${developer.plan} plan allows ${counted(limits.projectsPerDeveloper, 'project')}`,
        'PLAN_LIMIT',
      );
    }
  }

  async function limitsOf(project: Project): Promise<PlanLimits> {
    const owner = await developers.findById(project.ownerId);
    return planLimits(plans, project, owner?.plan ?? plans.defaultPlan);
  }

  return {
    limitsOf,
    onDelete(cleanup: ProjectCleanup): void {
      cleanups.push(cleanup);
    },

    /** The project if the caller is a member with at least `role`; 400 for a malformed id, else 404. */
    async requireAccess(ctx: RequestContext, projectId: string, role: MemberRole): Promise<Project> {
      const developer = requireDeveloper(ctx);
      if (!isObjectId(projectId)) throw badRequest('Invalid project ID', undefined, 'INVALID_PROJECT_ID');
      const grant = ctx.principal.accessToken;
      const project =
        grant?.projectIds && !grant.projectIds.includes(projectId)
          ? undefined
          : await repo.findById(projectId);
      const member = project?.members.find((m) => m.developerId === developer.id);
      if (!project || !member || (role === 'admin' && member.role !== 'admin')) {
        throw notFound(ACCESS_DENIED, 'PROJECT_NOT_FOUND');
      }
      return project;
    },

    checkProjectSlot,

    async create(ctx: RequestContext, name: string, settings: Partial<ProjectSettings>) {
      await checkProjectSlot(ctx);
      const developer = requireDeveloper(ctx);
      const publishable = storedKey('publishable');
      const secret = storedKey('secret');
      const project = await repo.create({
        name: name.trim(),
        ownerId: developer.id,
        settings: { allowedOrigins: [], endUserAuth: true, siteUrl: null, ...settings },
        keys: { publishable: publishable.stored, secret: secret.stored },
        jwtSecretEnc: tokens.newSealedSecret(),
      });
      return { project, keys: { publishable: publishable.key, secret: secret.key } };
    },

    async list(ctx: RequestContext) {
      const list = await repo.listForDeveloper(requireDeveloper(ctx).id);
      const allowed = ctx.principal.accessToken?.projectIds;
      return allowed ? list.filter((project) => allowed.includes(project.id)) : list;
    },

    async update(project: Project, changes: { name?: string; settings?: Partial<ProjectSettings> }) {
      // The schema refuses an all-space name; the spaces around a real one are not part of it.
      const named = changes.name === undefined ? changes : { ...changes, name: changes.name.trim() };
      return (await repo.update(project.id, named)) ?? project;
    },

    async rotateKey(project: Project, kind: KeyKind): Promise<{ project: Project; key: string }> {
      const { key, stored } = storedKey(kind);
      const updated = await repo.setKey(project.id, kind, stored);
      if (!updated) throw notFound(ACCESS_DENIED, 'PROJECT_NOT_FOUND');
      return { project: updated, key };
    },

    /** Holds the project's public API back while this restore replaces its data. */
    setRestoring: (projectId: string, restoreId: string) => repo.setRestoring(projectId, restoreId),
    /** Lets it go once that restore ended. */
    clearRestoring: (projectId: string, restoreId: string) => repo.clearRestoring(projectId, restoreId),

    async delete(project: Project): Promise<void> {
      for (const cleanup of cleanups) await cleanup(project.id);
      await repo.delete(project.id);
    },

    /** The project and kind of an API key; 401 for a missing, malformed or unknown key. */
    /** A secret key that resolved in this process (rotated since or not): no lookup, no hash. */
    knownSecretKey(key: string): boolean {
      return keyKindOf(key) === 'secret' && keyHashes.has(key);
    },
    async resolveApiKey(key: string): Promise<{ project: Project; kind: KeyKind }> {
      const kind = keyKindOf(key);
      if (!kind) throw unauthorized('Invalid API key', 'INVALID_API_KEY');
      const hashed = keyHashes.get(key) ?? hashOf(key, kind);
      const project = await cache.find(
        hashed.cacheKey,
        () => repo.findByKeyHash(kind, hashed.hash),
        (p) => p.id,
      );
      if (!project) throw unauthorized('Invalid API key', 'INVALID_API_KEY');
      rememberHash(key, hashed);
      return { project, kind };
    },
  };
}

export type ProjectsService = ReturnType<typeof projectsService>;
