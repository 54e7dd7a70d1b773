// How big a project's collections are, for the dashboard's overview: document counts per
// collection and, on the embedded development engine, a warning once one of them passes the size
// at which that engine's scans get slow (EMBEDDED_WARN_DOCUMENTS; docs/scale.md).
import type { ProjectIndexes } from '../db/project-indexes.js';
import type { CollectionsRepo } from '../db/collections.js';
import type { ProjectsService } from './projects.js';
import type { RequestContext } from './context.js';
import { EMBEDDED_WARN_DOCUMENTS, engineInfo } from './health.js';

export function collectionSizesService(
  collections: CollectionsRepo,
  projects: ProjectsService,
  indexesOf: (projectId: string) => Promise<ProjectIndexes>,
  isExternal: (projectId: string) => Promise<boolean>,
  embedded: boolean,
) {
  return {
    async get(ctx: RequestContext, projectId: string) {
      const project = await projects.requireAccess(ctx, projectId, 'member');
      const [defs, indexes, external] = await Promise.all([
        collections.list(project.id),
        indexesOf(project.id),
        isExternal(project.id),
      ]);
      const sizes = await Promise.all(
        defs.map(async (def) => ({
          name: def.name,
          documents: await indexes.estimatedCount(def.name),
          declaredIndexes: def.indexes?.length ?? 0,
        })),
      );
      // A project on its own database does not run on the embedded engine.
      const onEmbedded = embedded && !external;
      const large = onEmbedded ? sizes.filter((c) => c.documents >= EMBEDDED_WARN_DOCUMENTS) : [];
      const embeddedEngineWarning = large.length
        ? `${large.map((c) => `"${c.name}" holds ${c.documents.toLocaleString('en')} documents`).join(', ')}: ` +
          `the embedded database scans collections, so lists get slower as they grow (declared indexes help ` +
          `only partly there). For production, set MONGODB_URI to a MongoDB replica set (docs/scale.md).`
        : null;
      return {
        engine: engineInfo(onEmbedded),
        warnAtDocuments: EMBEDDED_WARN_DOCUMENTS,
        collections: sizes,
        embeddedEngineWarning,
      };
    },
  };
}
