// A restore over the archive's own project (the replace a developer confirmed by typing the
// project's name): before the first part is loaded, what the archive will bring back is removed
// from the project, so that what was added since the backup is gone once the restore is done.
// API keys, members, the JWT secret and the project's name are no part of it and stay; so do the
// hooks and functions when the archive has none of its own (format version 1 held none).
import type { Database } from '../../db/client.js';
import { clearData, clearPlatform, fileRecords } from '../../db/backup-replace.js';
import { PLATFORM_PARTS } from '../../db/backups.js';
import type { ArchiveStore } from '../../storage/archives.js';
import { isFilePart } from './archive-reader.js';
import type { Manifest } from './archive.js';

type Db = Database['platform'];

/**
 * Clears `projectId` for `manifest`: the bytes of its files in the operator's store that the
 * archive does not hold (the others are written again from it), its file records, collection
 * definitions, webhooks, mail templates and (a version 2 archive) functions, and its database: a collection the archive holds is
 * emptied (its indexes stay), any other dropped; the end users stay when the archive has none.
 * Bytes go first and records after, so a clear run again after a crash still finds every file.
 */
export async function clearForReplace(
  deps: { platform: Db; archives: ArchiveStore },
  db: Db,
  projectId: string,
  manifest: Manifest,
): Promise<void> {
  const archived = new Set(manifest.parts.filter((p) => isFilePart(p.name)).map((p) => p.name.slice(6)));
  for await (const file of fileRecords(deps.platform, projectId)) {
    if (file.provider === 'internal' && !archived.has(file.id)) await deps.archives.delete(file.path);
  }
  const held = (kind: string) =>
    kind !== 'functions' || manifest.parts.some((p) => p.name === `platform/${kind}.jsonl`);
  await clearPlatform(deps.platform, projectId, PLATFORM_PARTS.filter(held));
  const data = new Set(manifest.parts.map((p) => p.name.match(/^data\/(.+)\.jsonl$/)?.[1]));
  await clearData(db, (name) => {
    if (name === 'users' && !manifest.includesUsers) return 'keep';
    return data.has(name) ? 'empty' : 'drop';
  });
}
