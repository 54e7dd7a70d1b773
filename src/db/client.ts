// The connection to the MongoDB deployment that holds the platform database and the managed
// project databases (`p_<projectId>`). Only src/db/ imports the driver.
import { MongoClient, type Db } from 'mongodb';
import { ensurePlatformIndexes } from './platform.js';

const MAX_PROJECT_DBS = 10_000;

export interface Database {
  readonly client: MongoClient;
  readonly platform: Db;
  /** Platform collections whose TTL index the server lacks (FerretDB 1.x): expired records stay. */
  readonly skippedTtlIndexes: string[];
  /** The database of one project on the managed deployment. */
  project(projectId: string): Db;
  ping(): Promise<void>;
  close(): Promise<void>;
}

/**
 * `timeoutMs` bounds how long an operation waits for a reachable server (server selection) and a
 * new connection: with the database down, a request fails after about that long with the 503
 * `Unavailable: database` (src/db/errors.ts), and the driver reconnects by itself once it is back.
 */
export async function connectDatabase(uri: string, platformDb: string, timeoutMs = 5000): Promise<Database> {
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
    async ping() {
      await platform.command({ ping: 1 });
    },
    close: () => client.close(),
  };
}
