// Webhooks of a project: list, create (the signing secret is shown once), test ping and delete.
import { useState, type FormEvent } from 'react';
import { api, ApiFailure, call, type Project } from '../../api';
import { CopyButton, ErrorBox, Field, FieldError, Notice, Progress } from '../../components/ui';
import { useAction, useLoad } from '../../hooks';

const EVENTS = [
  'document.created',
  'document.updated',
  'document.deleted',
  'document.restored',
  'user.created',
] as const;
type Event = (typeof EVENTS)[number];

function WebhooksSection({ project }: { project: Project }) {
  const params = { path: { projectId: project.id } };
  const hooks = useLoad(
    async () => (await call(api.GET('/api/projects/{projectId}/webhooks', { params }))).data.webhooks,
    [project.id],
  );
  const [url, setUrl] = useState('');
  const [events, setEvents] = useState<Event[]>(['document.created']);
  const [secret, setSecret] = useState('');
  const [notice, setNotice] = useState('');
  const action = useAction();
  const failure = action.error instanceof ApiFailure ? action.error : undefined;

  const create = (e: FormEvent) => {
    e.preventDefault();
    void action.run(async () => {
      const res = await call(
        api.POST('/api/projects/{projectId}/webhooks', { params, body: { url, events } }),
      );
      setSecret(res.data.secret);
      setUrl('');
      await hooks.reload();
    });
  };
  const ping = (webhookId: string) =>
    action.run(async () => {
      await call(
        api.POST('/api/projects/{projectId}/webhooks/{webhookId}/test', {
          params: { path: { projectId: project.id, webhookId } },
        }),
      );
      setNotice('Test event queued; see its delivery in the log.');
    });
  const remove = (webhookId: string) =>
    action.run(async () => {
      await call(
        api.DELETE('/api/projects/{projectId}/webhooks/{webhookId}', {
          params: { path: { projectId: project.id, webhookId } },
        }),
      );
      setNotice('Webhook deleted.');
      await hooks.reload();
    });

  return (
    <section className="card" aria-labelledby="webhooks-heading">
      <h2 id="webhooks-heading">Webhooks</h2>
      <ErrorBox error={hooks.error} />
      {hooks.loading && !hooks.value && <Progress label="Loading webhooks…" />}
      {hooks.value?.length === 0 && <p>No webhooks yet.</p>}
      {hooks.value && hooks.value.length > 0 && (
        <ul className="plain">
          {hooks.value.map((h) => (
            <li key={h.id} className="row">
              <span className="mono">{h.url}</span>
              <span className="muted">{h.events.join(', ')}</span>
              <button type="button" className="secondary" onClick={() => void ping(h.id)}>
                Send test
              </button>
              <button
                type="button"
                className="secondary danger"
                onClick={() => void remove(h.id)}
                aria-label={`Delete webhook ${h.url}`}
              >
                Delete
              </button>
            </li>
          ))}
        </ul>
      )}
      {secret && (
        <div className="keys">
          <p className="warning" role="alert">
            Copy the signing secret now: it is shown only this once.
          </p>
          <div className="key-value">
            <input readOnly value={secret} aria-label="Signing secret" />
            <CopyButton text={secret} label="Copy secret" />
          </div>
        </div>
      )}
      <form onSubmit={create} noValidate>
        <Field
          label="Target URL"
          type="url"
          value={url}
          placeholder="https://hooks.example.com/baas"
          onChange={(e) => setUrl(e.target.value)}
          error={failure?.forField('url')}
        />
        <fieldset>
          <legend>Events</legend>
          {EVENTS.map((ev) => (
            <label className="check" key={ev}>
              <input
                type="checkbox"
                checked={events.includes(ev)}
                onChange={(e) =>
                  setEvents(e.target.checked ? [...events, ev] : events.filter((x) => x !== ev))
                }
              />
              {ev}
            </label>
          ))}
          <FieldError message={failure?.forField('events')} />
        </fieldset>
        <button type="submit" disabled={action.busy}>
          Add webhook
        </button>
      </form>
      <ErrorBox error={action.error} />
      {notice && <Notice>{notice}</Notice>}
    </section>
  );
}

export function WebhooksPage({ project }: { project: Project }) {
  return <WebhooksSection project={project} />;
}
