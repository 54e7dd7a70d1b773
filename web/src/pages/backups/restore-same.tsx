// "Restore over this project…": the app's alert dialog says what the backup replaces and what stays,
// waits for the project's name typed exactly (like GitHub's delete), then follows the restore
// (getRestore, polled) to its conflicts. Once it has written, the project's cached pages are stale.
import { useEffect, useId, useRef, useState } from 'react';
import * as AlertDialog from '@radix-ui/react-alert-dialog';
import { ApiFailure, errorText, type Project } from '../../api';
import { useBackupActions, useProjectRefresh, useRestore, type BackupJob } from '../../data/backups';
import { JobProgress, JobState } from './job-progress';
import { RestoreConflicts } from './conflicts';

/** The refusals of the replace, in words that say what to do. */
function refusal(err: unknown): string {
  if (err instanceof ApiFailure && err.code === 'CONFIRMATION_REQUIRED')
    return 'The server did not take that as the project’s name: it may have been renamed meanwhile. Type the name shown above, read again now.';
  if (err instanceof ApiFailure && err.code === 'BACKUP_IN_PROGRESS')
    return 'A backup or restore of this project is queued or running: wait until it ends (the list follows backups), then restore.';
  return errorText(err);
}

function WhatChanges({ backup, when }: { backup: BackupJob; when: string }) {
  return (
    <div>
      <p>The project’s data becomes what it was at {when}. Replaced:</p>
      <ul>
        <li>
          its documents and collections (definitions and indexes; a collection created since is deleted);
        </li>
        <li>
          {backup.includeUsers
            ? 'its end users (with their passwords as they were then);'
            : 'not its end users: this backup leaves them out, so they are kept as they are;'}
        </li>
        <li>its webhooks and mail templates;</li>
        <li>its files (those uploaded since are deleted) and its settings.</li>
      </ul>
      <p>
        What was added since is gone; what was deleted since comes back. <strong>Stay:</strong> the API keys
        (clients work on with them), the members and the project’s name.
      </p>
      <p>
        Until the restore ends, the project’s apps are answered “The project is being restored from a backup”
        (503) and should retry later; nothing they send is written.
      </p>
    </div>
  );
}

function Following({ projectId, restoreId }: { projectId: string; restoreId: string }) {
  const restore = useRestore(projectId, restoreId);
  const refresh = useProjectRefresh(projectId);
  const job = restore.data;
  const settled = job?.state === 'done' || job?.state === 'failed';
  useEffect(() => {
    if (settled) void refresh();
  }, [settled, refresh]);
  if (restore.error)
    return (
      <div className="error" role="alert">
        {errorText(restore.error)}
      </div>
    );
  if (!job) return null;
  return (
    <div data-testid="replace-status">
      <p>
        Restore: <JobState job={job} />
      </p>
      {job.state !== 'failed' && <JobProgress job={job} label="Restore over this project" />}
      {job.state === 'failed' && (
        <p>
          The project holds what was written so far. Restoring the same backup again gives the whole of it.
        </p>
      )}
      {job.state === 'done' && <RestoreConflicts conflicts={job.conflicts} />}
      {!settled && <p className="muted">Closing this leaves the restore running in the worker.</p>}
    </div>
  );
}

export function ReplaceDialog({
  project,
  backup,
  when,
  onClose,
}: {
  project: Project;
  backup: BackupJob;
  /** When the backup was made, in words. */
  when: string;
  onClose: () => void;
}) {
  const id = useId();
  const { replace } = useBackupActions(project.id);
  const [typed, setTyped] = useState('');
  const [restoreId, setRestoreId] = useState<string | undefined>(undefined);
  const status = useRef<HTMLHeadingElement>(null);
  const ready = typed === project.name && !replace.isPending;

  useEffect(() => {
    if (restoreId) status.current?.focus();
  }, [restoreId]);

  const start = () =>
    replace.mutate(
      { backupId: backup.id, confirm: typed },
      { onSuccess: (answer) => setRestoreId(answer.restore.id) },
    );

  return (
    <AlertDialog.Root open onOpenChange={(open) => !open && !replace.isPending && onClose()}>
      <AlertDialog.Portal>
        <AlertDialog.Overlay className="dialog-overlay" />
        <AlertDialog.Content className="dialog wide">
          <AlertDialog.Title ref={status} tabIndex={-1}>
            {restoreId
              ? `Restoring the backup of ${when} over “${project.name}”`
              : `Restore the backup of ${when} over “${project.name}”?`}
          </AlertDialog.Title>
          <AlertDialog.Description asChild>
            {restoreId ? (
              <p className="muted">The project’s data is being replaced with the backup’s.</p>
            ) : (
              <WhatChanges backup={backup} when={when} />
            )}
          </AlertDialog.Description>
          {restoreId ? (
            <Following projectId={project.id} restoreId={restoreId} />
          ) : (
            <form
              onSubmit={(e) => {
                e.preventDefault();
                if (ready) start();
              }}
              noValidate
            >
              <div className="field">
                <label htmlFor={`${id}-typed`}>
                  Type <strong>{project.name}</strong> to confirm
                </label>
                <input
                  id={`${id}-typed`}
                  autoComplete="off"
                  spellCheck={false}
                  value={typed}
                  onChange={(e) => {
                    setTyped(e.target.value);
                    replace.reset();
                  }}
                />
              </div>
              {replace.error && (
                <div className="error" role="alert">
                  {refusal(replace.error)}
                </div>
              )}
              <button type="submit" className="danger" disabled={!ready}>
                {replace.isPending ? 'Checking the archive…' : 'Restore over this project'}
              </button>
            </form>
          )}
          <div className="dialog-actions">
            <AlertDialog.Cancel asChild>
              <button type="button" className="secondary" disabled={replace.isPending}>
                {restoreId ? 'Close' : 'Cancel'}
              </button>
            </AlertDialog.Cancel>
          </div>
        </AlertDialog.Content>
      </AlertDialog.Portal>
    </AlertDialog.Root>
  );
}
