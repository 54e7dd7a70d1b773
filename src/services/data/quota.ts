// The managed database quota (DECISIONS §5): `databaseUsed` is the BSON size of the stored
// documents; a write that would take a project over its plan's size is a 403 QUOTA_EXCEEDED, and
// every successful write moves the counter by what it really added or removed. A write that grows
// the database reserves its bytes before it is made, with one conditional update that is both the
// check and the charge (exact under concurrency, one round trip); a failed write gives them back.
import { quotaExceeded } from '../../http/errors.js';
import type { ProjectsRepo } from '../../db/projects.js';
import type { PlanLimits, Project } from '../types.js';

export function databaseQuota(
  projects: ProjectsRepo,
  limitsOf: (project: Project) => Promise<PlanLimits>,
  /** A project on its own database has no managed size limit (SERVICE-SPEC, DECISIONS §7). */
  isExternal: (projectId: string) => Promise<boolean> = async () => false,
) {
  async function reserve(project: Project, addedBytes: number): Promise<number> {
    if (addedBytes <= 0 || (await isExternal(project.id))) return 0;
    const { databaseBytes } = await limitsOf(project);
    if (await projects.reserveDatabaseBytes(project.id, addedBytes, databaseBytes)) return addedBytes;
    const used = (await projects.usage(project.id)).databaseUsed;
    throw quotaExceeded(
      `Database quota exceeded: the project uses ${used} of ${databaseBytes} bytes and this write needs ${addedBytes} more`,
    );
  }

  return {
    /** Throws when `addedBytes` more would exceed the project's database size (nothing charged). */
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
    /**
     * Charges the bytes a write is about to add (403 when they do not fit) and runs it; then
     * charges the difference to what it really changed (`actual` of its result), or gives the
     * reservation back when it fails.
     */
    async within<T>(
      project: Project,
      addedBytes: number,
      write: () => Promise<T>,
      actual: (result: T) => number,
    ): Promise<T> {
      const reserved = await reserve(project, addedBytes);
      let result: T;
      try {
        result = await write();
      } catch (err) {
        if (reserved) await projects.addDatabaseUsed(project.id, -reserved);
        throw err;
      }
      await projects.addDatabaseUsed(project.id, actual(result) - reserved);
      return result;
    },
    /** Records what a write really changed. */
    charge: (project: Project, deltaBytes: number) => projects.addDatabaseUsed(project.id, deltaBytes),
    chargeProject: (projectId: string, deltaBytes: number) => projects.addDatabaseUsed(projectId, deltaBytes),
  };
}

export type DatabaseQuota = ReturnType<typeof databaseQuota>;
