// Health of the service: a real round trip to the document database and to the cache, each with
// a short time limit so that a dead dependency answers 503 quickly instead of hanging.
import { elapsedMs, withTimeout } from '../lib/time.js';
import type { Deps } from '../deps.js';

const CHECK_TIMEOUT_MS = 2000;

export interface DependencyCheck {
  status: 'up' | 'down';
  latencyMs: number;
  kind?: 'redis' | 'memory';
  error?: string;
}

export interface HealthReport {
  status: 'ok' | 'unavailable';
  checks: { database: DependencyCheck; cache: DependencyCheck };
  version: string;
  uptimeSeconds: number;
}

async function probe(name: string, run: () => Promise<void>): Promise<DependencyCheck> {
  const started = process.hrtime.bigint();
  try {
    await withTimeout(run(), CHECK_TIMEOUT_MS, `${name} check`);
    return { status: 'up', latencyMs: elapsedMs(started) };
  } catch (err) {
    return { status: 'down', latencyMs: elapsedMs(started), error: (err as Error).message };
  }
}

export function healthService(deps: Pick<Deps, 'db' | 'cache' | 'version' | 'startedAt'>) {
  return {
    async check(): Promise<HealthReport> {
      const [database, cache] = await Promise.all([
        probe('database', () => deps.db.ping()),
        probe('cache', () => deps.cache.ping()),
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
