// Project members: admins change roles and remove members; any member may leave; a project
// always keeps at least one admin. Joining goes through an invitation (./invitations.ts).
import { badRequest, conflict, forbidden, notFound } from '../http/errors.js';
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

export function membersService(projects: ProjectsRepo, developers: DevelopersRepo) {
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
     * Adds the developer using `email` at once, if there is one and it is not a member yet. Not
     * reachable over HTTP (an invitation there must be accepted by its addressee): for fixtures
     * and tools that act for the installation.
     */
    async add(project: Project, email: string, role: MemberRole): Promise<void> {
      const developer = await developers.findByEmail(normalizeEmail(email));
      if (developer && !roleOf(project, developer.id))
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
