// "Restore into a new project": the new project's name (checked in the browser with the API's
// schema for restoreBackup), then the new project's keys shown once, the restore's progress
// (polled until it settles), its conflicts and the functions it left disabled once done, and a
// link to the new project.
import { useEffect, useRef, useState } from 'react';
import { useForm } from 'react-hook-form';
import { ErrorBox, Field, Link } from '../../components/ui';
import { KeysOnce } from '../../components/keys';
import { apiResolver, FormMessage, showFailure } from '../../forms/form';
import { useBackupActions, useRestore, type BackupJob } from '../../data/backups';
import { JobProgress, JobState } from './job-progress';
import { RestoreConflicts } from './conflicts';

interface Started {
  projectId: string;
  projectName: string;
  restoreId: string;
  keys: { publishable: string; secret: string };
}

function RestoreStatus({ started }: { started: Started }) {
  const restore = useRestore(started.projectId, started.restoreId);
  const base = `/projects/${started.projectId}`;
  return (
    <>
      <h3>Restoring into “{started.projectName}”</h3>
      <KeysOnce publishable={started.keys.publishable} secret={started.keys.secret} />
      <ErrorBox error={restore.error} />
      {restore.data && (
        <div data-testid="restore-status">
          <p>
            Restore: <JobState job={restore.data} />
          </p>
          {restore.data.state !== 'failed' && (
            <JobProgress job={restore.data} label={`Restore into ${started.projectName}`} />
          )}
          {restore.data.state === 'failed' && (
            <p>The new project holds what was written so far: delete it and restore again.</p>
          )}
          {restore.data.state === 'done' && (restore.data.conflicts?.total ?? 0) > 0 && (
            <RestoreConflicts conflicts={restore.data.conflicts} />
          )}
          {restore.data.state === 'done' && (restore.data.disabledFunctions?.length ?? 0) > 0 && (
            <p className="warning" data-testid="restore-disabled-functions">
              Restored disabled (their secrets’ values are not copied):{' '}
              {restore.data.disabledFunctions!.map((f) => f.name).join(', ')}.{' '}
              <Link to={`${base}/functions`}>Enable them on the Functions page</Link>.
            </p>
          )}
        </div>
      )}
      <p>
        <Link to={base}>Open “{started.projectName}”</Link>
        {restore.data?.state === 'done' && (
          <>
            {' '}
            · <Link to={`${base}/collections`}>its collections</Link>
          </>
        )}
      </p>
    </>
  );
}

export function RestorePanel({
  projectId,
  backup,
  label,
  onClose,
}: {
  projectId: string;
  backup: BackupJob;
  /** The backup in words ("the backup of 26 Nov 2026, 08:01:02"). */
  label: string;
  onClose: () => void;
}) {
  const { restore } = useBackupActions(projectId);
  const [started, setStarted] = useState<Started | undefined>(undefined);
  const heading = useRef<HTMLHeadingElement>(null);
  const form = useForm<{ name: string }>({
    defaultValues: { name: '' },
    // Checked as typed, so a name of spaces is named as such; sent trimmed.
    resolver: apiResolver<{ name: string }>('restoreBackup'),
  });
  const { errors, isSubmitting } = form.formState;
  // Opened from a row far above: move the reader here.
  useEffect(() => heading.current?.focus(), [backup.id]);

  const submit = form.handleSubmit(async ({ name }) => {
    try {
      const answer = await restore.mutateAsync({ backupId: backup.id, name: name.trim() });
      // A restore into a new project always answers with its keys (only one over the same has none).
      if (!answer.keys) throw new Error('The restore started, but its new project’s keys were not sent.');
      setStarted({
        projectId: answer.project.id,
        projectName: answer.project.name,
        restoreId: answer.restore.id,
        keys: answer.keys,
      });
    } catch (err) {
      showFailure(form, err, ['name']);
    }
  });

  return (
    <section className="card" aria-labelledby="restore-heading">
      <h2 id="restore-heading" ref={heading} tabIndex={-1}>
        Restore {label} into a new project
      </h2>
      {started ? (
        <RestoreStatus started={started} />
      ) : (
        <>
          <p className="muted">
            A new project of yours is created with new API keys and the archive’s collections, documents (same
            ids), end users (they sign in with their old passwords), webhooks, mail templates and files. This
            project is not changed.
          </p>
          <form onSubmit={submit} onChange={() => form.clearErrors('root')} className="inline" noValidate>
            <Field
              label="New project name"
              autoComplete="off"
              {...form.register('name')}
              error={errors.name?.message}
            />
            <button type="submit" disabled={isSubmitting}>
              {isSubmitting ? 'Checking the archive…' : 'Restore'}
            </button>
          </form>
          <FormMessage errors={errors} />
        </>
      )}
      <button type="button" className="secondary" onClick={onClose}>
        {started ? 'Close' : 'Cancel'}
      </button>
    </section>
  );
}
