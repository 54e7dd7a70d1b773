// Connections to projects' own MongoDB deployments (DECISIONS §7): one driver pool per project,
// at most `maxPools` open in a process (the least recently used is closed first), each closed
// after `idleMs` without use. Every socket resolves its host through the given lookup, which
// refuses restricted addresses, so a DNS record changed after the check cannot reach the internal
// network; the members a replica set reports are checked too (external-members.ts). Every
// database handed out carries the operation deadline (external-deadline.ts), and no socket waits
// longer than it for an answer. Also the one-off probe that the verification runs from each role.
import type { LookupFunction } from 'node:net';
import { MongoClient, MongoServerError, type Db } from 'mongodb';
import { checkReportedMembers, watchMembers, type MemberRule } from './external-members.js';
import { markExternal } from './external-deadline.js';

export interface ExternalTarget {
  /** A `mongodb://` URI whose hosts have passed the restricted-host check. */
  uri: string;
  database: string | undefined;
  lookup: LookupFunction;
  /** The restricted-host check of the members the servers report. */
  members: MemberRule;
  /** Called when an open pool's server reports a member that fails the check (pool closed). */
  onRefusedMember?: () => void;
}

/** A server reported a replica-set member on an address that is not allowed. */
export class RefusedMemberError extends Error {
  readonly code = 'ERESTRICTEDHOST';
  constructor() {
    super('a replica-set member is not allowed');
  }
}

export interface ExternalPoolOptions {
  maxPools: number;
  idleMs: number;
  poolSize: number;
  /** Server selection and connect timeout of pooled clients. */
  timeoutMs: number;
  /**
   * The deadline of one operation (a request's read or write): the data layer aborts it then, and
   * it is the pools' socket timeout, so that a socket read without an abort signal (a backup
   * cursor's next batch, a size scan) waits no longer either (twice with the driver's one retry).
   */
  operationTimeoutMs: number;
}

interface Pool {
  /** Which saved setting the pool was opened for; a different one replaces it. */
  fingerprint: string;
  client: Promise<{ client: MongoClient; db: Db }>;
  lastUsed: number;
}

const clientOptions = (target: ExternalTarget, timeoutMs: number, poolSize: number) => ({
  appName: 'baas',
  serverSelectionTimeoutMS: timeoutMs,
  connectTimeoutMS: timeoutMs,
  maxPoolSize: poolSize,
  lookup: target.lookup,
});

export function externalPools(options: ExternalPoolOptions) {
  const pools = new Map<string, Pool>();

  function close(projectId: string): void {
    const pool = pools.get(projectId);
    if (!pool) return;
    pools.delete(projectId);
    void pool.client.then(({ client }) => client.close()).catch(() => undefined);
  }

  const sweeper = setInterval(
    () => {
      const idleSince = Date.now() - options.idleMs;
      for (const [projectId, pool] of pools) if (pool.lastUsed < idleSince) close(projectId);
    },
    Math.min(options.idleMs, 60_000),
  );
  sweeper.unref();

  return {
    /**
     * The database of a project's pool for `fingerprint`, opening it with `open()` (which runs the
     * restricted-host check) when there is none or it was opened for another setting.
     */
    async db(projectId: string, fingerprint: string, open: () => Promise<ExternalTarget>): Promise<Db> {
      let pool = pools.get(projectId);
      if (pool && pool.fingerprint !== fingerprint) {
        close(projectId);
        pool = undefined;
      }
      if (!pool) {
        if (pools.size >= options.maxPools) {
          // Map order is insertion order and every use re-inserts: the first entry is the least recently used.
          close(pools.keys().next().value!);
        }
        const client = (async () => {
          const target = await open();
          const settings = clientOptions(target, options.timeoutMs, options.poolSize);
          // No seed reachable: the client is opened all the same, and its requests time out as before.
          const members = await checkReportedMembers(target.uri, settings, target.members);
          if (!members.pass) throw new RefusedMemberError();
          const client = new MongoClient(target.uri, {
            ...settings,
            socketTimeoutMS: options.operationTimeoutMs,
          });
          watchMembers(client, target.members, () => {
            if (pools.get(projectId) === pool) close(projectId);
            else void client.close().catch(() => undefined);
            target.onRefusedMember?.();
          });
          const db = client.db(target.database);
          markExternal(db, options.operationTimeoutMs);
          return { client, db };
        })();
        pool = { fingerprint, client, lastUsed: Date.now() };
        client.catch(() => {
          if (pools.get(projectId) === pool) pools.delete(projectId);
        });
      }
      pools.delete(projectId);
      pool.lastUsed = Date.now();
      pools.set(projectId, pool);
      return (await pool.client).db;
    },

    /** Closes the project's pool, if this process has one. */
    close,
    size: () => pools.size,

    async closeAll(): Promise<void> {
      clearInterval(sweeper);
      const open = [...pools.values()];
      pools.clear();
      await Promise.allSettled(open.map(async (pool) => (await pool.client).client.close()));
    },
  };
}

