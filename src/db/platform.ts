// The platform database: its collections and their indexes, created once at start (idempotent).
import type { Db, Collection, Document, IndexDescription } from 'mongodb';

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

export async function ensurePlatformIndexes(db: Db): Promise<void> {
  for (const [name, indexes] of Object.entries(INDEXES)) {
    if (indexes.length) await db.collection(name).createIndexes(indexes);
  }
}

export const platformCollection = <T extends Document>(db: Db, name: string): Collection<T> =>
  db.collection<T>(name);
