// The backups list, newest first as the API gives it: when, state and progress, size, checksum,
// what it holds (documents per collection, end users or not), and the actions on each one
// (download and restore, into a new project or over this one, when done; delete, after a
// confirmation, unless it is running).
import { formatBytes } from '../../api';
import { Confirm } from '../../components/confirm';
import { CopyButton } from '../../components/ui';
import type { BackupJob } from '../../data/backups';
import { JobProgress, JobState, when } from './job-progress';

/** Documents per collection (the `data/<name>.jsonl` parts), and the other parts apart. */
function contents(counts: BackupJob['counts']) {
  const parts = Object.entries(counts ?? {});
  const data = parts
    .filter(([part]) => part.startsWith('data/'))
    .map(([part, n]) => [part.slice('data/'.length).replace(/\.jsonl$/, ''), n] as const);
  const documents = data.reduce((sum, [, n]) => sum + n, 0);
  return { parts, data, documents };
}

function Contents({ job }: { job: BackupJob }) {
  if (!job.counts) return <span className="muted">—</span>;
  const { parts, data, documents } = contents(job.counts);
  return (
    <details>
      <summary>
        {documents.toLocaleString('en')} document{documents === 1 ? '' : 's'} in {data.length} collection
        {data.length === 1 ? '' : 's'}
      </summary>
      <ul className="plain">
        {parts.map(([part, n]) => (
          <li key={part}>
            <code>{part}</code>: {n.toLocaleString('en')}
          </li>
        ))}
      </ul>
    </details>
  );
}

function Checksum({ sha256 }: { sha256: string | null }) {
  if (!sha256) return <span className="muted">—</span>;
  return (
    <span className="checksum">
      <code title={sha256} aria-label={`SHA-256 ${sha256}`}>
        {sha256.slice(0, 12)}…
      </code>
      <CopyButton text={sha256} label="Copy SHA-256" />
    </span>
  );
}

export function BackupTable({
  backups,
  busy,
  onDownload,
  onRestore,
  onReplace,
  onDelete,
}: {
  backups: BackupJob[];
  busy: boolean;
  onDownload: (job: BackupJob) => void;
  onRestore: (job: BackupJob) => void;
  onReplace: (job: BackupJob) => void;
  onDelete: (job: BackupJob) => void;
}) {
  return (
    <div className="table-wrap" tabIndex={0} role="region" aria-label="Backups table">
      <table className="backups-table">
        <caption className="sr-only">Backups, newest first</caption>
        <thead>
          <tr>
            <th scope="col">Created</th>
            <th scope="col">State</th>
            <th scope="col">Progress</th>
            <th scope="col">Size</th>
            <th scope="col">SHA-256</th>
            <th scope="col">Contents</th>
            <th scope="col">End users</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {backups.map((job) => {
            const created = when(job.createdAt);
            return (
              <tr key={job.id} data-testid="backup-row" data-backup-id={job.id}>
                <th scope="row">
                  <time dateTime={job.createdAt}>{created}</time>
                  <div className="muted">{job.trigger === 'schedule' ? 'Scheduled' : 'On request'}</div>
                </th>
                <td>
                  <JobState job={job} />
                </td>
                <td>
                  {job.state === 'done' || job.state === 'failed' ? (
                    <span className="muted">{job.progress.done.toLocaleString('en')} documents</span>
                  ) : (
                    <JobProgress job={job} label={`Backup of ${created}`} />
                  )}
                </td>
                <td data-testid="backup-size">{formatBytes(job.size)}</td>
                <td>
                  <Checksum sha256={job.sha256} />
                </td>
                <td>
                  <Contents job={job} />
                </td>
                <td>{job.includeUsers ? 'Included, with password hashes' : 'Left out'}</td>
                <td className="actions">
                  {job.state === 'done' && (
                    <>
                      <button type="button" disabled={busy} onClick={() => onDownload(job)}>
                        Download
                      </button>
                      <button type="button" className="secondary" onClick={() => onRestore(job)}>
                        Restore into a new project
                      </button>
                      <button type="button" className="secondary danger" onClick={() => onReplace(job)}>
                        Restore over this project…
                      </button>
                    </>
                  )}
                  {job.state !== 'running' && (
                    <Confirm
                      trigger={
                        <button
                          type="button"
                          className="secondary danger"
                          aria-label={`Delete the backup of ${created}`}
                        >
                          Delete
                        </button>
                      }
                      title={`Delete the backup of ${created}?`}
                      action="Delete backup"
                      onConfirm={() => onDelete(job)}
                    >
                      <p>
                        {job.state === 'queued'
                          ? 'The queued backup is cancelled.'
                          : 'Its archive is deleted from the store; it cannot be downloaded or restored again.'}
                      </p>
                    </Confirm>
                  )}
                </td>
              </tr>
            );
          })}
        </tbody>
      </table>
    </div>
  );
}