export type ExternalPools = ReturnType<typeof externalPools>;

/** How a probe ended; `network` covers refused, reset and timed-out connections. */
export type ProbeResult =
  { ok: true } | { ok: false; kind: 'restricted' | 'auth' | 'network' | 'other'; reason: string };

const AUTH_FAILED = 18;

/** Every error nested in a driver error: causes and the per-server errors of a selection failure. */
function nestedErrors(err: unknown, out: unknown[] = [], depth = 0): unknown[] {
  if (!err || typeof err !== 'object' || depth > 6 || out.includes(err)) return out;
  out.push(err);
  const e = err as { cause?: unknown; reason?: { servers?: Map<string, { error?: unknown }> } };
  nestedErrors(e.cause, out, depth + 1);
  for (const server of e.reason?.servers?.values() ?? []) nestedErrors(server.error, out, depth + 1);
  return out;
}

export function classifyProbeError(err: unknown): ProbeResult {
  const all = nestedErrors(err);
  const has = (test: (e: Record<string, unknown>) => boolean) =>
    all.some((e) => test(e as Record<string, unknown>));
  const reason = err instanceof Error ? err.message : String(err);
  if (has((e) => e.code === 'ERESTRICTEDHOST')) {
    return { ok: false, kind: 'restricted', reason: 'the host or a replica-set member is not allowed' };
  }
  if (
    has(
      (e) =>
        (e instanceof MongoServerError && e.code === AUTH_FAILED) ||
        (typeof e.name === 'string' && /Auth/.test(e.name)) ||
        (typeof e.message === 'string' && /authentication failed/i.test(e.message)),
    )
  ) {
    return { ok: false, kind: 'auth', reason };
  }
  if (has((e) => e.code === 'ENOTFOUND' || e.code === 'EAI_AGAIN'))
    return { ok: false, kind: 'other', reason };
  return { ok: false, kind: 'network', reason };
}

/**
 * Connects with a fresh client (nothing pooled), pings, and closes: the server-selection timeout
 * bounds it, and `signal` ends it early (the overall verification deadline).
 */
export async function probeDatabase(target: ExternalTarget, timeoutMs: number): Promise<ProbeResult> {
  let client: MongoClient | undefined;
  let refused = false;
  try {
    const settings = clientOptions(target, timeoutMs, 1);
    const members = await checkReportedMembers(target.uri, settings, target.members);
    if (!members.pass) throw new RefusedMemberError();
    if (members.error) throw members.error; // no seed answered: the probe would wait as long again
    client = new MongoClient(target.uri, settings);
    watchMembers(client, target.members, () => {
      refused = true;
      void client?.close().catch(() => undefined);
    });
    await client.connect();
    await client.db(target.database).command({ ping: 1 });
    if (refused) throw new RefusedMemberError();
    return { ok: true };
  } catch (err) {
    return classifyProbeError(refused ? new RefusedMemberError() : err);
  } finally {
    void client?.close().catch(() => undefined);
  }
}
