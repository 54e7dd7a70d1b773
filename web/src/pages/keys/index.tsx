// The two API keys: their last four characters, and rotation after the app's dialog (the new key
// is shown once, and stays shown until dismissed, even when the other key is rotated meanwhile;
// the old one stops at once, the other key keeps working).
import { useState } from 'react';
import { useMutation } from '@tanstack/react-query';
import { api, call } from '../../api';
import { KeysOnce } from '../../components/keys';
import { ErrorBox, Progress } from '../../components/ui';
import { Confirm } from '../../components/confirm';
import type { ProjectPageProps } from '../project-shell';

type Kind = 'publishable' | 'secret';

export function KeysPage({ project, reload }: ProjectPageProps) {
  const [fresh, setFresh] = useState<Partial<Record<Kind, string>>>({});
  const rotate = useMutation({
    mutationFn: async (kind: Kind) =>
      (
        await call(
          api.POST('/api/projects/{projectId}/keys/{kind}/rotate', {
            params: { path: { projectId: project.id, kind } },
          }),
        )
      ).data.key,
    onSuccess: async (key, kind) => {
      setFresh((shown) => ({ ...shown, [kind]: key }));
      await reload();
    },
  });
  const button = (kind: Kind, label: string, className: string) => (
    <Confirm
      title={`Rotate the ${kind} key?`}
      action={`Rotate ${kind} key`}
      onConfirm={() => rotate.mutate(kind)}
      trigger={
        <button type="button" className={className} disabled={rotate.isPending}>
          {label}
        </button>
      }
    >
      <p>
        The current {kind} key stops working at once; the new one is shown once. The other key keeps working.
      </p>
    </Confirm>
  );
  return (
    <>
      <h1>API keys</h1>
      {(fresh.publishable || fresh.secret) && (
        <KeysOnce {...fresh} onDismiss={(kind) => setFresh(({ [kind]: _hidden, ...rest }) => rest)} />
      )}
      <dl className="facts">
        <dt>Publishable key</dt>
        <dd>
          <code>pk_live_…{project.keys.publishable.last4}</code>{' '}
          <span className="muted">for browsers and apps: reads, and writes under row-level security</span>
        </dd>
        <dt>Secret key</dt>
        <dd>
          <code>sk_live_…{project.keys.secret.last4}</code>{' '}
          <span className="muted">for your servers only</span>
        </dd>
      </dl>
      <div className="row">
        {button('publishable', 'Rotate publishable key', 'secondary')}
        {button('secret', 'Rotate secret key', 'danger')}
      </div>
      {rotate.isPending && <Progress label="Rotating…" />}
      <ErrorBox error={rotate.error} />
    </>
  );
}
