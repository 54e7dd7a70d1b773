// Project members: admins invite existing developers by email (the answer does not tell whether
// an account uses the address, nor whether it is a member already; invitations per inviting
// developer and hour are limited, since the member list still shows who was added), change roles
// and remove members; any member may leave; a project always keeps at least one admin.
import { badRequest, conflict, forbidden, notFound, tooManyRequests } from '../http/errors.js';
import type { Cache } from '../cache/index.js';
import { isObjectId } from '../db/ids.js';
import type { DevelopersRepo } from '../db/developers.js';
import type { ProjectsRepo } from '../db/projects.js';
import { normalizeEmail } from './accounts.js';
import type { Developer, MemberRole, Project } from './types.js';

export interface MemberView {
  developerId: string;
  email: string;
  name: string | null;
  role: MemberRole;
  addedAt: Date;
}

function checkDeveloperId(developerId: string): void {
  if (!isObjectId(developerId)) {
    throw badRequest(
      'Invalid developer ID',
      [{ path: 'params.developerId', message: 'must be 24 hexadecimal characters' }],
      'INVALID_DEVELOPER_ID',
    );
  }
}

/** Invitations one developer may send per hour, over all their projects. */
export const INVITES_PER_HOUR = 20;
const HOUR_SECONDS = 3600;

export function membersService(
  projects: ProjectsRepo,
  developers: DevelopersRepo,
  cache?: Pick<Cache, 'incr'>,
) {
  async function view(project: Project): Promise<MemberView[]> {
    const people = new Map(
      (await developers.findByIds(project.members.map((m) => m.developerId))).map((d) => [d.id, d]),
    );
    return project.members.map((m) => ({
      developerId: m.developerId,
      email: people.get(m.developerId)?.email ?? '',
      name: people.get(m.developerId)?.name ?? null,
      role: m.role,
      addedAt: m.addedAt,
    }));
  }

  const roleOf = (project: Project, developerId: string) =>
    project.members.find((m) => m.developerId === developerId)?.role;

  /** Why a change failed: the member is gone (404) or it would remove the last admin (409). */
  function refused(project: Project, developerId: string): never {
    if (!roleOf(project, developerId)) throw notFound('Member not found', 'MEMBER_NOT_FOUND');
    throw conflict('A project must keep at least one admin', 'LAST_ADMIN');
  }

  return {
    view,

    /**
     * Adds the developer using `email`, if there is one and it is not a member yet (a member keeps
     * their role). The caller gets the same answer in every case, so inviting cannot be used to
     * find out which addresses have an account. `inviterId`: whose invitations are counted.
     */
    async add(project: Project, email: string, role: MemberRole, inviterId?: string): Promise<void> {
      if (cache && inviterId) {
        const sent = await cache.incr(`invites:dev:${inviterId}`, HOUR_SECONDS);
        if (sent > INVITES_PER_HOUR) {
          throw tooManyRequests(
            HOUR_SECONDS,
            `At most ${INVITES_PER_HOUR} invitations an hour; try again later`,
          );
        }
      }
      const developer = await developers.findByEmail(normalizeEmail(email));
      if (!developer || roleOf(project, developer.id)) return;
      // Null when the developer became a member meanwhile: the same answer.
      await projects.addMember(project.id, developer.id, role);
    },

    async changeRole(project: Project, developerId: string, role: MemberRole): Promise<MemberView[]> {
      checkDeveloperId(developerId);
      const updated = await projects.changeMember(project.id, developerId, role);
      return updated ? view(updated) : refused(project, developerId);
    },

    /** Admins remove anyone; a member may only remove themselves (leave). */
    async remove(project: Project, caller: Developer, developerId: string): Promise<MemberView[]> {
      checkDeveloperId(developerId);
      if (roleOf(project, caller.id) !== 'admin' && caller.id !== developerId) {
        throw forbidden('Only admins may remove other members', 'ADMIN_ONLY');
      }
      const updated = await projects.changeMember(project.id, developerId, null);
      return updated ? view(updated) : refused(project, developerId);
    },
  };
}

export type MembersService = ReturnType<typeof membersService>;
