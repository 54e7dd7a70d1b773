// Webhooks of a project (admins): the list with each one's state, and the form to add one (its
// signing secret is shown once). Each webhook's page (webhook.tsx) edits it and shows its log.
import { useState } from 'react';
import { useLoopbackTargets, useWebhookActions, useWebhooks, type Webhook } from '../../data/webhooks';
import { ErrorBox, Link, Progress } from '../../components/ui';
import { WebhookForm } from './webhook-form';
import { SecretOnce } from './secret-once';
import type { ProjectPageProps } from '../project-shell';
import { isLimit } from '../../data/plans';

/** A webhook a restore into a new project brought back disabled (its `pausedReason` says so). */
export const disabledByRestore = (hook: Webhook) =>
  !hook.enabled && !!hook.pausedReason?.startsWith('Disabled after restore');

/** The webhook's state in words. */
export const stateOf = (hook: Webhook) =>
  hook.enabled
    ? 'Enabled'
    : disabledByRestore(hook)
      ? 'Disabled after restore'
      : hook.pausedAt
        ? 'Paused'
        : 'Disabled';

export function WebhooksPage({ project }: ProjectPageProps) {
  const hooks = useWebhooks(project.id);
  const loopback = useLoopbackTargets(project.id);
  const { create, update } = useWebhookActions(project.id);
  const [secret, setSecret] = useState('');
  const base = `/projects/${project.id}/webhooks`;
  const limit = project.limits.webhooksPerProject;

  return (
    <>
      <h1>Webhooks</h1>
      <p className="muted">
        Each event is POSTed to the target, signed (Standard Webhooks), and retried when it fails.
      </p>
      {loopback && <DevelopmentProfile />}
      <ErrorBox error={hooks.error} />
      {hooks.isPending && <Progress label="Loading webhooks…" />}
      <ErrorBox error={update.error} />
      {hooks.data?.some(disabledByRestore) && (
        <p className="notice" role="status">
          Webhooks restored from a backup are disabled, with a new signing secret: enable each once its URL is
          the one this project should call.
        </p>
      )}
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
                  <td>
                    {stateOf(h)}
                    {disabledByRestore(h) && (
                      <>
                        {' — '}
                        <button
                          type="button"
                          className="secondary"
                          aria-label={`Enable ${h.description || h.url}`}
                          disabled={update.isPending}
                          onClick={() => update.mutate({ webhookId: h.id, body: { enabled: true } })}
                        >
                          Enable
                        </button>
                      </>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <section className="card" aria-labelledby="new-webhook">
        <h2 id="new-webhook">Add a webhook</h2>
        {hooks.data && isLimit(limit) && (
          <p className="muted">
            {hooks.data.length} of {limit} webhooks of this project’s plan.
          </p>
        )}
        {secret && <SecretOnce secret={secret} />}
        <WebhookForm
          loopbackTargets={loopback}
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

/** The development profile (npm start): what it opens, and what stays closed (docs/webhooks.md). */
export function DevelopmentProfile() {
  return (
    <p className="notice" role="status" data-testid="development-profile">
      <strong>Development profile:</strong> targets on this machine are accepted, plain http included (
      <span className="mono">http://localhost:PORT/…</span>,{' '}
      <span className="mono">http://127.0.0.1:PORT/…</span>), so a local receiver can be tried with “Send a
      test event”. Private, link-local and metadata addresses stay refused, and production accepts public
      https:// targets only.
    </p>
  );
}
