// The project's recent public API requests (time, method, path, status, duration, key kind, end
// user), newest first, filtered by status class and path prefix; the filters live in the URL.
import { useState, type FormEvent } from 'react';
import { ErrorBox, Progress } from '../components/ui';
import { DataQueryProvider } from '../data/query-client';
import { useRequestLog, type StatusClass } from '../data/request-log';
import { useSearch } from './data/url-state';
import type { ProjectPageProps } from './project-shell';
import './request-log.css';

const CLASSES: StatusClass[] = ['2xx', '3xx', '4xx', '5xx'];

export function RequestLogPage(props: ProjectPageProps) {
  return (
    <DataQueryProvider>
      <RequestLog {...props} />
    </DataQueryProvider>
  );
}

function RequestLog({ project }: ProjectPageProps) {
  const [search, setSearch] = useSearch();
  const params = new URLSearchParams(search);
  const statusParam = params.get('status');
  const status = CLASSES.find((c) => c === statusParam);
  const path = params.get('path') ?? '';
  const log = useRequestLog(project.id, status, path);
  const [draftPath, setDraftPath] = useState(path);
  const [draftKey, setDraftKey] = useState(search);
  if (draftKey !== search) {
    // Back or Forward changed the filters: the form shows them.
    setDraftKey(search);
    setDraftPath(path);
  }
  const apply = (next: { status?: string; path?: string }) => {
    const q = new URLSearchParams();
    const s = next.status ?? status ?? '';
    const p = next.path ?? path;
    if (s) q.set('status', s);
    if (p) q.set('path', p);
    const text = q.toString();
    setSearch(text ? `?${text}` : '');
  };
  const submit = (e: FormEvent) => {
    e.preventDefault();
    apply({ path: draftPath.trim() });
  };
  const entries = log.data?.pages.flatMap((p) => p.entries) ?? [];
  const enabled = log.data?.pages[0]?.enabled ?? true;
  const filtered = !!status || !!path;

  return (
    <>
      <div className="heading-row">
        <h1>Request log</h1>
        <button
          type="button"
          className="secondary"
          onClick={() => void log.refetch()}
          disabled={log.isFetching}
        >
          {log.isFetching && !log.isFetchingNextPage ? 'Refreshing…' : 'Refresh'}
        </button>
      </div>
      <p className="muted">
        Recent requests to the public API with this project’s keys, newest first: the last 10,000 and at most
        7 days. They appear a second or two after the request.
      </p>
      <form className="filters card row" onSubmit={submit} aria-label="Request log filters">
        <label htmlFor="rl-status">Status</label>
        <select id="rl-status" value={status ?? ''} onChange={(e) => apply({ status: e.target.value })}>
          <option value="">any</option>
          {CLASSES.map((c) => (
            <option key={c} value={c}>
              {c}
            </option>
          ))}
        </select>
        <label htmlFor="rl-path">Path starts with</label>
        <input
          id="rl-path"
          value={draftPath}
          placeholder="/api/data/posts"
          onChange={(e) => setDraftPath(e.target.value)}
        />
        <button type="submit">Apply</button>
        {filtered && (
          <button type="button" className="secondary" onClick={() => setSearch('')}>
            Clear filters
          </button>
        )}
      </form>
      <ErrorBox error={log.error} />
      {!enabled && (
        <p className="warning">
          The operator turned the request log off on this server (REQUEST_LOG_ENABLED).
        </p>
      )}
      {log.isPending ? (
        <Progress label="Loading requests…" />
      ) : log.isError ? null : entries.length === 0 ? (
        <p className="empty">{filtered ? 'No request matches these filters.' : 'No requests logged yet.'}</p>
      ) : (
        // Focusable, so keyboard users can scroll it sideways at phone width.
        <div className="table-wrap request-log" tabIndex={0} role="region" aria-label="Recent requests">
          <table>
            <caption className="sr-only">Recent requests</caption>
            <thead>
              <tr>
                <th scope="col">Time</th>
                <th scope="col">Method</th>
                <th scope="col">Path</th>
                <th scope="col">Status</th>
                <th scope="col">Duration</th>
                <th scope="col">Key</th>
                <th scope="col">End user</th>
              </tr>
            </thead>
            <tbody>
              {entries.map((e) => (
                <tr key={e.id}>
                  <td>
                    <time dateTime={e.at}>{new Date(e.at).toLocaleString()}</time>
                  </td>
                  <td className="mono">{e.method}</td>
                  <td className="mono">
                    {e.path}
                    {/* Why the request did not work as the caller meant (a page refused credentials). */}
                    {e.note && <p className="log-note">{e.note}</p>}
                  </td>
                  <td className={`status status-${String(e.status)[0]}xx`}>{e.status}</td>
                  <td>{e.durationMs.toFixed(1)} ms</td>
                  <td>
                    {e.keyKind === 'accessToken' ? `token ${e.accessToken ?? ''}…` : (e.keyKind ?? '—')}
                  </td>
                  <td className="mono">{e.userId ?? '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {log.hasNextPage && (
        <button
          type="button"
          className="secondary"
          onClick={() => void log.fetchNextPage()}
          disabled={log.isFetchingNextPage}
        >
          {log.isFetchingNextPage ? 'Loading…' : 'Load older requests'}
        </button>
      )}
    </>
  );
}
