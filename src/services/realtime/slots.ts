// Who may hold a realtime stream: the project's plan cap across every process
// (realtimeConnectionsPerProject); a share of it that streams without a signed-in end user may not
// take (REALTIME_RESERVED_PERCENT), so anonymous clients cannot lock the app's own users out; a cap
// per client IP within the project, REALTIME_CONNECTIONS_PER_IP or REALTIME_IP_SHARE_PERCENT of
// the plan's cap, whichever is lower (streams of the secret key are exempt, as server code often
// runs from one address), so that a handful of addresses cannot hold them all; and a cap
// per process (REALTIME_CONNECTIONS_PER_PROCESS) that keeps one process's memory and sockets
// bounded whatever the plans add up to. The first two are leases in the shared cache renewed by
// their process (a crashed process stops counting once they expire); the last is a counter here.
import type { Cache } from '../../cache/index.js';
import { ApiError } from '../../http/errors.js';
import { clientIpKey } from '../../lib/client-ip.js';
import type { Logger } from '../../lib/logger.js';

/** A connection's lease lives this long unless renewed (a crashed process stops counting after it). */
const LEASE_TTL_MS = 90_000;

export interface SlotSettings {
  /** Streams of one project from one client IP (an IPv6 /64) at most; 0 = no such cap. */
  connectionsPerIp: number;
  /** ...and at most this share of the project's cap. */
  ipSharePercent: number;
  /** Share of the project's cap that streams without a signed-in end user may not take. */
  reservedPercent: number;
  /** Streams one process holds at most. */
  connectionsPerProcess: number;
}

export interface SlotRequest {
  projectId: string;
  /** The plan's cap of the project. */
  limit: number;
  /** The client's address; undefined for a stream of the secret key. */
  ip: string | undefined;
  /** A publishable-key stream without a signed-in end user. */
  anonymous: boolean;
}

const projectSet = (projectId: string) => `rtc:{${projectId}}`;
const clientSet = (projectId: string, ip: string) => `rtc:{${projectId}}:ip:${clientIpKey(ip)}`;
const anonymousSet = (projectId: string) => `rtc:{${projectId}}:anonymous`;

const tooMany = (code: string, message: string) =>
  new ApiError(429, code, message, undefined, { 'Retry-After': '30' });

export function realtimeSlots(cache: Cache, settings: SlotSettings, log: Logger) {
  let held = 0;
  /** Lease sets this process holds members of, with those members (renewed together). */
  const mine = new Map<string, Set<string>>();
  const add = (set: string, id: string) => {
    let ids = mine.get(set);
    if (!ids) mine.set(set, (ids = new Set()));
    ids.add(id);
  };
  const drop = (set: string, id: string) => {
    const ids = mine.get(set);
    ids?.delete(id);
    if (ids?.size === 0) mine.delete(set);
    cache.leases.release(set, id).catch(() => undefined);
  };
  const renew = setInterval(() => {
    for (const [set, ids] of mine) {
      cache.leases
        .renew(set, [...ids], LEASE_TTL_MS)
        .catch((err: unknown) => log.warn({ err }, 'realtime: renewing connection leases failed'));
    }
  }, LEASE_TTL_MS / 3);
  renew.unref();

  return {
    /**
     * Takes a slot for connection `id` under every cap, or throws the refusal of the first one
     * reached (nothing is held then). Returns the release, to call once when the stream ends.
     */
    async admit(request: SlotRequest, id: string): Promise<() => void> {
      if (held >= settings.connectionsPerProcess) {
        throw new ApiError(
          503,
          'REALTIME_SERVER_FULL',
          `This server holds its maximum of ${settings.connectionsPerProcess} realtime connections; retry shortly`,
          undefined,
          { 'Retry-After': '5' },
        );
      }
      held++;
      const taken: string[] = [];
      try {
        const project = projectSet(request.projectId);
        if (!(await cache.leases.acquire(project, id, request.limit, LEASE_TTL_MS))) {
          throw tooMany(
            'REALTIME_CONNECTION_LIMIT',
            `The project has reached its limit of ${request.limit} concurrent realtime connections`,
          );
        }
        taken.push(project);
        const reserved = Math.floor((request.limit * settings.reservedPercent) / 100);
        if (request.anonymous && reserved > 0) {
          const anonymous = anonymousSet(request.projectId);
          const share = request.limit - reserved;
          if (!(await cache.leases.acquire(anonymous, id, share, LEASE_TTL_MS))) {
            throw tooMany(
              'REALTIME_ANONYMOUS_LIMIT',
              `Streams without a signed-in user have reached their share of ${share} of the project's ${request.limit} realtime connections; the rest are kept for signed-in users`,
            );
          }
          taken.push(anonymous);
        }
        if (request.ip !== undefined && settings.connectionsPerIp > 0) {
          const client = clientSet(request.projectId, request.ip);
          const relative = Math.max(1, Math.floor((request.limit * settings.ipSharePercent) / 100));
          const perIp = Math.min(settings.connectionsPerIp, relative);
          if (!(await cache.leases.acquire(client, id, perIp, LEASE_TTL_MS))) {
            throw tooMany(
              'REALTIME_CLIENT_LIMIT',
              `This client address has reached its limit of ${perIp} concurrent realtime connections to the project`,
            );
          }
          taken.push(client);
        }
      } catch (err) {
        held--;
        for (const set of taken) cache.leases.release(set, id).catch(() => undefined);
        throw err;
      }
      for (const set of taken) add(set, id);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        held--;
        for (const set of taken) drop(set, id);
      };
    },

    /** Streams this process holds. */
    held: () => held,

    close(): void {
      clearInterval(renew);
    },
  };
}
