// The connection to the MongoDB deployment that holds the platform database and the managed
// project databases (`p_<projectId>`). Only src/db/ imports the driver.
import { MongoClient, type Db } from 'mongodb';
import { ensurePlatformIndexes } from './platform.js';
import { externalPools, type ExternalPoolOptions, type ExternalPools } from './external-databases.js';

const MAX_PROJECT_DBS = 10_000;

export interface Database {
  readonly client: MongoClient;
  readonly platform: Db;
  /** Platform collections whose TTL index the server lacks (FerretDB 1.x): expired records stay. */
  readonly skippedTtlIndexes: string[];
  /** The database of one project on the managed deployment. */
  project(projectId: string): Db;
  /** Pools of projects' own deployments (external database connections); closed with the rest. */
  readonly external: ExternalPools;
  ping(): Promise<void>;
  close(): Promise<void>;
}

/**
 * `timeoutMs` bounds how long an operation waits for a reachable server (server selection) and a
 * new connection: with the database down, a request fails after about that long with the 503
 * `Unavailable: database` (src/db/errors.ts), and the driver reconnects by itself once it is back.
 */
export async function connectDatabase(
  uri: string,
  platformDb: string,
  timeoutMs = 5000,
  /** `timeoutMs` here: the deadline of one operation on a project's own deployment. */
  external: Omit<ExternalPoolOptions, 'timeoutMs' | 'operationTimeoutMs'> & { timeoutMs?: number } = {
    maxPools: 200,
    idleMs: 600_000,
    poolSize: 10,
  },
): Promise<Database> {
  const client = new MongoClient(uri, {
    appName: 'baas',
    serverSelectionTimeoutMS: timeoutMs,
    connectTimeoutMS: timeoutMs,
    maxPoolSize: 50,
  });
  await client.connect();
  const platform = client.db(platformDb);
  const projectDbs = new Map<string, Db>();
  const skippedTtlIndexes = await ensurePlatformIndexes(platform);
  // The spec's 5-second server selection holds for projects' deployments whatever CONNECT_TIMEOUT_MS says.
  const pools = externalPools({
    maxPools: external.maxPools,
    idleMs: external.idleMs,
    poolSize: external.poolSize,
    timeoutMs: 5000,
    operationTimeoutMs: external.timeoutMs ?? 5000,
  });
  return {
    client,
    platform,
    skippedTtlIndexes,
    // One Db object per project, made once: client.db() resolves its options on every call.
    project: (projectId) => {
      let db = projectDbs.get(projectId);
      if (!db) {
        if (projectDbs.size >= MAX_PROJECT_DBS) projectDbs.delete(projectDbs.keys().next().value!);
        projectDbs.set(projectId, (db = client.db(`p_${projectId}`)));
      }
      return db;
    },
    external: pools,
    async ping() {
      await platform.command({ ping: 1 });
    },
    async close() {
      await Promise.allSettled([pools.closeAll(), client.close()]);
    },
  };
}
