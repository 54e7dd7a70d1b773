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
  engine: EngineInfo;
  version: string;
  uptimeSeconds: number;
}

/** Which document database this is, and what the embedded one is for (docs/scale.md). */
export interface EngineInfo {
  embedded: boolean;
  note?: string;
}

/** Collections past this many documents make the embedded engine slow (measured: bench/SCALE.md). */
export const EMBEDDED_WARN_DOCUMENTS = 10_000;

export const EMBEDDED_ENGINE_NOTE =
  'The embedded database (mongo-java-server) is for development and small data: it scans ' +
  'collections, so lists slow down past about 10,000 documents per collection. Set MONGODB_URI ' +
  'to a MongoDB replica set for production (docs/scale.md).';

export const engineInfo = (embedded: boolean): EngineInfo =>
  embedded ? { embedded, note: EMBEDDED_ENGINE_NOTE } : { embedded };

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

export function healthService(deps: Pick<Deps, 'db' | 'cache' | 'log' | 'version' | 'startedAt' | 'config'>) {
  const engine = engineInfo(deps.config.embeddedDatabase);
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
        engine,
        version: deps.version,
        uptimeSeconds: Math.round((Date.now() - deps.startedAt) / 1000),
      };
    },
  };
}
