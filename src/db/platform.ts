// The platform database: its collections and their indexes, created once at start (idempotent).
import { MongoServerError, type Db, type Collection, type Document, type IndexDescription } from 'mongodb';

const INDEXES: Record<string, IndexDescription[]> = {
  developers: [{ key: { email: 1 }, name: 'u_email', unique: true }],
  sessions: [
    { key: { developerId: 1 }, name: 'developerId' },
    { key: { expiresAt: 1 }, name: 'ttl_expiresAt', expireAfterSeconds: 0 },
  ],
  projects: [
    { key: { 'keys.publishable.hash': 1 }, name: 'u_publishable_key', unique: true },
    { key: { 'keys.secret.hash': 1 }, name: 'u_secret_key', unique: true },
    { key: { 'members.developerId': 1 }, name: 'members' },
    { key: { ownerId: 1 }, name: 'ownerId' },
  ],
  collections: [{ key: { projectId: 1, name: 1 }, name: 'u_project_name', unique: true }],
};

/** Resources register the indexes of their own platform collections here before start. */
export function registerPlatformIndexes(collection: string, indexes: IndexDescription[]): void {
  INDEXES[collection] = [...(INDEXES[collection] ?? []), ...indexes];
}

// The server's answer to an index option it does not support.
const NOT_IMPLEMENTED = 238;

// One index per command, once per process start: a few more round trips than one command per
// collection, but FerretDB 1.x drops the connection when one command re-creates several
// existing indexes, and MongoDB answers both forms the same.
/** Creates the indexes; returns the collections whose TTL index the server could not create. */
export async function ensurePlatformIndexes(db: Db): Promise<string[]> {
  const skippedTtl: string[] = [];
  for (const [name, indexes] of Object.entries(INDEXES)) {
    for (const index of indexes) {
      try {
        await db.collection(name).createIndexes([index]);
      } catch (err) {
        // TTL indexes only reclaim space: every read of an expiring document checks its
        // expiresAt itself. A MongoDB-compatible server without them (FerretDB 1.x) keeps expired
        // documents instead of refusing to start; MongoDB itself never takes this branch.
        const ttl = index.expireAfterSeconds !== undefined;
        if (!ttl || !(err instanceof MongoServerError && err.code === NOT_IMPLEMENTED)) throw err;
        skippedTtl.push(name);
      }
    }
  }
  return skippedTtl;
}

export const platformCollection = <T extends Document>(db: Db, name: string): Collection<T> =>
  db.collection<T>(name);
