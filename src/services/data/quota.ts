// The managed database quota (DECISIONS §5): `databaseUsed` is the BSON size of the stored
// documents; a write that would take a project over its plan's size is a 403 QUOTA_EXCEEDED, and
// every successful write moves the counter by what it really added or removed. A write that grows
// the database reserves its bytes before it is made, with one conditional update that is both the
// check and the charge (exact under concurrency, one round trip); a failed write gives them back.
//
// Leases: while a project has several writes under way in this process, or writes one after
// another (10 writes a second or more), one conditional update reserves a chunk (~1 s, a lease's
// length, of its recent rate, at most 1/16 of the room left and 1 MiB) and the writes that fit in
// it are admitted here, without a platform round trip; those arriving while a chunk is being
// fetched wait for it. The chunk's unused rest and the writes' corrections go back in one `$inc` when the lease
// ends (1 s after it opened), when the project is idle here (100 ms) and on shutdown (`stop`).
// An occasional write, or little room left, is the exact per-write reservation above. Readers of
// `databaseUsed` in this process settle first (`settle`); another process's open lease may show
// in the counter for up to about a second. A crash loses at most one lease: its unused chunk stays
// counted and its owed corrections are lost until the daily recount (jobs/usage-recount.ts).
import { ApiError, quotaExceeded } from '../../http/errors.js';
import type { ProjectsRepo } from '../../db/projects.js';
import type { PlanLimits, Project } from '../types.js';
import {
  LEASE_DEFAULTS,
  chunkSize,
  isOpen,
  newLease,
  type LeaseSettings,
  type ProjectLease,
} from './quota-lease.js';

type QuotaProjects = Pick<ProjectsRepo, 'reserveDatabaseBytes' | 'addDatabaseUsed' | 'usage'>;

/** What a write reserved, and whether it came from a lease (its correction may then wait). */
interface Ticket {
  reserved: number;
  leased: boolean;
}

