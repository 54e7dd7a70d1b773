// The operator's area (/api/admin): the installation's overview, developer accounts and their
// invitations, every project and the mail outbox. Plans and limit overrides: ./projects.ts.
import type { operations } from '../../generated/dashboard.js';
import type { Handler } from '../http/types.js';
import type { Services } from '../services/index.js';
import { developerView } from './accounts.js';
import type { DeveloperInvitation } from '../db/developer-invitations.js';

type Ops = operations;

const iso = (d: Date | null | undefined) => (d ? d.toISOString() : null);

const invitationView = (i: DeveloperInvitation) => ({
  id: i.id,
  email: i.email,
  plan: i.plan,
  createdAt: i.createdAt.toISOString(),
  sentAt: i.sentAt.toISOString(),
  expiresAt: i.expiresAt.toISOString(),
});

export function adminHandlers({ operator, installation, plans, developerInvitations }: Services) {
  const getInstallationOverview: Handler<Ops['getInstallationOverview']> = async (_req, ctx) => {
    const { health, jobs, instances, ...rest } = await installation.overview(ctx);
    const now = Date.now();
    return {
      status: 200,
      body: {
        success: true,
        data: {
          ...rest,
          health: {
            status: health.status,
            database: health.checks.database.status,
            cache: health.checks.cache.status,
            uptimeSeconds: health.uptimeSeconds,
          },
          jobs: jobs.map(({ name, schedule, run }) => ({
            name,
            schedule,
            lastRun:
              run && run.period
                ? {
                    period: run.period,
                    startedAt: run.startedAt.toISOString(),
                    finishedAt: iso(run.finishedAt),
                    result: run.finishedAt
                      ? ('finished' as const)
                      : run.leaseUntil.getTime() > now
                        ? ('running' as const)
                        : ('unfinished' as const),
                  }
                : null,
            lastFailure: run?.lastFailure
              ? { at: run.lastFailure.at.toISOString(), error: run.lastFailure.error }
              : null,
          })),
          instances: instances.map((i) => ({
            role: i.role as 'public' | 'dashboard' | 'worker',
            instance: i.instance,
            version: i.version,
            startedAt: i.startedAt.toISOString(),
            lastSeenAt: i.lastSeenAt.toISOString(),
            gone: i.gone,
          })),
        },
        message: '',
      },
    };
  };

  const listDevelopers: Handler<Ops['listDevelopers']> = async ({ query }, ctx) => {
    const rows = await operator.listDevelopers(ctx, query.search);
    return {
      status: 200,
      body: {
        success: true,
        data: {
          developers: rows.map((row) => ({
            developer: developerView(row.developer, plans),
            projectsOwned: row.projectsOwned,
            lastSignInAt: iso(row.lastSignInAt),
          })),
        },
        message: '',
      },
    };
  };

  const setDisabled =
    (disabled: boolean): Handler<Ops['disableDeveloper']> =>
    async ({ params }, ctx) => {
      const developer = await operator.setDisabled(ctx, params.developerId, disabled);
      return {
        status: 200,
        body: {
          success: true,
          data: { developer: developerView(developer, plans) },
          message: disabled ? 'Disabled' : 'Enabled',
        },
      };
    };

  const deleteDeveloper: Handler<Ops['deleteDeveloper']> = async ({ params }, ctx) => {
    const deletedProjects = await operator.deleteDeveloper(ctx, params.developerId);
    return { status: 200, body: { success: true, data: { deletedProjects }, message: 'Deleted' } };
  };

  const inviteDeveloper: Handler<Ops['inviteDeveloper']> = async ({ body }, ctx) => {
    const invitation = await developerInvitations.invite(ctx, body.email, body.plan);
    return {
      status: 202,
      body: {
        success: true,
        data: { invitation: invitationView(invitation) },
        message: `Invitation sent to ${invitation.email}`,
      },
    };
  };

  const listDeveloperInvitations: Handler<Ops['listDeveloperInvitations']> = async (_req, ctx) => {
    const list = await developerInvitations.list(ctx);
    return {
      status: 200,
      body: { success: true, data: { invitations: list.map(invitationView) }, message: '' },
    };
  };

  const revokeDeveloperInvitation: Handler<Ops['revokeDeveloperInvitation']> = async ({ params }, ctx) => {
    await developerInvitations.revoke(ctx, params.invitationId);
    return { status: 200, body: { success: true, data: {}, message: 'Invitation revoked' } };
  };

  const listAllProjects: Handler<Ops['listAllProjects']> = async (_req, ctx) => {
    const rows = await operator.listProjects(ctx);
    return {
      status: 200,
      body: {
        success: true,
        data: {
          projects: rows.map(({ project, owner, limits, collections }) => ({
            id: project.id,
            name: project.name,
            owner: owner ? { id: owner.id, email: owner.email } : null,
            plan: owner?.plan ?? plans.defaultPlan,
            collections,
            usage: project.usage,
            limits,
            overrides: project.limits,
            createdAt: project.createdAt.toISOString(),
          })),
        },
        message: '',
      },
    };
  };

  const listOutboxMail: Handler<Ops['listOutboxMail']> = async (_req, ctx) => {
    const mails = await installation.outbox(ctx);
    return {
      status: 200,
      body: { success: true, data: { folder: installation.outboxFolder, mails }, message: '' },
    };
  };

  return {
    getInstallationOverview,
    listDevelopers,
    disableDeveloper: setDisabled(true),
    enableDeveloper: setDisabled(false),
    deleteDeveloper,
    inviteDeveloper,
    listDeveloperInvitations,
    revokeDeveloperInvitation,
    listAllProjects,
    listOutboxMail,
  };
}
