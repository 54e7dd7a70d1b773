// A project's backups (admins; the project's router tells a member only admins have them): "Back up
// now" with the end users left out unless asked (as for the schedule, ./schedule-card.tsx), the
// list (polled while a backup moves) with download, delete, "Restore into a new project" and
// "Restore over this project…" (a dialog asking for the project's name).
import { useState } from 'react';
import { ApiFailure, errorText } from '../../api';
import { ErrorBox, Notice, Progress } from '../../components/ui';
import { unsettled, useBackupActions, useBackups, type BackupJob } from '../../data/backups';
import type { ProjectPageProps } from '../project-shell';
import { BackupTable } from './backup-table';
import { RestorePanel } from './restore-form';
import { ReplaceDialog } from './restore-same';
import { when } from './job-progress';
import { ScheduleCard, USERS_LEFT_OUT, USERS_WARNING } from './schedule-card';
import './backups.css';

/** The refusals of "Back up now", in words that say what to do. */
function refusal(err: unknown): string {
  if (err instanceof ApiFailure && err.code === 'PLAN_LIMIT')
    return `${err.message}. Scheduled backups do not count against it.`;
  if (err instanceof ApiFailure && err.code === 'BACKUP_IN_PROGRESS')
    return `${err.message}: wait until it is done (the list below follows it), then try again.`;
  return errorText(err);
}

/** Follows an anchor to the archive: the browser downloads it with the session (or a signed URL). */
function follow(url: string) {
  const a = document.createElement('a');
  a.href = url;
  a.download = '';
  a.rel = 'noopener';
  document.body.appendChild(a);
  a.click();
  a.remove();
}

export function BackupsPage({ project }: ProjectPageProps) {
  const list = useBackups(project.id);
  const { create, remove, download } = useBackupActions(project.id);
  // Opt-in, as for the schedule: an archive with the end users holds their password hashes.
  const [includeUsers, setIncludeUsers] = useState(false);
  const [restoring, setRestoring] = useState<BackupJob | undefined>(undefined);
  const [replacing, setReplacing] = useState<BackupJob | undefined>(undefined);
  const [notice, setNotice] = useState('');

  const backups = list.data?.backups ?? [];
  const moving = backups.some(unsettled);

  const backUp = async () => {
    setNotice('');
    remove.reset();
    download.reset();
    try {
      await create.mutateAsync(includeUsers);
      setNotice('Backup queued. The list follows its progress.');
    } catch {
      // Shown below the button, in words.
    }
  };

  return (
    <>
      <h1>Backups</h1>
      <p className="muted">
        A backup is one tar.gz archive of the project: collections and their documents (trash included),
        definitions, settings, webhooks, mail templates, file records and bytes, and the end users if you
        choose. API keys are never in it.
      </p>
      <ErrorBox error={list.error} />
      {list.isPending && <Progress label="Loading backups…" />}
      {list.data && (
        <>
          <section className="card" aria-labelledby="backup-now-heading">
            <h2 id="backup-now-heading">Back up now</h2>
            <label className="check">
              <input
                type="checkbox"
                checked={includeUsers}
                onChange={(e) => setIncludeUsers(e.target.checked)}
                aria-describedby="include-users-hint"
              />
              Include end users
            </label>
            <p id="include-users-hint" className={includeUsers ? 'warning' : 'muted'}>
              {includeUsers ? USERS_WARNING : USERS_LEFT_OUT}
            </p>
            <button type="button" onClick={() => void backUp()} disabled={create.isPending || moving}>
              {create.isPending ? 'Queueing…' : 'Back up now'}
            </button>
            {moving && <p className="muted">A backup is under way; one runs at a time.</p>}
            {create.error !== null && (
              <div className="error" role="alert">
                {refusal(create.error)}
              </div>
            )}
            {notice && <Notice>{notice}</Notice>}
          </section>

          <ScheduleCard projectId={project.id} backups={backups} totalBytes={list.data.totalBytes} />

          <section aria-labelledby="list-heading">
            <h2 id="list-heading">Backups</h2>
            <ErrorBox error={download.error ?? remove.error} />
            {download.data?.containsPasswordHashes && (
              <p className="warning" role="status">
                The downloaded archive holds the end users’ password hashes: keep it safe.
              </p>
            )}
            {remove.isSuccess && <Notice>Backup deleted.</Notice>}
            {backups.length === 0 ? (
              <p>No backups yet. “Back up now” makes the first one.</p>
            ) : (
              <BackupTable
                backups={backups}
                busy={download.isPending}
                onDownload={(job) =>
                  download.mutate(job.id, {
                    onSuccess: (answer) => follow(answer.url),
                  })
                }
                onRestore={(job) => setRestoring(job)}
                onReplace={(job) => setReplacing(job)}
                onDelete={(job) => {
                  setNotice('');
                  if (restoring?.id === job.id) setRestoring(undefined);
                  remove.mutate(job.id);
                }}
              />
            )}
          </section>

          {restoring && (
            <RestorePanel
              key={restoring.id}
              projectId={project.id}
              backup={restoring}
              label={`the backup of ${when(restoring.createdAt)}`}
              onClose={() => setRestoring(undefined)}
            />
          )}
          {replacing && (
            <ReplaceDialog
              key={replacing.id}
              project={project}
              backup={replacing}
              when={when(replacing.createdAt)}
              onClose={() => setReplacing(undefined)}
            />
          )}
        </>
      )}
    </>
  );
}
