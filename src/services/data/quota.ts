// The managed database quota (DECISIONS §5): `databaseUsed` is the BSON size of the stored
// documents; a write that would take a project over its plan's size is a 403 QUOTA_EXCEEDED, and
// every successful write moves the counter by what it really added or removed.
import { quotaExceeded } from '../../http/errors.js';
import type { ProjectsRepo } from '../../db/projects.js';
import type { PlanLimits, Project } from '../types.js';

export function databaseQuota(
  projects: ProjectsRepo,
  limitsOf: (project: Project) => Promise<PlanLimits>,
  /** A project on its own database has no managed size limit (SERVICE-SPEC, DECISIONS §7). */
  isExternal: (projectId: string) => Promise<boolean> = async () => false,
) {
  return {
    /** Throws when `addedBytes` more would exceed the project's database size. */
    async assertRoom(project: Project, addedBytes: number): Promise<void> {
      if (addedBytes <= 0 || (await isExternal(project.id))) return;
      const [{ databaseBytes }, usage] = await Promise.all([limitsOf(project), projects.usage(project.id)]);
      const used = usage.databaseUsed;
      if (used + addedBytes > databaseBytes) {
        throw quotaExceeded(
          `Database quota exceeded: the project uses ${used} of ${databaseBytes} bytes and this write needs ${addedBytes} more`,
        );
      }
    },
    /** Records what a write really changed. */
    charge: (project: Project, deltaBytes: number) => projects.addDatabaseUsed(project.id, deltaBytes),
    chargeProject: (projectId: string, deltaBytes: number) => projects.addDatabaseUsed(projectId, deltaBytes),
  };
}

export type DatabaseQuota = ReturnType<typeof databaseQuota>;
