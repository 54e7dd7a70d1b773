// Running one leased backup or restore job. A backup streams every part into the archive and
// stores it; a restore loads the archive part by part into its (new) project, recording after
// each part where to resume, and upserts by `_id`, so a run taken over after a crash gives the
// same result. Progress (documents done of total) is written as it goes, extending the lease.
import type { Database } from '../../db/client.js';
import {
  countDocuments,
  dataCollections,
  dumpCollection,
  dumpPlatform,
  formatLine,
  internalFiles,
  loadCollection,
  movedFilePath,
  loadPlatform,
  parseLine,
  PLATFORM_PARTS,
  projectSettings,
  recountSlots,
  setProjectSettings,
  type PlatformPart,
} from '../../db/backups.js';
import type { BackupJob, BackupJobsRepo } from '../../db/backup-jobs.js';
import { archiveKey, type ArchiveStore } from '../../storage/archives.js';
import type { CollectionDef } from '../types.js';
import { writeArchive, type PartSource } from './archive.js';
import { readArchive } from './archive-reader.js';
import { clearForReplace } from './replace.js';
import { Readable } from 'node:stream';

const PROGRESS_EVERY = 500;
type Db = Database['platform'];

export interface RunDeps {
  jobs: BackupJobsRepo;
  archives: ArchiveStore;
  platform: Db;
  dbFor(projectId: string): Promise<Db>;
  listDefinitions(projectId: string): Promise<CollectionDef[]>;
  syncIndexes(projectId: string, def: CollectionDef): Promise<void>;
  recountUsage(projectId: string): Promise<void>;
  /** Keeps the newest backups of the project's plan; older ones are deleted. */
  applyRetention(projectId: string): Promise<void>;
  /** Tells every process that the project's definitions and settings changed (their caches). */
  changed(projectId: string): Promise<void>;
}

export interface RunOptions {
  owner: string;
  leaseMs: number;
  now: () => Date;
  /** The job runner's seam: told after each batch of progress (tests stop the worker there). */
  onProgress?: (job: BackupJob, done: number) => Promise<void>;
}

export function jobRunner(deps: RunDeps, opts: RunOptions) {
  const lease = () => new Date(opts.now().getTime() + opts.leaseMs);
  const report = async (job: BackupJob, changes: Parameters<BackupJobsRepo['progress']>[2]) => {
    if (!(await deps.jobs.progress(job.id, opts.owner, changes, lease()))) {
      throw new Error(`backup job ${job.id} was taken over by another worker`);
    }
    if (changes.progress) await opts.onProgress?.(job, changes.progress.done);
  };

  async function backup(job: BackupJob): Promise<void> {
    const db = await deps.dbFor(job.projectId);
    const collections = (await dataCollections(db)).filter((name) => job.includeUsers || name !== 'users');
    let total = 0;
    for (const name of collections) total += await countDocuments(db, name);
    const progress = { done: 0, total };
    await report(job, { progress });
    const about = await projectSettings(deps.platform, job.projectId);
    if (!about) throw new Error('the project no longer exists');
    async function* parts(): AsyncGenerator<PartSource> {
      yield {
        name: 'platform/project.jsonl',
        lines: (async function* () {
          yield formatLine({ name: about!.name, settings: about!.settings });
        })(),
      };
      for (const part of PLATFORM_PARTS) {
        yield { name: `platform/${part}.jsonl`, lines: dumpPlatform(deps.platform, part, job.projectId) };
      }
      for (const name of collections) yield { name: `data/${name}.jsonl`, lines: dumpCollection(db, name) };
      for await (const file of internalFiles(deps.platform, job.projectId)) {
        yield { name: `files/${file.id}`, bytes: async () => (await deps.archives.open(file.path))?.stream };
      }
    }
    let partName = '';
    const archive = await writeArchive(
      {
        project: { id: job.projectId, name: about.name },
        createdAt: opts.now().toISOString(),
        includesUsers: job.includeUsers,
      },
      (async function* () {
        for await (const part of parts()) {
          partName = part.name;
          yield part;
        }
      })(),
      async () => {
        if (!partName.startsWith('data/')) return;
        progress.done += 1;
        if (progress.done % PROGRESS_EVERY === 0) await report(job, { progress: { ...progress } });
      },
    );
    try {
      const key = archiveKey(job.projectId, job.id);
      await deps.archives.put(key, archive.file, archive.size);
      const counts = Object.fromEntries(archive.manifest.parts.map((p) => [p.name, p.count]));
      await deps.jobs.finish(job.id, opts.owner, {
        state: 'done',
        key,
        size: archive.size,
        sha256: archive.sha256,
        counts,
        progress: { done: progress.done, total: progress.done },
      });
    } finally {
      await archive.cleanup();
    }
    await deps.applyRetention(job.projectId);
  }

  async function restore(job: BackupJob): Promise<void> {
    const target = job.projectId;
    const opened = job.key ? await deps.archives.open(job.key) : undefined;
    if (!opened) throw new Error('the backup archive is gone');
    const db = await deps.dbFor(target);
    const progress = { done: 0, total: 0 };
    // Where a run taken over after a crash starts again (the job's copy is of when it was claimed).
    const resume = { ...job.resume };
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
            await loadCollection(db, name, lines, async (n) => {
              progress.done += n;
              await report(job, { progress: { ...progress } });
            });
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
          }
          await report(job, { resume: { ...resume, partsDone: i + 1 }, progress: { ...progress } });
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
    for (const def of await deps.listDefinitions(target)) await deps.syncIndexes(target, def);
    await recountSlots(deps.platform, target);
    await deps.recountUsage(target);
    await deps.changed(target);
    await deps.jobs.finish(job.id, opts.owner, { state: 'done', progress });
  }

  /** Runs one leased job to its end; a failure is recorded on the job (the archive is kept clean). */
  return async function run(job: BackupJob): Promise<void> {
    // Packing and storing the archive write no progress: the lease is also kept alive by a beat.
    const beat = setInterval(() => {
      deps.jobs.progress(job.id, opts.owner, {}, lease()).catch(() => undefined);
    }, opts.leaseMs / 3);
    try {
      await (job.kind === 'backup' ? backup(job) : restore(job));
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      await deps.jobs.finish(job.id, opts.owner, { state: 'failed', error: message });
      throw err;
    } finally {
      clearInterval(beat);
    }
  };
}
