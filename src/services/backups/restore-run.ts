// Running one leased restore: the archive is loaded part by part into its project (a new one, or
// its own when `replace`, cleared first: ./replace.ts), recording after each part where to resume
// and the conflicts so far; documents are upserted by `_id` and records by fixed ids, so a run
// taken over after a crash gives the same result. The collections' indexes are built as soon as
// their definitions are loaded, so a row a unique index refuses is reported with its row (and
// not written); Refs to missing documents are reported once every part is loaded (./conflicts.ts).
import { Readable } from 'node:stream';
import {
  loadCollection,
  loadPlatform,
  movedFilePath,
  parseLine,
  recountSlots,
  setProjectSettings,
  type PlatformPart,
} from '../../db/backups.js';
import type { BackupJob, BackupJobsRepo } from '../../db/backup-jobs.js';
import { readArchive } from './archive-reader.js';
import { conflictLog, refTracker } from './conflicts.js';
import { clearForReplace } from './replace.js';
import type { RunDeps } from './run.js';

export interface RestoreSteps {
  /** Writes progress, resume point or conflicts, extending the lease (throws when the job was lost). */
  report(job: BackupJob, changes: Parameters<BackupJobsRepo['progress']>[2]): Promise<void>;
  finish(outcome: Parameters<BackupJobsRepo['finish']>[2]): Promise<unknown>;
}

export async function restore(deps: RunDeps, job: BackupJob, { report, finish }: RestoreSteps) {
  const target = job.projectId;
  // The archive is where the backed-up project keeps it (its own bucket, or the operator's store).
  const source = await deps.places.at(job.sourceProjectId ?? target, job.location);
  const opened = job.key ? await source?.open(job.key) : undefined;
  if (!opened) throw new Error('the backup archive is gone');
  const db = await deps.dbFor(target);
  // Set by the request that queued it too; again here, so that no client write lands while the
  // project is cleared and loaded even when that request died before marking it.
  if (job.replace) await deps.setRestoring(target, job.id);
  const progress = { done: 0, total: 0 };
  // Where a run taken over after a crash starts again (the job's copy is of when it was claimed).
  const resume = { ...job.resume };
  const conflicts = conflictLog(job.conflicts);
  const syncIndexes = async () => {
    for (const def of await deps.listDefinitions(target)) await deps.syncIndexes(target, def);
  };
  // Made at the first data part: the definitions are loaded by then (their part comes first).
  let refs: ReturnType<typeof refTracker> | undefined;
  const tracker = async () => (refs ??= refTracker(deps.refs, job.id, await deps.listDefinitions(target)));
  let index = 0;
  await readArchive(
    opened.stream,
    {
      async manifest(manifest) {
        progress.total = manifest.parts
          .filter((p) => p.name.startsWith('data/'))
          .reduce((n, p) => n + p.count, 0);
        if (job.replace && !job.resume.cleared) {
          await clearForReplace(deps, db, target, manifest);
          await deps.changed(target);
          resume.cleared = true;
          await report(job, { resume: { ...resume } });
        }
      },
      async part(part, lines) {
        const i = index++;
        const isData = part.name.startsWith('data/');
        if (i < job.resume.partsDone) {
          // Loaded by an earlier run: read through (the checksum is still checked).
          for await (const _line of lines);
          if (isData) progress.done += part.count;
          return;
        }
        const name = part.name.replace(/^(data|platform)\//, '').replace(/\.jsonl$/, '');
        if (isData) {
          const track = await tracker();
          if (name === 'users') await deps.ensureUserIndexes(target);
          await loadCollection(
            db,
            name,
            lines,
            async (n) => {
              await track.flush();
              progress.done += n;
              await report(job, { progress: { ...progress } });
            },
            {
              row: (row, doc) => track.row(name, row, doc),
              rejected: (row, field, indexName) =>
                conflicts.add({
                  collection: name,
                  row,
                  field,
                  reason: `another row has the same ${field}, which must be unique${indexName ? ` (index ${indexName})` : ''}: this row is not restored`,
                }),
            },
          );
        } else if (name === 'project') {
          for await (const line of lines)
            await setProjectSettings(deps.platform, target, parseLine(line).settings);
        } else {
          // Over its own project a record keeps its id and path; in a new one both are moved.
          const move = job.replace
            ? undefined
            : (path: string) => {
                const moved = path.replace(/^[0-9a-f]{24}\//, `${target}/`);
                return { path: moved, url: deps.archives.publicUrl(moved) ?? null };
              };
          await loadPlatform(deps.platform, name as PlatformPart, target, lines, move);
          // The unique indexes then check each row as it is written.
          if (name === 'collections') await syncIndexes();
        }
        await report(job, {
          resume: { ...resume, partsDone: i + 1 },
          progress: { ...progress },
          conflicts: conflicts.snapshot(),
        });
      },
      async file(part, bytes) {
        const i = index++;
        const moved =
          i >= job.resume.partsDone &&
          (await movedFilePath(deps.platform, target, part.name.slice(6), job.replace));
        if (!moved) {
          for await (const _chunk of bytes);
          return;
        }
        await deps.archives.putStream(moved.path, Readable.from(bytes), part.size, moved.contentType);
        await report(job, { resume: { ...resume, partsDone: i + 1 } });
      },
    },
    job.sha256 ?? undefined,
  );
  await (await tracker()).check(db, conflicts);
  await syncIndexes();
  await recountSlots(deps.platform, target);
  await deps.recountUsage(target);
  await deps.changed(target);
  if (job.replace) await deps.clearRestoring(target, job.id);
  await finish({ state: 'done', progress, conflicts: conflicts.snapshot() });
}
