// The invocation log, newest first: when, the trigger and the request that ran it (method, path,
// operation, collection, document, caller), the outcome with the refusal or the error (the stack
// mapped to the source lines for hosted code), duration, version and the log lines, paged by 20 and
// filtered by status, trigger and time; above it, the last hour's and day's figures. Bodies are
// never stored.
import { useState } from 'react';
import {
  useInvocations,
  type HostedFunction,
  type Invocation,
  type InvocationFilter,
} from '../../data/functions';
import { ErrorBox } from '../../components/ui';
import { LogLines } from './test-panel';
import { InvocationStatsTable } from './invocation-stats';
import { errorWords, TRIGGERS } from './words';

const STATUS: Record<string, string> = {
  ok: 'OK',
  error: 'Error',
  refused: 'Refused',
  timeout: 'Timed out',
  memory: 'Out of memory',
  crashed: 'Crashed',
};

const STATUS_FILTERS: [string, string][] = [
  ['', 'Any status'],
  ['failed', 'Failed (error, timeout, memory, crash)'],
  ['ok', 'OK'],
  ['refused', 'Refused'],
  ['error', 'Error'],
  ['timeout', 'Timed out'],
  ['memory', 'Out of memory'],
  ['crashed', 'Crashed'],
];
const TIMES: [string, string, number][] = [
  ['', 'Any time', 0],
  ['hour', 'Last hour', 3600_000],
  ['day', 'Last day', 24 * 3600_000],
  ['week', 'Last 7 days', 7 * 24 * 3600_000],
];

const KEY_WORDS: Record<string, string> = { secret: 'secret key', publishable: 'publishable key' };

/** What ran it: the client's request, what it touched, and who called. */
function RequestWords({ request }: { request: Invocation['request'] }) {
  if (!request) return <span className="muted">not recorded</span>;
  const target = [request.operation, request.collection, request.documentId].filter(Boolean).join(' · ');
  const caller = request.keyKind
    ? `${KEY_WORDS[request.keyKind]}${request.userId ? `, end user ${request.userId}` : ''}`
    : 'the platform';
  return (
    <>
      {request.method && (
        <span className="mono">
          {request.method} {request.path}
        </span>
      )}
      {target && <div>{target}</div>}
      <div className="muted">by {caller}</div>
    </>
  );
}

function OutcomeWords({ inv }: { inv: Invocation }) {
  return (
    <>
      <strong>{STATUS[inv.status] ?? inv.status}</strong>
      {inv.refusal && (
        <div>
          {inv.refusal.status} {inv.refusal.code}: {inv.refusal.message}
        </div>
      )}
      {inv.error && (
        <pre className="excerpt" tabIndex={0}>
          {errorWords(inv.error)}
        </pre>
      )}
    </>
  );
}

export function Invocations({ fn, projectId }: { fn: HostedFunction; projectId: string }) {
  const [page, setPage] = useState(1);
  const [status, setStatus] = useState('');
  const [trigger, setTrigger] = useState('');
  const [time, setTime] = useState('');
  const span = TIMES.find((t) => t[0] === time)?.[2] ?? 0;
  // The window's start moves with each refresh of the list (every few seconds), to the minute.
  const since = span ? new Date(Math.floor((Date.now() - span) / 60_000) * 60_000).toISOString() : undefined;
  const filter = {
    ...(status ? { status } : {}),
    ...(trigger ? { trigger } : {}),
    ...(since ? { since } : {}),
  } as InvocationFilter;
  const log = useInvocations(projectId, fn.id, page, filter);
  const items = log.data?.invocations ?? [];
  const choose = (set: (v: string) => void) => (e: { target: { value: string } }) => {
    set(e.target.value);
    setPage(1);
  };

  return (
    <section className="card" aria-labelledby="fn-invocations">
      <h2 id="fn-invocations">Invocation log</h2>
      <p className="muted">
        Every run, newest first; kept for the plan’s log retention. Test runs are not logged.
      </p>
      <InvocationStatsTable projectId={projectId} functionId={fn.id} />
      <div className="row fn-log-filters">
        <div className="field">
          <label htmlFor="inv-status">Status</label>
          <select id="inv-status" value={status} onChange={choose(setStatus)}>
            {STATUS_FILTERS.map(([v, words]) => (
              <option key={v} value={v}>
                {words}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="inv-trigger">Trigger</label>
          <select id="inv-trigger" value={trigger} onChange={choose(setTrigger)}>
            <option value="">Any trigger</option>
            {TRIGGERS.map((t) => (
              <option key={t.type} value={t.type}>
                {t.type}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="inv-time">Time</label>
          <select id="inv-time" value={time} onChange={choose(setTime)}>
            {TIMES.map(([v, words]) => (
              <option key={v} value={v}>
                {words}
              </option>
            ))}
          </select>
        </div>
      </div>
      <ErrorBox error={log.error} />
      {log.data && items.length === 0 && (
        <p>{status || trigger || time ? 'No invocations match these filters.' : 'No invocations yet.'}</p>
      )}
      {items.length > 0 && (
        // Focusable, as its errors' excerpts, so a keyboard scrolls them when nothing in them takes focus.
        <div className="table-wrap" tabIndex={0} role="region" aria-label="Invocations table">
          <table>
            <caption className="sr-only">Invocations</caption>
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Trigger</th>
                <th scope="col">Request</th>
                <th scope="col">Outcome</th>
                <th scope="col">Duration</th>
                <th scope="col">Version</th>
                <th scope="col">Log</th>
              </tr>
            </thead>
            <tbody>
              {items.map((inv) => (
                <tr key={inv.id}>
                  <th scope="row">{new Date(inv.at).toLocaleString()}</th>
                  <td>{inv.trigger}</td>
                  <td className="fn-request">
                    <RequestWords request={inv.request} />
                  </td>
                  <td>
                    <OutcomeWords inv={inv} />
                  </td>
                  <td>{inv.durationMs} ms</td>
                  <td>v{inv.version}</td>
                  <td>
                    {inv.logs.length > 0 ? (
                      <details>
                        <summary>
                          {inv.logs.length} log line{inv.logs.length === 1 ? '' : 's'}
                        </summary>
                        <LogLines logs={inv.logs} />
                      </details>
                    ) : (
                      <span className="muted">—</span>
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
