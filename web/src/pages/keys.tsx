// The two API keys: their last four characters, and rotation (the new key is shown once; the old
// one stops at once, the other key keeps working).
import { useState } from 'react';
import { api, call } from '../api';
import { KeysOnce } from '../components/keys';
import { ErrorBox, Progress } from '../components/ui';
import { useAction } from '../hooks';
import type { ProjectPageProps } from './project-shell';

export function KeysPage({ project, reload }: ProjectPageProps) {
  const [fresh, setFresh] = useState<{ kind: 'publishable' | 'secret'; key: string } | null>(null);
  const { busy, error, run } = useAction();
  const rotate = (kind: 'publishable' | 'secret') => {
    if (!confirm(`Rotate the ${kind} key? The current one stops working immediately.`)) return;
    void run(async () => {
      const res = await call(
        api.POST('/api/projects/{projectId}/keys/{kind}/rotate', {
          params: { path: { projectId: project.id, kind } },
        }),
      );
      setFresh({ kind, key: res.data.key });
      await reload();
    });
  };
  return (
    <>
      <h1>API keys</h1>
      {fresh && <KeysOnce {...{ [fresh.kind]: fresh.key }} />}
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
        <button type="button" className="secondary" onClick={() => rotate('publishable')} disabled={busy}>
          Rotate publishable key
        </button>
        <button type="button" className="danger" onClick={() => rotate('secret')} disabled={busy}>
          Rotate secret key
        </button>
      </div>
      {busy && <Progress label="Rotating…" />}
      <ErrorBox error={error} />
    </>
  );
}
