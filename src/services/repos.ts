// The platform repositories the services share, wrapped so that every write to a project, its
// collections or its owner's plan marks the project changed for every process's cache.
import type { Deps } from '../deps.js';
import { developersRepo } from '../db/developers.js';
import { projectsRepo } from '../db/projects.js';
import { collectionsRepo } from '../db/collections.js';
import { invalidating, type ProjectCache } from './project-cache.js';
import type { PlanTable } from '../lib/plan-table.js';

export function platformRepos(platform: Deps['db']['platform'], plans: PlanTable, cached: ProjectCache) {
  const developers = developersRepo(platform, plans);
  const repos = {
    developers: {
      ...developers,
      /** A plan change reaches the cached limits of the developer's projects in every process. */
      async setPlan(...args: Parameters<typeof developers.setPlan>) {
        const developer = await developers.setPlan(...args);
        if (developer) {
          for (const project of await repos.projects.listForDeveloper(developer.id))
            if (project.ownerId === developer.id) await cached.changed(project.id);
        }
        return developer;
      },
    },
    projects: invalidating(
      projectsRepo(platform),
      [
        'update',
        'setKey',
        'setLimits',
        'setRestoring',
        'clearRestoring',
        'addMember',
        'changeMember',
        'delete',
      ],
      cached,
    ),
    collections: invalidating(
      collectionsRepo(platform),
      ['create', 'update', 'addIndex', 'removeIndex', 'delete', 'deleteAll'],
      cached,
    ),
  };
  return repos;
}
