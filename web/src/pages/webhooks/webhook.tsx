// One webhook (admins): its state and actions (send a test, enable or disable, rotate the secret,
// edit, delete) and its delivery log. A test's delivery is pointed out in the log.
import { useState } from 'react';
import { navigate } from '../../router';
import { useLoopbackTargets, useWebhook, useWebhookActions } from '../../data/webhooks';
import { ErrorBox, Link, Notice, NoticeLine, Progress } from '../../components/ui';
import { useNotice } from '../../hooks';
import { Confirm, DeleteConfirm } from '../../components/confirm';
import { WebhookForm } from './webhook-form';
import { SecretOnce } from './secret-once';
import { Deliveries, TestResult } from './deliveries';
import { DevelopmentProfile, stateOf } from '.';
import type { ProjectPageProps } from '../project-shell';

export function WebhookPage({ project, webhookId }: ProjectPageProps & { webhookId: string }) {
  const hook = useWebhook(project.id, webhookId);
  const actions = useWebhookActions(project.id);
  const loopback = useLoopbackTargets(project.id);
  const [editing, setEditing] = useState(false);
  const [secret, setSecret] = useState('');
  const [tested, setTested] = useState<string>();
  const notices = useNotice();
  const { notice, setNotice, fail } = notices;
  const list = `/projects/${project.id}/webhooks`;

  // Each action's result is read back: the webhook's state moves (enabled, paused, secret).
  const act = <T,>(promise: Promise<T>, words: (result: T) => string) =>
    notices.act(promise, words, () => void hook.refetch());

  if (hook.error) {
    return (
      <>
        <ErrorBox error={hook.error} />
        <Link to={list}>← Webhooks</Link>
      </>
    );
  }
  if (!hook.data) return <Progress label="Loading the webhook…" />;
  const h = hook.data;

  return (
    <>
      <p>
        <Link to={list}>← Webhooks</Link>
      </p>
      <h1>Webhook {h.description || h.url}</h1>
      <p>
        <span className="mono">{h.url}</span> · {h.events.join(', ')}
        {h.collections.length > 0 && ` · only ${h.collections.join(', ')}`} · <strong>{stateOf(h)}</strong>
      </p>
      {!h.enabled && h.pausedReason && <Notice>{h.pausedReason}</Notice>}
      {loopback && <DevelopmentProfile />}
      <div className="row">
        <button
          type="button"
          onClick={() =>
            act(actions.ping.mutateAsync(h.id), (delivery) => {
              setTested(delivery.id);
              return 'Test event queued: its delivery is shown below as it happens, and at the top of the log.';
            })
          }
        >
          Send a test event
        </button>
        <button
          type="button"
          className="secondary"
          onClick={() =>
            act(actions.update.mutateAsync({ webhookId: h.id, body: { enabled: !h.enabled } }), (now) =>
              now.enabled ? 'Webhook enabled.' : 'Webhook disabled: no events are sent until it is enabled.',
            )
          }
        >
          {h.enabled ? 'Disable' : 'Enable'}
        </button>
        <button
          type="button"
          className="secondary"
          onClick={() => setEditing(!editing)}
          aria-expanded={editing}
        >
          Edit
        </button>
        <Confirm
          title="Rotate the signing secret?"
          action="Rotate secret"
          onConfirm={() =>
            act(actions.rotate.mutateAsync(h.id), (next) => {
              setSecret(next);
              return 'New secret made: deliveries are signed with it from now on.';
            })
          }
          trigger={
            <button type="button" className="secondary">
              Rotate secret
            </button>
          }
        >
          <p>Deliveries are signed with a new secret from now on; your receiver must switch to it.</p>
        </Confirm>
        <DeleteConfirm
          thing="webhook"
          onConfirm={() =>
            actions.remove.mutate(h.id, {
              onSuccess: () => navigate(list),
              onError: fail,
            })
          }
        >
          <p>No more events are sent to {h.url}, and its delivery log goes. This cannot be undone.</p>
        </DeleteConfirm>
      </div>
      <NoticeLine notice={notice} />
      {tested && <TestResult projectId={project.id} webhookId={h.id} deliveryId={tested} />}
      {secret && <SecretOnce secret={secret} />}
      {editing && (
        <section className="card" aria-labelledby="edit-webhook">
          <h2 id="edit-webhook">Edit</h2>
          <WebhookForm
            webhook={h}
            loopbackTargets={loopback}
            submitLabel="Save webhook"
            onCancel={() => setEditing(false)}
            onSubmit={async (body) => {
              await actions.update.mutateAsync({ webhookId: h.id, body });
              setEditing(false);
              setNotice({ text: 'Webhook saved.' });
              await hook.refetch();
            }}
          />
        </section>
      )}
      <Deliveries projectId={project.id} webhookId={h.id} highlight={tested} />
    </>
  );
}
