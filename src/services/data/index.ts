// The data API service (`/api/data/:collectionName...`): reads, writes and aggregations of the
// documents of registered collections, built once from its repositories.
import type { DocumentsRepo } from '../../db/documents.js';
import type { ProjectsRepo } from '../../db/projects.js';
import type { EventBus } from '../events.js';
import type { PlanLimits, Project } from '../types.js';
import type { DefinitionLookup } from './access.js';
import { databaseQuota, type DatabaseQuota } from './quota.js';
import { documentReads } from './reads.js';
import { documentWrites } from './writes.js';
import { bulkTrash } from './bulk-trash.js';
import type { SlowQueryRecorder } from '../slow-queries.js';
import { writeHooks, type WriteHooks } from './write-hooks.js';

export interface DataServiceDeps {
  documents: DocumentsRepo;
  projects: ProjectsRepo;
  /** The collection definition of a project by name (the collections service's lookup). */
  definitions: DefinitionLookup;
  limitsOf: (project: Project) => Promise<PlanLimits>;
  /** Whether the project uses its own database (no managed quota then). */
  isExternal?: (projectId: string) => Promise<boolean>;
  events: EventBus;
  /** The process's one quota (its leases are per process); a new one when not given. */
  quota?: DatabaseQuota;
  /** Where lists slower than its threshold are recorded (none: no timing kept). */
  slowQueries?: SlowQueryRecorder;
  /** Whether a project's data is on the embedded engine (its regex backtracks; none: never). */
  onEmbedded?: (projectId: string) => Promise<boolean>;
  /** The collections' before-hooks (docs/functions.md); none: writes run no hooks. */
  hooks?: WriteHooks;
}

export function dataService(deps: DataServiceDeps) {
  const quota = deps.quota ?? databaseQuota(deps.projects, deps.limitsOf, deps.isExternal);
  const hooks = writeHooks(deps.hooks);
  return {
    ...documentReads(deps.documents, deps.definitions, deps.slowQueries, deps.onEmbedded),
    ...documentWrites(deps.documents, deps.definitions, quota, deps.events, hooks),
    ...bulkTrash(deps.documents, deps.definitions, quota, deps.events, hooks),
  };
}

export type DataService = ReturnType<typeof dataService>;
