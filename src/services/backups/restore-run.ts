// Running one leased restore. The archive is copied once from where it is kept (perhaps the
// project's own bucket, which could serve other bytes on a second read) to a local file, checked
// against the backup's size and SHA-256, then read twice from that copy: a pass that checks every
// record and writes nothing (./restore-check.ts), and the pass that loads it into its project (a
// new one, or its own when `replace`, cleared first: ./replace.ts). Each platform record is written
// by the repository of its kind, under the target project's id; data parts go to the project's
// own database. After each part the resume point and the conflicts so far are recorded; documents
// are upserted by `_id` and records by fixed ids, so a run taken over after a crash gives the same
// result. Indexes are built as soon as their definitions are loaded, so a row a unique index
// refuses is reported with its row (not written); Refs to missing documents once every part is
// loaded (./conflicts.ts).
import { createReadStream } from 'node:fs';
import { Readable } from 'node:stream';
import {
  idsTakenElsewhere,
  loadCollection,
  movedId,
  recountSlots,
  restoredFilePath,
} from '../../db/backups.js';
import type { BackupJob, BackupJobsRepo } from '../../db/backup-jobs.js';
import { collectionsRepo } from '../../db/collections.js';
import { filesRepo } from '../../db/files.js';
import { functionsRepo } from '../../db/functions.js';
import { mailTemplatesRepo } from '../../db/mail-templates.js';
import { projectsRepo } from '../../db/projects.js';
import { HEALTHY, webhooksRepo } from '../../db/webhooks.js';
import { generateSecret } from '../webhooks/signing.js';
import { readArchive } from './archive-reader.js';
import { conflictLog, refTracker } from './conflicts.js';
import { copyVerified } from './local-copy.js';
import { clearForReplace } from './replace.js';
import { checkedRecords, recordKindOf, verifyForRestore, type CheckedRecord } from './restore-check.js';
import type { RunDeps } from './run.js';

/** What a webhook restored into a new project says until its developer enables it again. */
export const RESTORED_WEBHOOK_REASON =
  'Disabled after restore: this copy signs with a new secret (rotate it to see one) and sends nothing until it is enabled';

/** What a function restored into a new project says until its developer enables it again. */
export const RESTORED_FUNCTION_REASON =
  'Disabled after restore: its secrets’ values were not copied (set them again) and an HTTP hook signs with a new secret; it runs once it is enabled';

export interface RestoreSteps {
  /** Writes progress, resume point or conflicts, extending the lease (throws when the job was lost). */
  report(job: BackupJob, changes: Parameters<BackupJobsRepo['progress']>[2]): Promise<void>;
  finish(outcome: Parameters<BackupJobsRepo['finish']>[2]): Promise<unknown>;
}

export async function restore(deps: RunDeps, job: BackupJob, steps: RestoreSteps) {
  const source = job.sourceProjectId ?? job.projectId;
  const expected = await recorded(deps, job);
  // The archive is where the backed-up project keeps it (its own bucket, or the operator's store).
  const store = await deps.places.at(source, job.location);
  const opened = job.key ? await store?.open(job.key) : undefined;
  if (!opened) throw new Error('the backup archive is gone');
  const copy = await copyVerified(opened.stream, expected, deps.copyTimeoutMs);
  try {
    const rules = { sourceProjectId: source, indexesPerCollection: Number.MAX_SAFE_INTEGER };
    await verifyForRestore(createReadStream(copy.file), {
      sha256: expected.sha256,
      rules,
      // Ids are kept over the archive's own project: none may be another project's.
      takenElsewhere: job.replace
        ? (kind, ids) =>
            kind === 'project'
              ? Promise.resolve(0)
              : idsTakenElsewhere(deps.platform, kind, job.projectId, ids)
        : undefined,
    });
    await load(deps, job, steps, createReadStream(copy.file), rules);
  } finally {
    await copy.cleanup();
  }
}

/** The size and SHA-256 the backup recorded (jobs queued before restores recorded its size: the backup's). */
async function recorded(deps: RunDeps, job: BackupJob) {
  const backup =
    job.size === null && job.sourceBackupId
      ? await deps.jobs.get(job.sourceProjectId ?? job.projectId, job.sourceBackupId)
      : undefined;
  const size = job.size ?? backup?.size ?? null;
  if (size === null || !job.sha256) throw new Error('the restore has no recorded archive size and checksum');
  return { size, sha256: job.sha256 };
}

