// The delivery log of one webhook: each delivery with its state, and each attempt with its HTTP
// status, duration and the start of the answer (or why no answer came); failed and succeeded
// deliveries can be sent again. Polled while a delivery is pending.
import { useState } from 'react';
import { errorText } from '../../api';
import { useDeliveries, useWebhookActions, type WebhookDelivery } from '../../data/webhooks';
import { ErrorBox, Notice, Progress } from '../../components/ui';

const STATUS: Record<WebhookDelivery['status'], string> = {
  pending: 'Pending',
  succeeded: 'Succeeded',
  failed: 'Failed',
};

const time = (iso: string) => new Date(iso).toLocaleString();

function Attempts({ delivery }: { delivery: WebhookDelivery }) {
  if (delivery.attempts.length === 0) return <span className="muted">Not tried yet</span>;
  return (
    <details>
      <summary>
        {delivery.attempts.length} attempt{delivery.attempts.length === 1 ? '' : 's'}
      </summary>
      <ol className="attempts">
        {delivery.attempts.map((a) => (
          <li key={a.number}>
            <span>
              {time(a.at)} · {a.status === null ? 'no answer' : `HTTP ${a.status}`} · {a.durationMs} ms
            </span>
            {a.error && <div className="muted">{a.error}</div>}
            {a.response && <pre className="excerpt">{a.response}</pre>}
          </li>
        ))}
      </ol>
    </details>
  );
}

export function Deliveries({
  projectId,
  webhookId,
  highlight,
}: {
  projectId: string;
  webhookId: string;
  /** A delivery to point out (the test just sent). */
  highlight?: string;
}) {
  const [page, setPage] = useState(1);
  const log = useDeliveries(projectId, webhookId, page);
  const { redeliver } = useWebhookActions(projectId);
  const [notice, setNotice] = useState<{ text: string; error?: boolean }>();
  const rows = log.data?.deliveries ?? [];

  const again = (d: WebhookDelivery) =>
    redeliver.mutate(
      { webhookId, deliveryId: d.id },
      {
        onSuccess: () => {
          setNotice({ text: `Delivery of ${d.event} queued again.` });
          void log.refetch();
        },
        onError: (err) => setNotice({ text: errorText(err), error: true }),
      },
    );

  return (
    <section aria-labelledby="deliveries-heading">
      <h2 id="deliveries-heading">Delivery log</h2>
      <ErrorBox error={log.error} />
      {log.isPending && <Progress label="Loading deliveries…" />}
      {notice &&
        (notice.error ? (
          <div className="error" role="alert">
            {notice.text}
          </div>
        ) : (
          <Notice>{notice.text}</Notice>
        ))}
      {log.data && rows.length === 0 && <p>No deliveries yet. Send a test to see one here.</p>}
      {rows.length > 0 && (
        <div className="table-wrap">
          <table>
            <caption className="sr-only">Deliveries, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Event</th>
                <th scope="col">Created</th>
                <th scope="col">State</th>
                <th scope="col">Attempts</th>
                <th scope="col">
                  <span className="sr-only">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.map((d) => (
                <tr key={d.id} className={d.id === highlight ? 'highlight' : undefined} data-delivery={d.id}>
                  <th scope="row">
                    {d.event}
                    {d.id === highlight && <div className="muted">The test you sent</div>}
                  </th>
                  <td>{time(d.createdAt)}</td>
                  <td>
                    {STATUS[d.status]}
                    {d.status === 'pending' && d.nextAttemptAt && (
                      <div className="muted">next try {time(d.nextAttemptAt)}</div>
                    )}
                  </td>
                  <td>
                    <Attempts delivery={d} />
                  </td>
                  <td>
                    {d.status !== 'pending' && (
                      <button
                        type="button"
                        className="secondary"
                        onClick={() => again(d)}
                        aria-label={`Redeliver ${d.event} of ${time(d.createdAt)}`}
                      >
                        Redeliver
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {log.data && (page > 1 || log.data.pagination.hasMore) && (
        <nav className="pager" aria-label="Delivery pages">
          <button type="button" className="secondary" disabled={page <= 1} onClick={() => setPage(page - 1)}>
            Newer
          </button>
          <span>Page {page}</span>
          <button
            type="button"
            className="secondary"
            disabled={!log.data.pagination.hasMore}
            onClick={() => setPage(page + 1)}
          >
            Older
          </button>
        </nav>
      )}
    </section>
  );
}

/**
 * The test event just sent, as the log sees it: pending until the worker has tried it, then its
 * status, HTTP answer and time (or why no answer came). Reads the log's first page, which is
 * polled while a delivery is pending.
 */
export function TestResult({
  projectId,
  webhookId,
  deliveryId,
}: {
  projectId: string;
  webhookId: string;
  deliveryId: string;
}) {
  const log = useDeliveries(projectId, webhookId, 1);
  const delivery = log.data?.deliveries.find((d) => d.id === deliveryId);
  const last = delivery?.attempts.at(-1);
  let text = 'Test event: waiting for the delivery…';
  if (delivery?.status === 'pending')
    text = last
      ? `Test event: pending, attempt ${last.number} failed (${last.error ?? 'no answer'}); retrying`
      : 'Test event: pending, not tried yet…';
  else if (delivery && last)
    text =
      `Test event ${STATUS[delivery.status].toLowerCase()}: ` +
      `${last.status === null ? 'no answer' : `HTTP ${last.status}`} in ${last.durationMs} ms` +
      (last.error && delivery.status !== 'succeeded' ? ` — ${last.error}` : '');
  else if (delivery) text = `Test event ${STATUS[delivery.status].toLowerCase()}.`;
  return (
    <p
      className={delivery?.status === 'failed' ? 'error' : 'notice'}
      role="status"
      data-testid="test-result"
      data-status={delivery?.status ?? 'waiting'}
    >
      {text}
    </p>
  );
}
