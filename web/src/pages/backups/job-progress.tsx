// A backup's or restore's state in words and its progress as a real bar (documents done of total),
// read out politely as it moves.
import type { BackupJob } from '../../data/backups';

/** When a job was made, to the second (two backups a minute apart are told apart). */
export const when = (iso: string) =>
  new Date(iso).toLocaleString('en-GB', { dateStyle: 'medium', timeStyle: 'medium' });

const STATE: Record<BackupJob['state'], string> = {
  queued: 'Queued',
  running: 'Running',
  done: 'Done',
  failed: 'Failed',
};

export function JobState({ job }: { job: BackupJob }) {
  return (
    <span data-testid="job-state" data-state={job.state}>
      {STATE[job.state]}
      {job.state === 'failed' && job.error ? `: ${job.error}` : ''}
    </span>
  );
}

/** The bar: indeterminate while queued or before the total is known, then done of total. */
export function JobProgress({ job, label }: { job: BackupJob; label: string }) {
  const { done, total } = job.progress;
  const known = job.state !== 'queued' && total > 0;
  const words =
    job.state === 'queued'
      ? 'Waiting for the worker'
      : known
        ? `${done.toLocaleString('en')} of ${total.toLocaleString('en')} documents`
        : job.state === 'running'
          ? 'Counting the documents'
          : 'No documents';
  return (
    <div className="job-progress">
      {known ? (
        <progress max={total} value={Math.min(done, total)} aria-label={label} />
      ) : (
        <progress aria-label={label} />
      )}
      <small aria-live="polite">{words}</small>
    </div>
  );
}
