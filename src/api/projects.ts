// Projects on the dashboard: create (keys shown once), list, get, update, delete, key rotation,
// members (invitations: ./invitations.ts), and the operator's limit overrides.
import type { operations } from '../../generated/dashboard.js';
import type { Handler } from '../http/types.js';
import type { Services } from '../services/index.js';
import type { MemberView } from '../services/members.js';
import { requireDeveloper } from '../services/projects.js';
import type { RequestContext } from '../services/context.js';
import type { Project } from '../services/types.js';
import { developerView } from './accounts.js';
import { appOrigins } from '../services/user-auth/app-origins.js';
import { createProject as createNewProject } from '../services/project-create.js';

type Ops = operations;

export function projectHandlers({ projects, collections, members, operator, plans }: Services) {
  async function view(project: Project, ctx: RequestContext) {
    const caller = ctx.principal.developer;
    const role = project.members.find((m) => m.developerId === caller?.id)?.role ?? 'member';
    const key = (k: Project['keys']['secret']) => ({ last4: k.last4, createdAt: k.createdAt.toISOString() });
    return {
      id: project.id,
      name: project.name,
      ownerId: project.ownerId,
      role,
      settings: project.settings,
      keys: { publishable: key(project.keys.publishable), secret: key(project.keys.secret) },
      limits: await projects.limitsOf(project),
      usage: project.usage,
      hasAiProviderKey: project.hasAiProviderKey,
      // An origin listed since is no longer refused.
      credentialsRefused: (project.credentialsRefused ?? [])
        .filter(({ origin }) => !appOrigins(project).has(origin))
        .map(({ origin, at }) => ({ origin, at: at.toISOString() })),
      createdAt: project.createdAt.toISOString(),
      updatedAt: project.updatedAt.toISOString(),
    };
  }
  const membersBody = (list: MemberView[], message: string) => ({
    success: true as const,
    data: { members: list.map((m) => ({ ...m, addedAt: m.addedAt.toISOString() })) },
    message,
  });

  const createProject: Handler<Ops['createProject']> = async ({ body }, ctx) => {
    const { project, keys } = await createNewProject({ projects, collections }, ctx, body);
    return {
      status: 201,
      body: { success: true, data: { project: await view(project, ctx), keys }, message: 'Project created' },
    };
  };

  const listProjects: Handler<Ops['listProjects']> = async (_input, ctx) => {
    const list = await projects.list(ctx);
    return {
      status: 200,
      body: {
        success: true,
        data: { projects: await Promise.all(list.map((p) => view(p, ctx))) },
        message: '',
      },
    };
  };

  const getProject: Handler<Ops['getProject']> = async ({ params }, ctx) => {
    const project = await projects.requireAccess(ctx, params.projectId, 'member');
    return { status: 200, body: { success: true, data: { project: await view(project, ctx) }, message: '' } };
  };

  const updateProject: Handler<Ops['updateProject']> = async ({ params, body }, ctx) => {
    const project = await projects.requireAccess(ctx, params.projectId, 'admin');
    const updated = await projects.update(project, body);
    return {
      status: 200,
      body: { success: true, data: { project: await view(updated, ctx) }, message: 'Updated' },
    };
  };

  const deleteProject: Handler<Ops['deleteProject']> = async ({ params }, ctx) => {
    await projects.delete(await projects.requireAccess(ctx, params.projectId, 'admin'));
    return { status: 200, body: { success: true, data: {}, message: 'Project deleted' } };
  };

  const rotateProjectKey: Handler<Ops['rotateProjectKey']> = async ({ params }, ctx) => {
    const project = await projects.requireAccess(ctx, params.projectId, 'admin');
    const rotated = await projects.rotateKey(project, params.kind);
    return {
      status: 200,
      body: {
        success: true,
        data: { project: await view(rotated.project, ctx), key: rotated.key },
        message: 'Key rotated',
      },
    };
  };

  const listProjectMembers: Handler<Ops['listProjectMembers']> = async ({ params }, ctx) => {
    const project = await projects.requireAccess(ctx, params.projectId, 'member');
    return { status: 200, body: membersBody(await members.view(project), '') };
  };

  const changeProjectMemberRole: Handler<Ops['changeProjectMemberRole']> = async ({ params, body }, ctx) => {
    const project = await projects.requireAccess(ctx, params.projectId, 'admin');
    return {
      status: 200,
      body: membersBody(await members.changeRole(project, params.developerId, body.role), 'Updated'),
    };
  };

  const removeProjectMember: Handler<Ops['removeProjectMember']> = async ({ params }, ctx) => {
    const project = await projects.requireAccess(ctx, params.projectId, 'member');
    const list = await members.remove(project, requireDeveloper(ctx), params.developerId);
    return { status: 200, body: membersBody(list, 'Member removed') };
  };

  const setDeveloperPlan: Handler<Ops['setDeveloperPlan']> = async ({ params, body }, ctx) => {
    const developer = await operator.setPlan(ctx, params.developerId, body.plan);
    return {
      status: 200,
      body: { success: true, data: { developer: developerView(developer, plans) }, message: 'Updated' },
    };
  };

  const setProjectLimits: Handler<Ops['setProjectLimits']> = async ({ params, body }, ctx) => {
    const project = await operator.setLimits(ctx, params.projectId, body.limits);
    return {
      status: 200,
      body: { success: true, data: { project: await view(project, ctx) }, message: 'Updated' },
    };
  };

  return {
    createProject,
    listProjects,
    getProject,
    updateProject,
    deleteProject,
    rotateProjectKey,
    listProjectMembers,
    changeProjectMemberRole,
    removeProjectMember,
    setDeveloperPlan,
    setProjectLimits,
  };
}
