// The process-wide dependencies, created once at start and closed at shutdown.
import { readFileSync } from 'node:fs';
import type { Config } from './config.js';
import type { Logger } from './lib/logger.js';
import { connectDatabase, type Database } from './db/client.js';
import { createCache, type Cache } from './cache/index.js';
import { repoPath } from './lib/paths.js';
import { checkSocketGuard } from './lib/socket-guard.js';

export interface Deps {
  readonly config: Config;
  readonly log: Logger;
  readonly db: Database;
  readonly cache: Cache;
  readonly version: string;
  readonly startedAt: number;
}

const version = (JSON.parse(readFileSync(repoPath('package.json'), 'utf8')) as { version: string }).version;

export async function createDeps(config: Config, log: Logger): Promise<Deps> {
  // The guard of external database members rests on Node internals: no start without it working.
  await checkSocketGuard();
  const db = await connectDatabase(
    config.mongodbUri,
    config.platformDb,
    config.connectTimeoutMs,
    config.externalDatabases,
  );
  if (db.skippedTtlIndexes.length) {
    log.warn(
      { collections: db.skippedTtlIndexes },
      'the database server has no TTL indexes: expired records stay until the expiry sweep removes them',
    );
  }
  const cache = await createCache(config.redisUrl, config.platformDb, {
    timeoutMs: config.connectTimeoutMs,
  }).catch(async (err) => {
    await db.close();
    throw err;
  });
  return { config, log, db, cache, version, startedAt: Date.now() };
}

export async function closeDeps(deps: Deps): Promise<void> {
  await Promise.allSettled([deps.cache.close(), deps.db.close()]);
}