async function load(
  deps: RunDeps,
  job: BackupJob,
  { report, finish }: RestoreSteps,
  archive: Readable,
  rules: Parameters<typeof checkedRecords>[2],
) {
  const target = job.projectId;
  const db = await deps.dbFor(target);
  // The functions brought back disabled so far (a run taken over goes on from the job's list).
  const disabled = [...(job.disabledFunctions ?? [])];
  const write = recordWriter(deps, job, (fn) => {
    if (!disabled.some((d) => d.id === fn.id)) disabled.push(fn);
  });
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
    archive,
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
        if (isData) {
          const name = part.name.replace(/^data\//, '').replace(/\.jsonl$/, '');
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
        } else {
          const kind = recordKindOf(part.name);
          for await (const record of checkedRecords(kind, lines, rules)) await write(record);
          // The unique indexes then check each row as it is written.
          if (kind === 'collections') await syncIndexes();
        }
        await report(job, {
          resume: { ...resume, partsDone: i + 1 },
          progress: { ...progress },
          conflicts: conflicts.snapshot(),
          disabledFunctions: [...disabled],
        });
      },
      async file(part, bytes) {
        const i = index++;
        const id = part.name.slice(6);
        const moved =
          i >= job.resume.partsDone &&
          (await restoredFilePath(deps.platform, target, job.replace ? id : movedId(target, id)));
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
  await finish({ state: 'done', progress, conflicts: conflicts.snapshot(), disabledFunctions: disabled });
}

/**
 * Writes one checked record with the repository of its kind, always into the job's project. Over
 * its own project a record keeps its id (none is another project's: checked before) and its path;
 * into a new project ids are moved (movedId), file paths put under it, webhooks disabled with a
 * new secret, so that a copy does not sign events to the receivers of the project it came from,
 * and functions disabled with their secrets' values dropped (sealed values are not carried over
 * into another project) and a new signing secret: `disabled` is told of each one that was enabled.
 */
function recordWriter(deps: RunDeps, job: BackupJob, disabled: (fn: { id: string; name: string }) => void) {
  const target = job.projectId;
  const repos = {
    projects: projectsRepo(deps.platform),
    collections: collectionsRepo(deps.platform),
    webhooks: webhooksRepo(deps.platform),
    templates: mailTemplatesRepo(deps.platform),
    files: filesRepo(deps.platform),
    functions: functionsRepo(deps.platform),
  };
  const idOf = (id: string) => (job.replace ? id : movedId(target, id));
  return async (record: CheckedRecord): Promise<void> => {
    switch (record.kind) {
      case 'project':
        await repos.projects.update(target, { settings: record.settings });
        return;
      case 'collections':
        await repos.collections.restore(target, idOf(record.id), record.input, record.dates);
        return;
      case 'mail_templates':
        await repos.templates.restore(target, idOf(record.id), record.name, record.fields, record.dates);
        return;
      case 'webhooks': {
        const fresh = !job.replace;
        await repos.webhooks.restore(target, idOf(record.id), {
          ...record.fields,
          ...HEALTHY,
          ...record.dates,
          enabled: fresh ? false : record.fields.enabled,
          secretEnc: fresh ? deps.newWebhookSecret() : record.secretEnc,
          pausedAt: fresh ? new Date() : null,
          pausedReason: fresh ? RESTORED_WEBHOOK_REASON : null,
        });
        return;
      }
      case 'functions': {
        const id = idOf(record.id);
        const fn = record.fields;
        if (job.replace) {
          await repos.functions.restore(target, id, { ...fn, ...record.dates }, record.slot(id));
          return;
        }
        const empty = deps.sealFunctionValue('');
        await repos.functions.restore(
          target,
          id,
          {
            ...fn,
            ...record.dates,
            enabled: false,
            disabledReason: fn.enabled ? RESTORED_FUNCTION_REASON : fn.disabledReason,
            envEnc: Object.fromEntries(Object.keys(fn.envEnc).map((name) => [name, empty])),
            signingSecretEnc: fn.signingSecretEnc && deps.sealFunctionValue(generateSecret()),
          },
          record.slot(id),
        );
        if (fn.enabled) disabled({ id, name: fn.name });
        return;
      }
      case 'files': {
        const file = record.record;
        // Into a new project only the files of the operator's store come (their bytes are here).
        if (!job.replace && file.provider !== 'internal') return;
        const path = job.replace ? file.path : `${target}/${file.path.slice(file.path.indexOf('/') + 1)}`;
        const url = file.provider === 'internal' ? (deps.archives.publicUrl(path) ?? null) : file.url;
        await repos.files.restoreConfirmed(target, idOf(record.id), { ...file, path, uploadKey: path, url });
      }
    }
  };
}
