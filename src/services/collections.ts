// Collections of a project: create (the `users` one also from the server's sign-in definition),
// list, get, update and delete their definitions on the dashboard, keeping the project database in
// step (the MongoDB collection and its unique and owner indexes), and the lookups the public API
// needs (data API, `/api/schemas`).
import { badRequest, conflict, forbidden, notFound, unauthorized } from '../http/errors.js';
import type { CollectionsRepo } from '../db/collections.js';
import type { ProjectIndexes, IndexSyncResult, WantedIndexes } from '../db/project-indexes.js';
import { requireProjectAdmin, type ProjectsService } from './projects.js';
import type { RequestContext } from './context.js';
import type { CollectionDef, FieldDef, Project } from './types.js';
import {
  checkCollectionInput,
  type CheckedCollection,
  type RawCollectionInput,
} from './schema/field-definitions.js';
import { checkCollectionIndexes, declaresTtl, TTL_ACT } from './schema/index-definitions.js';
import { USERS_COLLECTION } from './project-create.js';
import { counted } from '../lib/words.js';

/** An update body: the name, when sent, must be the current one. */
export type CollectionUpdate = Omit<RawCollectionInput, 'name'> & { name?: unknown };

export const collectionNotFound = (name: string) =>
  notFound(`Collection "${name}" not found`, 'COLLECTION_NOT_FOUND');

const wantedIndexes = (def: Pick<CollectionDef, 'fields' | 'rls' | 'indexes'>): WantedIndexes => ({
  unique: def.fields.filter((f) => f.unique).map((f) => f.name),
  owner: def.rls.enabled ? def.rls.ownerField : undefined,
  declared: def.indexes,
});

const shownValue = (value: unknown): string =>
  value instanceof Date
    ? value.toISOString()
    : value && typeof value === 'object' && !Array.isArray(value)
      ? `{${Object.entries(value)
          .map(([k, v]) => `${k}: ${shownValue(v)}`)
          .join(', ')}}`
      : JSON.stringify(value);

/** 409 DUPLICATE_VALUES naming up to five of the values that repeat. */
export function duplicateValues(result: Extract<IndexSyncResult, { ok: false }>) {
  const fields = result.fields.join(', ');
  return conflict(
    `Cannot make "${fields}" unique: some documents share a value (${result.duplicates.map((d) => shownValue(d.value)).join(', ')})`,
    'DUPLICATE_VALUES',
    result.duplicates.map((d) => ({
      path: fields,
      message: `${shownValue(d.value)} is used by ${d.count} documents`,
    })),
  );
}

/**
 * Creates the collection and brings its indexes in line with `def`, or throws 409
 * DUPLICATE_VALUES with nothing changed. Also used when a project moves to its own database.
 */
export async function syncCollectionIndexes(
  indexes: ProjectIndexes,
  def: Pick<CollectionDef, 'name' | 'fields' | 'rls' | 'indexes'>,
): Promise<void> {
  await indexes.ensureCollection(def.name);
  const result = await indexes.sync(def.name, wantedIndexes(def));
  if (!result.ok) throw duplicateValues(result);
}

/** Ref fields of `def` (at any depth, Array items included) that point at `target`. */
function refsTo(target: string, fields: FieldDef[] | undefined, prefix = ''): string[] {
  const found: string[] = [];
  for (const field of fields ?? []) {
    const path = prefix ? `${prefix}.${field.name}` : field.name;
    if (field.ref === target || field.items?.ref === target) found.push(path);
    found.push(...refsTo(target, field.fields, path), ...refsTo(target, field.items?.fields, path));
  }
  return found;
}

/** The project of the request's API key when it is the secret key: 401 without a key, 403 for the publishable one. */
export function secretKeyProject(ctx: RequestContext): Project {
  const { project, keyKind } = ctx.principal;
  if (!project) throw unauthorized('An API key is required', 'MISSING_API_KEY');
  if (keyKind !== 'secret') {
    throw forbidden('This operation requires the secret key', 'SECRET_KEY_REQUIRED');
  }
  return project;
}

