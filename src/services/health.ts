// Health of the service: a real round trip to the document database and to the cache, each with
// a short time limit so that a dead dependency answers 503 quickly instead of hanging. The answer
// is public, so a failure is named in fixed words; the driver's message (hosts, addresses) is logged.
import { elapsedMs, TimeoutError, withTimeout } from '../lib/time.js';
import type { Logger } from '../lib/logger.js';
import type { Deps } from '../deps.js';

const CHECK_TIMEOUT_MS = 2000;

export interface DependencyCheck {
  status: 'up' | 'down';
  latencyMs: number;
  kind?: 'redis' | 'memory';
  error?: 'timeout' | 'unreachable';
}

export interface HealthReport {
  status: 'ok' | 'unavailable';
  checks: { database: DependencyCheck; cache: DependencyCheck };
  version: string;
  uptimeSeconds: number;
}

async function probe(log: Logger, name: string, run: () => Promise<void>): Promise<DependencyCheck> {
  const started = process.hrtime.bigint();
  try {
    await withTimeout(run(), CHECK_TIMEOUT_MS, `${name} check`);
    return { status: 'up', latencyMs: elapsedMs(started) };
  } catch (err) {
    log.warn({ err, dependency: name }, 'health check failed');
    const error = err instanceof TimeoutError ? 'timeout' : 'unreachable';
    return { status: 'down', latencyMs: elapsedMs(started), error };
  }
}

export function healthService(deps: Pick<Deps, 'db' | 'cache' | 'log' | 'version' | 'startedAt'>) {
  return {
    async check(): Promise<HealthReport> {
      const [database, cache] = await Promise.all([
        probe(deps.log, 'database', () => deps.db.ping()),
        probe(deps.log, 'cache', () => deps.cache.ping()),
      ]);
      cache.kind = deps.cache.kind;
      return {
        status: database.status === 'up' && cache.status === 'up' ? 'ok' : 'unavailable',
        checks: { database, cache },
        version: deps.version,
        uptimeSeconds: Math.round((Date.now() - deps.startedAt) / 1000),
      };
    },
  };
}
