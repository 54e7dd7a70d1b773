// The outbox folder's mails (mail goes there while SMTP_URL is unset, as in the development
// profile): read in the page, links included, so confirming an account never needs the folder.
import { ErrorBox, Progress } from '../../components/ui';
import { useOutbox, useOverview } from '../../data/operator';

export function MailPage() {
  const overview = useOverview();
  const outbox = useOutbox(Boolean(overview.data?.outbox));
  if (overview.error) return <ErrorBox error={overview.error} />;
  if (!overview.data) return <Progress label="Loading…" />;
  if (!overview.data.outbox) {
    const mail = overview.data.parts.find((p) => p.name === 'mail');
    return (
      <>
        <h1>Mail</h1>
        <p>
          Mail is sent through {mail?.now ?? 'an SMTP server'} (<code>SMTP_URL</code>): read it in the
          recipients’ mailboxes. Without <code>SMTP_URL</code>, mail is written to a folder and shown here.
        </p>
      </>
    );
  }
  return (
    <>
      <h1>Mail</h1>
      <p className="muted">
        Mail is written to the folder <code>{overview.data.outbox}</code> (set <code>SMTP_URL</code> to send
        it): the newest 100 are here, refreshed every few seconds.
      </p>
      <ErrorBox error={outbox.error} />
      {!outbox.data ? (
        <Progress label="Loading the mails…" />
      ) : outbox.data.mails.length === 0 ? (
        <p>No mail yet.</p>
      ) : (
        outbox.data.mails.map((m) => (
          <article key={m.id} className="card mail" aria-labelledby={`mail-${m.id}`}>
            <h2 id={`mail-${m.id}`}>{m.subject}</h2>
            <p className="muted">
              To {m.to.join(', ')} · {new Date(m.createdAt).toLocaleString()}
            </p>
            {m.links.length > 0 && (
              <ul className="mail-links">
                {m.links.map((link) => (
                  <li key={link}>
                    <a href={link}>{link}</a>
                  </li>
                ))}
              </ul>
            )}
            <details>
              <summary>
                Text<span className="sr-only"> of “{m.subject}”</span>
              </summary>
              <pre className="mail-text">{m.text}</pre>
            </details>
          </article>
        ))
      )}
    </>
  );
}