/** The project's counters a collection moves: its collection slot and its `databaseUsed`. */
export interface CollectionUsage {
  /** Takes one of the `limit` collection slots atomically; false when all are taken. */
  claimSlot(projectId: string, limit: number): Promise<boolean>;
  releaseSlot(projectId: string): Promise<void>;
  /** The stored size of the collection's documents, trashed ones included. */
  collectionSize(projectId: string, name: string): Promise<number>;
  release(projectId: string, bytes: number): Promise<void>;
}

export function collectionsService(
  repo: CollectionsRepo,
  projects: ProjectsService,
  indexesOf: (projectId: string) => Promise<ProjectIndexes>,
  usage: CollectionUsage,
) {
  async function requireCollection(projectId: string, name: string): Promise<CollectionDef> {
    const def = await repo.findByName(projectId, name);
    if (!def) throw collectionNotFound(name);
    return def;
  }

  const syncIndexes = async (projectId: string, def: CheckedCollection & Pick<CollectionDef, 'indexes'>) =>
    syncCollectionIndexes(await indexesOf(projectId), def);

  async function createIn(project: Project, input: RawCollectionInput): Promise<CollectionDef> {
    const existing = await repo.list(project.id);
    const names = new Set(existing.map((c) => c.name));
    const checked = checkCollectionInput(input, { existingCollections: names, operation: 'create' });
    if (names.has(checked.name)) throw conflictExists(checked.name);
    const { collectionsPerProject, indexesPerCollection } = await projects.limitsOf(project);
    const indexes = checkCollectionIndexes(checked, input.indexes, indexesPerCollection);
    // The slot is claimed atomically (the listing above may be stale under concurrent creates)
    // and given back when the create fails, so the limit holds exactly.
    if (!(await usage.claimSlot(project.id, collectionsPerProject))) {
      throw forbidden(
        `Plan limit reached: this project may have at most ${counted(collectionsPerProject, 'collection')} (collectionsPerProject)`,
        'PLAN_LIMIT',
      );
    }
    try {
      const wanted = indexes ? { ...checked, indexes } : checked;
      await syncIndexes(project.id, wanted);
      const def = await repo.create(project.id, wanted);
      if (!def) throw conflictExists(checked.name);
      return def;
    } catch (err) {
      await usage.releaseSlot(project.id);
      throw err;
    }
  }

  async function updateIn(project: Project, name: string, input: CollectionUpdate): Promise<CollectionDef> {
    const current = await requireCollection(project.id, name);
    if (input.name !== undefined && input.name !== name) {
      throw badRequest(
        'The name of a collection cannot be changed',
        [{ path: 'name', message: 'name is immutable' }],
        'NAME_IMMUTABLE',
      );
    }
    const names = new Set((await repo.list(project.id)).map((c) => c.name));
    const checked = checkCollectionInput(
      { ...input, name },
      {
        existingCollections: names,
        currentMode: current.mode,
        currentRls: current.rls,
        operation: 'update',
      },
    );
    // Declared indexes stay as they are; a project database that lost one gets it back.
    await syncIndexes(project.id, { ...checked, indexes: current.indexes });
    const updated = await repo.update(project.id, name, {
      mode: checked.mode,
      fields: checked.fields,
      rls: checked.rls,
    });
    if (!updated) throw collectionNotFound(name);
    return updated;
  }

  async function deleteIn(project: Project, name: string): Promise<void> {
    const all = await repo.list(project.id);
    if (!all.some((c) => c.name === name)) throw collectionNotFound(name);
    const referencing = all
      .filter((c) => c.name !== name)
      .flatMap((c) => refsTo(name, c.fields).map((path) => `${c.name}.${path}`));
    if (referencing.length) {
      throw conflict(
        `Collection "${name}" is referenced by ${referencing.join(', ')}; remove those Ref fields first`,
        'COLLECTION_REFERENCED',
        referencing.map((path) => ({ path, message: `${path} refers to ${name}` })),
      );
    }
    if (!(await repo.delete(project.id, name))) throw collectionNotFound(name);
    await usage.releaseSlot(project.id);
    const bytes = await usage.collectionSize(project.id, name);
    await (await indexesOf(project.id)).dropCollection(name);
    await usage.release(project.id, bytes);
  }

  return {
    requireCollection,

    /** The definition the data API works with, or undefined when it is not registered. */
    getDefinition: (projectId: string, name: string) => repo.findByName(projectId, name),

    async create(ctx: RequestContext, projectId: string, input: RawCollectionInput): Promise<CollectionDef> {
      const project = await projects.requireAccess(ctx, projectId, 'member');
      // A TTL index deletes documents for good, without events: an admin's decision.
      if (declaresTtl(input.indexes)) requireProjectAdmin(ctx, project, TTL_ACT);
      return createIn(project, input);
    },

    /**
     * The `users` collection end-user sign-in needs, from the server's own definition (the one a
     * project made with `endUserSignIn` gets): the dashboard's one click. Project admins only.
     */
    async createUsers(ctx: RequestContext, projectId: string): Promise<CollectionDef> {
      const project = await projects.requireAccess(ctx, projectId, 'member');
      requireProjectAdmin(ctx, project, 'create the users collection');
      return createIn(project, structuredClone(USERS_COLLECTION));
    },

    /** A collection of a project its caller has just created (project-create.ts): no access check. */
    createInNew: (project: Project, input: RawCollectionInput) => createIn(project, input),

    async list(ctx: RequestContext, projectId: string): Promise<CollectionDef[]> {
      const project = await projects.requireAccess(ctx, projectId, 'member');
      return repo.list(project.id);
    },

    async get(ctx: RequestContext, projectId: string, name: string): Promise<CollectionDef> {
      const project = await projects.requireAccess(ctx, projectId, 'member');
      return requireCollection(project.id, name);
    },

    /** Replaces mode, fields and RLS (each left out keeps its value, except fields); the name is fixed. */
    async update(ctx: RequestContext, projectId: string, name: string, input: CollectionUpdate) {
      return updateIn(await projects.requireAccess(ctx, projectId, 'member'), name, input);
    },

    /**
     * Removes the definition, then the MongoDB collection with its documents, and gives their
     * stored size back to `databaseUsed`. The definition goes first so that no new write is let
     * in; a write already under way in another process between the measure and the drop stays
     * counted until the usage recount (jobs/usage-recount.ts) corrects it.
     */
    async delete(ctx: RequestContext, projectId: string, name: string): Promise<void> {
      await deleteIn(await projects.requireAccess(ctx, projectId, 'member'), name);
    },

    /** The same operations for the secret key of the project (`/api/schemas`, CI and infrastructure as code). */
    createWithKey: async (ctx: RequestContext, input: RawCollectionInput) =>
      createIn(secretKeyProject(ctx), input),
    updateWithKey: async (ctx: RequestContext, name: string, input: CollectionUpdate) =>
      updateIn(secretKeyProject(ctx), name, input),
    deleteWithKey: async (ctx: RequestContext, name: string) => deleteIn(secretKeyProject(ctx), name),

    /** `GET /api/schemas/:collectionName`: a registered collection of the API key's project. */
    async getSchema(ctx: RequestContext, name: string): Promise<CollectionDef> {
      const project = ctx.principal.project;
      if (!project) throw unauthorized('An API key is required', 'MISSING_API_KEY');
      const def = await requireCollection(project.id, name);
      // The publishable key is in every browser: it is not told which user fields the project
      // keeps private or lets only itself write (as in the project's API document).
      if (def.name !== 'users' || ctx.principal.keyKind === 'secret') return def;
      return { ...def, fields: def.fields.filter((f) => !f.private && !f.protected) };
    },
  };
}

const conflictExists = (name: string) =>
  conflict(`A collection named "${name}" already exists in this project`, 'COLLECTION_EXISTS');

export type CollectionsService = ReturnType<typeof collectionsService>;
