// The invocation log, newest first: status, when, duration, version, error (with the stack mapped
// to the source lines for hosted code) and the log lines, paged by 20. Bodies are never stored.
import { useState } from 'react';
import { useInvocations, type HostedFunction } from '../../data/functions';
import { ErrorBox } from '../../components/ui';
import { LogLines } from './test-panel';
import { errorWords } from './words';

const STATUS: Record<string, string> = {
  ok: 'OK',
  error: 'Error',
  refused: 'Refused',
  timeout: 'Timed out',
  memory: 'Out of memory',
  crashed: 'Crashed',
};

export function Invocations({ fn, projectId }: { fn: HostedFunction; projectId: string }) {
  const [page, setPage] = useState(1);
  const log = useInvocations(projectId, fn.id, page);
  const items = log.data?.invocations ?? [];

  return (
    <section className="card" aria-labelledby="fn-invocations">
      <h2 id="fn-invocations">Invocation log</h2>
      <p className="muted">
        Every run, newest first; kept for the plan’s log retention. Test runs are not logged.
      </p>
      <ErrorBox error={log.error} />
      {log.data && items.length === 0 && <p>No invocations yet.</p>}
      {items.length > 0 && (
        // Focusable, as its errors' excerpts, so a keyboard scrolls them when nothing in them takes focus.
        <div className="table-wrap" tabIndex={0} role="region" aria-label="Invocations table">
          <table>
            <caption className="sr-only">Invocations</caption>
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Status</th>
                <th scope="col">Duration</th>
                <th scope="col">Version</th>
                <th scope="col">Error and log</th>
              </tr>
            </thead>
            <tbody>
              {items.map((inv) => (
                <tr key={inv.id}>
                  <th scope="row">{new Date(inv.at).toLocaleString()}</th>
                  <td>{STATUS[inv.status] ?? inv.status}</td>
                  <td>{inv.durationMs} ms</td>
                  <td>v{inv.version}</td>
                  <td>
                    {inv.error && (
                      <pre className="excerpt" tabIndex={0}>
                        {errorWords(inv.error)}
                      </pre>
                    )}
                    {inv.logs.length > 0 ? (
                      <details>
                        <summary>
                          {inv.logs.length} log line{inv.logs.length === 1 ? '' : 's'}
                        </summary>
                        <LogLines logs={inv.logs} />
                      </details>
                    ) : (
                      !inv.error && <span className="muted">—</span>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {(page > 1 || log.data?.pagination.hasMore) && (
        <div className="row">
          <button type="button" className="secondary" disabled={page === 1} onClick={() => setPage(page - 1)}>
            Newer
          </button>
          <button
            type="button"
            className="secondary"
            disabled={!log.data?.pagination.hasMore}
            onClick={() => setPage(page + 1)}
          >
            Older
          </button>
        </div>
      )}
    </section>
  );
}
