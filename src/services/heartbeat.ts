// Each process of the service says, every half minute, which roles it runs: the operator's
// overview lists them with their version and when each was last seen. Off the request path: a
// timer that keeps no process alive, whose failures are only logged, stopped at shutdown.
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import type { InstancesRepo } from '../db/instances.js';
import type { Logger } from '../lib/logger.js';

/** How often a process records that it runs. */
export const HEARTBEAT_MS = 30_000;
/** A process not seen for this long is shown as gone (four heartbeats missed). */
export const GONE_AFTER_MS = 2 * 60_000;

/** This process: host, pid, and a few random bytes so a restart with the same pid (pid 1 in a container) is another. */
export const instanceId = () => `${hostname()}:${process.pid}:${randomBytes(2).toString('hex')}`;

export interface HeartbeatOptions {
  instances: Pick<InstancesRepo, 'beat'>;
  roles: readonly string[];
  version: string;
  log: Logger;
  everyMs?: number;
}

export function startHeartbeat({ instances, roles, version, log, everyMs = HEARTBEAT_MS }: HeartbeatOptions) {
  const instance = instanceId();
  const startedAt = new Date();
  let failing = false;
  const beat = async () => {
    try {
      await Promise.all(roles.map((role) => instances.beat({ role, instance, version, startedAt })));
      failing = false;
    } catch (err) {
      // Said once per outage: a database that is away shows in the health check already.
      if (!failing) log.warn({ err }, 'could not record this process in the instances seen');
      failing = true;
    }
  };
  let last = beat();
  const timer = setInterval(() => {
    last = beat();
  }, everyMs);
  timer.unref();
  return {
    instance,
    /** Stops the beats; the last one in flight finishes first (it never throws). */
    async stop() {
      clearInterval(timer);
      await last;
    },
  };
}
