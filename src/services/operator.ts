// What only the operator (the first account of an installation) may do: list, move, disable and
// delete developer accounts, list every project, and override a project's limits.
import { badRequest, forbidden, notFound } from '../http/errors.js';
import { isObjectId } from '../db/ids.js';
import type { DevelopersRepo } from '../db/developers.js';
import type { ProjectsRepo } from '../db/projects.js';
import { ACCESS_DENIED, requireDeveloper } from './projects.js';
import type { ProjectsService } from './projects.js';
import type { RequestContext } from './context.js';
import type { PlanLimits, PlanName } from './types.js';
import type { PlanTable } from '../lib/plan-table.js';

/** Rows the operator's lists show at most (an installation past it narrows with the search). */
export const OPERATOR_LIST_LIMIT = 500;

export function requireOperator(ctx: RequestContext) {
  const developer = requireDeveloper(ctx);
  if (!developer.isOperator)
    throw forbidden('Only the operator of this installation may do this', 'OPERATOR_ONLY');
  return developer;
}

export interface OperatorDeps {
  developers: DevelopersRepo;
  projects: ProjectsRepo;
  projectsService: Pick<ProjectsService, 'delete' | 'limitsOf'>;
  collectionsCount: (projectId: string) => Promise<number>;
  plans: PlanTable;
}

export function operatorService({
  developers,
  projects,
  projectsService,
  collectionsCount,
  plans,
}: OperatorDeps) {
  const developerId = (id: string) => {
    if (!isObjectId(id)) throw badRequest('Invalid developer ID', undefined, 'INVALID_DEVELOPER_ID');
    return id;
  };
  /** The target of a change to an account: never the operator's own. */
  async function otherDeveloper(id: string) {
    const developer = await developers.findById(developerId(id));
    if (!developer) throw notFound('Developer not found', 'DEVELOPER_NOT_FOUND');
    if (developer.isOperator)
      throw badRequest(
        "The operator's own account cannot be disabled or deleted: it runs the installation",
        undefined,
        'OPERATOR_ACCOUNT',
      );
    return developer;
  }

  return {
    async setPlan(ctx: RequestContext, id: string, plan: PlanName) {
      requireOperator(ctx);
      developerId(id);
      if (!plans.has(plan))
        throw badRequest(
          `Unknown plan "${plan}": this installation's plans are ${plans.plans.map((p) => p.name).join(', ')}`,
          [{ path: 'plan', message: `must be one of ${plans.plans.map((p) => p.name).join(', ')}` }],
          'UNKNOWN_PLAN',
        );
      const developer = await developers.setPlan(id, plan);
      if (!developer) throw notFound('Developer not found', 'DEVELOPER_NOT_FOUND');
      return developer;
    },

    async setLimits(ctx: RequestContext, projectId: string, limits: Partial<PlanLimits>) {
      requireOperator(ctx);
      if (!isObjectId(projectId)) throw badRequest('Invalid project ID', undefined, 'INVALID_PROJECT_ID');
      const project = await projects.setLimits(projectId, limits);
      if (!project) throw notFound(ACCESS_DENIED, 'PROJECT_NOT_FOUND');
      return project;
    },

    /** Accounts (newest first) with how many projects each owns and when it last signed in. */
    async listDevelopers(ctx: RequestContext, search: string | undefined) {
      requireOperator(ctx);
      const rows = await developers.list(search?.trim() || undefined, OPERATOR_LIST_LIMIT);
      const owned = await projects.countByOwners(rows.map((r) => r.developer.id));
      return rows.map((row) => ({ ...row, projectsOwned: owned.get(row.developer.id) ?? 0 }));
    },

    async setDisabled(ctx: RequestContext, id: string, disabled: boolean) {
      requireOperator(ctx);
      await otherDeveloper(id);
      const developer = await developers.setDisabled(id, disabled);
      if (!developer) throw notFound('Developer not found', 'DEVELOPER_NOT_FOUND');
      return developer;
    },

    /**
     * Deletes an account: the projects it owns (with their data, files and backups), its
     * memberships of other projects and its sessions. Returns the names of the deleted projects.
     */
    async deleteDeveloper(ctx: RequestContext, id: string): Promise<string[]> {
      requireOperator(ctx);
      await otherDeveloper(id);
      const owned = (await projects.listForDeveloper(id)).filter((p) => p.ownerId === id);
      for (const project of owned) await projectsService.delete(project);
      await projects.removeMemberEverywhere(id);
      if (!(await developers.delete(id))) throw notFound('Developer not found', 'DEVELOPER_NOT_FOUND');
      return owned.map((p) => p.name);
    },

    /** Every project with its owner, what it uses and the limits in force (overrides named). */
    async listProjects(ctx: RequestContext) {
      requireOperator(ctx);
      const all = await projects.listAll(OPERATOR_LIST_LIMIT);
      const owners = new Map(
        (await developers.findByIds([...new Set(all.map((p) => p.ownerId))])).map((d) => [d.id, d]),
      );
      return Promise.all(
        all.map(async (project) => ({
          project,
          owner: owners.get(project.ownerId),
          limits: await projectsService.limitsOf(project),
          collections: await collectionsCount(project.id),
        })),
      );
    },
  };
}

export type OperatorService = ReturnType<typeof operatorService>;
