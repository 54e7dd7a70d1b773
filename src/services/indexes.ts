// Indexes the developer declares on a collection: list (with the ones the definition implies:
// unique fields and the RLS owner field), create and drop, from the dashboard and with the secret
// key. The definition holds them (so exports and the project's OpenAPI document carry them); the
// project database gets `i_<name>` (db/project-indexes.ts).
import { conflict, notFound } from '../http/errors.js';
import type { CollectionsRepo } from '../db/collections.js';
import type { ProjectIndexes } from '../db/project-indexes.js';
import { duplicateValues, secretKeyProject, type CollectionsService } from './collections.js';
import { requireProjectAdmin, type ProjectsService } from './projects.js';
import type { RequestContext } from './context.js';
import type { IndexDef, IndexKey, Project } from './types.js';
import {
  checkIndexInput,
  collectionIndexes,
  indexPlanLimit,
  sameKeys,
  TTL_ACT,
  type ListedIndex,
  type RawIndexInput,
} from './schema/index-definitions.js';

export type { ListedIndex } from './schema/index-definitions.js';

const indexExists = (message: string) => conflict(message, 'INDEX_EXISTS');

export function indexesService(
  repo: CollectionsRepo,
  projects: ProjectsService,
  collections: Pick<CollectionsService, 'requireCollection'>,
  indexesOf: (projectId: string) => Promise<ProjectIndexes>,
) {
  /** The indexes with the plan's limit of declared ones (a page shows how many are left). */
  async function listIn(project: Project, name: string): Promise<{ indexes: ListedIndex[]; limit: number }> {
    const def = await collections.requireCollection(project.id, name);
    const { indexesPerCollection } = await projects.limitsOf(project);
    return { indexes: collectionIndexes(def), limit: indexesPerCollection };
  }

  async function createIn(project: Project, name: string, input: RawIndexInput): Promise<ListedIndex> {
    const def = await collections.requireCollection(project.id, name);
    const checked = checkIndexInput(def, input);
    const listed = collectionIndexes(def);
    const byName = listed.find((i) => i.name === checked.name);
    if (byName) throw indexExists(`Collection "${name}" already has an index named "${checked.name}"`);
    const twin = listed.find((i) => sameKeys(i.keys, checked.keys));
    if (twin) {
      throw indexExists(
        `Index "${twin.name}" of "${name}" already has these keys (${describeKeys(checked.keys)})`,
      );
    }
    const { indexesPerCollection: limit } = await projects.limitsOf(project);
    if ((def.indexes?.length ?? 0) >= limit) throw indexPlanLimit(limit);
    // The plan slot is taken before the build, atomically with the count: building first let N
    // parallel creates build N indexes (each a full scan) for L slots and drop the extra ones.
    const index: IndexDef = { ...checked, createdAt: new Date() };
    if (!(await repo.addIndex(project.id, name, index, limit))) {
      // Lost to a concurrent create (of the same name, or one that took the last place).
      const now = await collections.requireCollection(project.id, name);
      if (now.indexes?.some((i) => i.name === index.name)) {
        throw indexExists(`Collection "${name}" already has an index named "${index.name}"`);
      }
      throw indexPlanLimit(limit);
    }
    const indexes = await indexesOf(project.id);
    let built: Awaited<ReturnType<ProjectIndexes['createDeclared']>>;
    try {
      built = await indexes.createDeclared(name, checked);
    } catch (err) {
      await repo.removeIndex(project.id, name, index.name);
      throw err;
    }
    if (built.ok) return { ...index, source: 'declared' };
    // The slot goes back: the database refused the index.
    await repo.removeIndex(project.id, name, index.name);
    if (built.sameKeysAs) {
      throw indexExists(
        `The database already has index "${built.sameKeysAs}" with these keys (${describeKeys(checked.keys)}); drop it or use its keys in another order`,
      );
    }
    throw duplicateValues(built);
  }

  async function dropIn(project: Project, name: string, indexName: string): Promise<void> {
    const def = await collections.requireCollection(project.id, name);
    const implied = collectionIndexes(def).find((i) => i.name === indexName && i.source !== 'declared');
    if (implied) {
      const field = implied.keys[0]!.field;
      throw conflict(
        implied.source === 'unique-field'
          ? `Index "${indexName}" keeps field "${field}" unique: turn unique off on the field to drop it`
          : `Index "${indexName}" serves the RLS owner field "${field}": it goes when RLS is turned off`,
        'INDEX_MANAGED',
      );
    }
    // The definition first: from then on nothing counts on the index (the TTL sweep included).
    if (!(await repo.removeIndex(project.id, name, indexName))) {
      throw notFound(`Collection "${name}" has no index named "${indexName}"`, 'INDEX_NOT_FOUND');
    }
    await (await indexesOf(project.id)).dropDeclared(name, indexName);
  }

  const member = (ctx: RequestContext, projectId: string) => projects.requireAccess(ctx, projectId, 'member');

  return {
    list: async (ctx: RequestContext, projectId: string, name: string) =>
      listIn(await member(ctx, projectId), name),
    create: async (ctx: RequestContext, projectId: string, name: string, input: RawIndexInput) => {
      const project = await member(ctx, projectId);
      // A TTL index deletes documents for good, without events: an admin's decision.
      if (input.expireAfterSeconds !== undefined) requireProjectAdmin(ctx, project, TTL_ACT);
      return createIn(project, name, input);
    },
    drop: async (ctx: RequestContext, projectId: string, name: string, indexName: string) =>
      dropIn(await member(ctx, projectId), name, indexName),

    /** The same for the secret key (`/api/schemas/{collectionName}/indexes`). */
    listWithKey: async (ctx: RequestContext, name: string) => listIn(secretKeyProject(ctx), name),
    createWithKey: async (ctx: RequestContext, name: string, input: RawIndexInput) =>
      createIn(secretKeyProject(ctx), name, input),
    dropWithKey: async (ctx: RequestContext, name: string, indexName: string) =>
      dropIn(secretKeyProject(ctx), name, indexName),
  };
}

const describeKeys = (keys: readonly IndexKey[]) => keys.map((k) => `${k.field} ${k.direction}`).join(', ');

export type IndexesService = ReturnType<typeof indexesService>;
