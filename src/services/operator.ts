// What only the operator (the first account of an installation) may do: set a developer's plan
// and override a project's limits.
import { badRequest, forbidden, notFound } from '../http/errors.js';
import { isObjectId } from '../db/ids.js';
import type { DevelopersRepo } from '../db/developers.js';
import type { ProjectsRepo } from '../db/projects.js';
import { ACCESS_DENIED, requireDeveloper } from './projects.js';
import type { RequestContext } from './context.js';
import type { PlanLimits, PlanName } from './types.js';
import type { PlanTable } from '../lib/plan-table.js';

function requireOperator(ctx: RequestContext) {
  const developer = requireDeveloper(ctx);
  if (!developer.isOperator) throw forbidden('Only the operator may do this', 'OPERATOR_ONLY');
  return developer;
}

export function operatorService(developers: DevelopersRepo, projects: ProjectsRepo, plans: PlanTable) {
  return {
    async setPlan(ctx: RequestContext, developerId: string, plan: PlanName) {
      requireOperator(ctx);
      if (!isObjectId(developerId))
        throw badRequest('Invalid developer ID', undefined, 'INVALID_DEVELOPER_ID');
      if (!plans.has(plan))
        throw badRequest(
          `Unknown plan "${plan}": this installation's plans are ${plans.plans.map((p) => p.name).join(', ')}`,
          [{ path: 'plan', message: `must be one of ${plans.plans.map((p) => p.name).join(', ')}` }],
          'UNKNOWN_PLAN',
        );
      const developer = await developers.setPlan(developerId, plan);
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
  };
}