export function databaseQuota(
  projects: QuotaProjects,
  limitsOf: (project: Project) => Promise<PlanLimits>,
  /** A project on its own database has no managed size limit (SERVICE-SPEC, DECISIONS §7). */
  isExternal: (projectId: string) => Promise<boolean> = async () => false,
  settings: LeaseSettings = LEASE_DEFAULTS,
) {
  const leases = new Map<string, ProjectLease>();
  let stopping = false;

  const refused = async (project: Project, limit: number, addedBytes: number) => {
    const used = (await projects.usage(project.id)).databaseUsed;
    return quotaExceeded(
      `Database quota exceeded: the project uses ${used} of ${limit} bytes and this write needs ${addedBytes} more`,
    );
  };

  async function reserveExactly(id: string, lease: ProjectLease, bytes: number, limit: number) {
    const after = await projects.reserveDatabaseBytes(id, bytes, limit);
    if (after !== undefined) lease.room = limit - after;
    return after !== undefined;
  }

  /** Closes the lease: its unused bytes and its writes' corrections go back in one `$inc`. */
  async function giveBack(id: string, lease: ProjectLease): Promise<void> {
    clearTimeout(lease.timer);
    lease.timer = undefined;
    lease.openUntil = 0;
    const delta = lease.owed - lease.held;
    lease.owed = 0;
    lease.held = 0;
    if (delta === 0) return;
    try {
      await projects.addDatabaseUsed(id, delta);
    } catch (err) {
      // Kept for the next settle: losing it would leave the counter wrong until the recount.
      lease.owed += delta;
      throw err;
    }
  }

  /** Runs `step` as the project's one platform call of the lease; later ones wait for it. */
  function serially(lease: ProjectLease, step: () => Promise<void>): Promise<void> {
    // The callback runs once `step` settles, after `tracked` is set below.
    const run = step().finally(() => {
      if (lease.busy === tracked) lease.busy = undefined;
    });
    const tracked = run.catch(() => undefined);
    lease.busy = tracked;
    return run;
  }

  async function settle(projectId: string): Promise<void> {
    const lease = leases.get(projectId);
    if (!lease) return;
    while (lease.busy) await lease.busy;
    if (lease.held !== 0 || lease.owed !== 0 || lease.openUntil !== 0)
      await serially(lease, () => giveBack(projectId, lease));
    forget(projectId, lease);
  }

  /**
   * Drops the project's entry once nothing is under way, held or owed and it has not written here
   * for `keepMs`; until then the entry stays, with its recent rate, so that one write after
   * another can be charged per chunk.
   */
  function forget(projectId: string, lease: ProjectLease): void {
    if (lease.inflight !== 0 || lease.busy || lease.openUntil !== 0 || lease.owed !== 0) return;
    if (stopping || Date.now() - lease.lastActive >= settings.keepMs) {
      if (leases.get(projectId) === lease) leases.delete(projectId);
      clearTimeout(lease.timer);
      lease.timer = undefined;
    } else if (!lease.timer) watch(projectId, lease);
  }

  /** Ends the lease at its end or when the project is idle here; checks every `idleMs`. */
  function watch(id: string, lease: ProjectLease): void {
    lease.timer = setTimeout(() => {
      lease.timer = undefined;
      const now = Date.now();
      const idle = lease.inflight === 0 && now - lease.lastActive >= settings.idleMs;
      if (lease.openUntil !== 0 && !idle && isOpen(lease, now)) return watch(id, lease);
      if (lease.openUntil === 0 && lease.held === 0 && lease.owed === 0) return forget(id, lease);
      settle(id).catch(() => {
        // The bytes stay owed; the next settle (another write's lease, a reader, stop) retries.
        if (!lease.timer && lease.owed !== 0) watch(id, lease);
      });
    }, settings.idleMs);
    lease.timer.unref();
  }

  /** Reserves `need` bytes for one write: from the open lease, a new chunk, or exactly. */
  async function admit(project: Project, lease: ProjectLease, need: number, limit: number): Promise<Ticket> {
    const id = project.id;
    // Shutting down: the exact reservation, nothing held here.
    if (stopping) {
      if (!(await reserveExactly(id, lease, need, limit))) throw await refused(project, limit, need);
      return { reserved: need, leased: false };
    }
    // Counted for one write at a time too: a project writing one after another, fast enough that
    // a chunk holds two writes or more, is charged per chunk like concurrent writes (chunkSize).
    lease.asked.add(need, Date.now());
    for (;;) {
      const now = Date.now();
      if (isOpen(lease, now) && lease.held >= need) {
        lease.held -= need;
        return { reserved: need, leased: true };
      }
      if (lease.busy) {
        await lease.busy;
        continue;
      }
      const chunk = chunkSize(lease, need, now, settings);
      if (chunk >= need) {
        let got = false;
        await serially(lease, async () => {
          if (!(await reserveExactly(id, lease, chunk, limit))) {
            lease.room = 0; // Too little left for a chunk: exact reservations from now on.
            return;
          }
          got = true;
          lease.held += chunk - need;
          if (!isOpen(lease, Date.now())) {
            lease.openUntil = Date.now() + settings.leaseMs;
            if (!lease.timer) watch(id, lease);
          }
        });
        if (got) return { reserved: need, leased: true };
        continue;
      }
      // Little room left: exact, as for a lone write. What this process holds goes back first
      // (and again before a refusal), so that the limit is met at the same byte as without leases.
      for (let attempt = 0; ; attempt++) {
        if (lease.held !== 0 || lease.owed !== 0) await serially(lease, () => giveBack(id, lease));
        if (await reserveExactly(id, lease, need, limit)) return { reserved: need, leased: false };
        if (attempt > 0 || (lease.held === 0 && lease.owed === 0)) throw await refused(project, limit, need);
      }
    }
  }

  /** Records a write's correction: with the lease's give-back while one is open, else now. */
  function correct(projectId: string, lease: ProjectLease, ticket: Ticket, delta: number) {
    if (delta === 0) return undefined;
    if (ticket.leased && isOpen(lease, Date.now()) && !stopping) {
      lease.owed += delta;
      return undefined;
    }
    return projects.addDatabaseUsed(projectId, delta);
  }

  /**
   * Charges the bytes a write is about to add (403 when they do not fit) and runs it; then
   * charges the difference to what it really changed (`actual` of its result), or gives the
   * reservation back when it fails.
   */
  async function within<T>(
    project: Project,
    addedBytes: number,
    write: () => Promise<T>,
    actual: (result: T) => number,
  ): Promise<T> {
    const [external, limits] = await Promise.all([
      isExternal(project.id),
      addedBytes > 0 ? limitsOf(project) : undefined,
    ]);
    if (external) return write();
    let lease = leases.get(project.id);
    if (!lease) leases.set(project.id, (lease = newLease(Date.now())));
    lease.inflight += 1;
    lease.lastActive = Date.now();
    try {
      let ticket: Ticket = { reserved: 0, leased: isOpen(lease, Date.now()) };
      if (limits) ticket = await admit(project, lease, addedBytes, limits.databaseBytes);
      let result: T;
      try {
        result = await write();
      } catch (err) {
        if (ticket.reserved) await correct(project.id, lease, ticket, -ticket.reserved);
        throw err;
      }
      const charging = correct(project.id, lease, ticket, actual(result) - ticket.reserved);
      if (charging) await charging;
      return result;
    } finally {
      lease.inflight -= 1;
      lease.lastActive = Date.now();
      forget(project.id, lease);
    }
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
    within,
    /**
     * Records what a write that cannot be refused for its size really changed (a move to the trash
     * adds its marker, a restore takes it off, a bulk of both): bytes given back wait for the
     * project's next give-back in this process (the counter reads high meanwhile, which refuses
     * nothing that would fit); bytes added come from a lease like any write's, and are charged as
     * they are when the limit refuses them (such a write was never refused for its size).
     */
    async charge(project: Project, deltaBytes: number): Promise<void> {
      if (deltaBytes === 0) return;
      if (deltaBytes > 0) {
        try {
          await within(
            project,
            deltaBytes,
            async () => undefined,
            () => deltaBytes,
          );
        } catch (err) {
          if (!(err instanceof ApiError && err.code === 'QUOTA_EXCEEDED')) throw err;
          await projects.addDatabaseUsed(project.id, deltaBytes);
        }
        return;
      }
      if (stopping || (await isExternal(project.id))) return projects.addDatabaseUsed(project.id, deltaBytes);
      let lease = leases.get(project.id);
      if (!lease) leases.set(project.id, (lease = newLease(Date.now())));
      lease.owed += deltaBytes;
      lease.lastActive = Date.now();
      if (!lease.timer) watch(project.id, lease);
    },
    chargeProject: (projectId: string, deltaBytes: number) => projects.addDatabaseUsed(projectId, deltaBytes),
    /**
     * Whether a write of the project starting now would reserve from a lease (others under way
     * here, or a lease open): a reservation larger than the write needs then costs nothing.
     */
    leasing(projectId: string): boolean {
      const lease = leases.get(projectId);
      return !!lease && !stopping && (lease.inflight > 0 || isOpen(lease, Date.now()));
    },
    /** Gives back what this process holds for the project, so that its counter reads exact. */
    settle,
    /** Bytes this process holds reserved for the project and no write has taken (tests). */
    held: (projectId: string) => leases.get(projectId)?.held ?? 0,
    /** At shutdown: no new leases, and every open one gives its unused bytes back. */
    async stop(): Promise<void> {
      stopping = true;
      await Promise.all([...leases.keys()].map((id) => settle(id)));
    },
  };
}

export type DatabaseQuota = ReturnType<typeof databaseQuota>;
