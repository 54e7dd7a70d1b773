// Each project's own OpenAPI document (src/services/project-api/document.ts), for its API keys
// and its members: built once per version of the project (the project cache's version, replaced
// on every change to the project or its collections) and kept as the bytes to send with their
// ETag, so a request costs one cache read, and a conditional one no body at all.
import { unauthorized } from '../../http/errors.js';
import type { RequestContext } from '../context.js';
import { projectCache } from '../project-cache.js';
import type { ProjectsService } from '../projects.js';
import type { CollectionDef, Project } from '../types.js';
import type { Cache } from '../../cache/index.js';
import { buildProjectDocument } from './document.js';
import type { Audience } from './user-paths.js';

/** Documents are larger than the other cached values (about 40 KiB per collection): fewer are kept. */
const MAX_DOCUMENTS = 100;

export interface ProjectApiDocument {
  /** The document as JSON text, ready to send. */
  body: Buffer;
  /** Quoted, as in the header. */
  etag: string;
}

export interface ProjectApiDeps {
  cache: Cache;
  projects: Pick<ProjectsService, 'requireAccess'>;
  listCollections: (projectId: string) => Promise<CollectionDef[]>;
  publicUrl: string;
}

export function projectApiService({ cache, projects, listCollections, publicUrl }: ProjectApiDeps) {
  const documents = projectCache(cache, { maxEntries: MAX_DOCUMENTS });
  const stats = { builds: 0 };

  const ofProject = (project: Project, audience: Audience) =>
    documents.ofProject<ProjectApiDocument>(project.id, `openapi-${audience}`, async () => {
      const collections = await listCollections(project.id);
      stats.builds += 1;
      const { document, version } = buildProjectDocument({ project, collections, publicUrl, audience });
      return { body: Buffer.from(JSON.stringify(document)), etag: `"${version}"` };
    });

  return {
    /** How many documents this process has built (tests check that requests reuse them). */
    stats,

    /** The document of the API key's project; the publishable key's names no private or protected field. */
    async forKey(ctx: RequestContext): Promise<ProjectApiDocument> {
      const { project, keyKind } = ctx.principal;
      if (!project) throw unauthorized('Missing API key', 'MISSING_API_KEY');
      return ofProject(project, keyKind === 'secret' ? 'full' : 'publishable');
    },

    /** The document of a project the dashboard caller is a member of. */
    async forMember(ctx: RequestContext, projectId: string): Promise<ProjectApiDocument> {
      return ofProject(await projects.requireAccess(ctx, projectId, 'member'), 'full');
    },
  };
}

/** Whether an `If-None-Match` header names this ETag (weak comparison, lists and `*` allowed). */
export function matchesETag(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  const bare = (tag: string) => tag.trim().replace(/^W\//, '');
  return header.split(',').some((tag) => tag.trim() === '*' || bare(tag) === etag);
}

export type ProjectApiService = ReturnType<typeof projectApiService>;
