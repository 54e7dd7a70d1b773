// Webhooks of a project (admins): the list with each one's state, and the form to add one (its
// signing secret is shown once). Each webhook's page (webhook.tsx) edits it and shows its log.
import { useState } from 'react';
import { useWebhookActions, useWebhooks, type Webhook } from '../../data/webhooks';
import { ErrorBox, Link, Progress } from '../../components/ui';
import { WebhookForm } from './webhook-form';
import { SecretOnce } from './secret-once';
import type { ProjectPageProps } from '../project-shell';

/** The webhook's state in words. (Paused automatically after repeated failures: the lead merges it here.) */
export const stateOf = (hook: Webhook) => (hook.enabled ? 'Enabled' : 'Disabled');

export function WebhooksPage({ project }: ProjectPageProps) {
  const hooks = useWebhooks(project.id);
  const { create } = useWebhookActions(project.id);
  const [secret, setSecret] = useState('');
  const base = `/projects/${project.id}/webhooks`;
  const limit = project.limits.webhooksPerProject;

  return (
    <>
      <h1>Webhooks</h1>
      <p className="muted">
        Each event is POSTed to the target, signed (Standard Webhooks), and retried when it fails.
      </p>
      <ErrorBox error={hooks.error} />
      {hooks.isPending && <Progress label="Loading webhooks…" />}
      {hooks.data?.length === 0 && <p>No webhooks yet. Add one below.</p>}
      {hooks.data && hooks.data.length > 0 && (
        <div className="table-wrap">
          <table>
            <caption className="sr-only">Webhooks</caption>
            <thead>
              <tr>
                <th scope="col">Target</th>
                <th scope="col">Events</th>
                <th scope="col">State</th>
              </tr>
            </thead>
            <tbody>
              {hooks.data.map((h) => (
                <tr key={h.id}>
                  <th scope="row">
                    <Link to={`${base}/${h.id}`}>{h.description || h.url}</Link>
                    {h.description && <div className="muted mono">{h.url}</div>}
                  </th>
                  <td>{h.events.join(', ')}</td>
                  <td>{stateOf(h)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <section className="card" aria-labelledby="new-webhook">
        <h2 id="new-webhook">Add a webhook</h2>
        {hooks.data && limit !== undefined && (
          <p className="muted">
            {hooks.data.length} of {limit} webhooks of this project’s plan.
          </p>
        )}
        {secret && <SecretOnce secret={secret} />}
        <WebhookForm
          submitLabel="Add webhook"
          onSubmit={async (body) => {
            setSecret('');
            setSecret((await create.mutateAsync(body)).secret);
          }}
        />
      </section>
    </>
  );
}
