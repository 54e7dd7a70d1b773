// One hook or function: what it is (trigger, runtime, active version and its SHA-256, the breaker
// of an HTTP hook), its secrets' names, its versions and its invocation log. Admins also get its
// actions (enable or disable, edit, delete), the Test panel and rollback; a member reads the code.
import { useState } from 'react';
import { navigate } from '../../router';
import { useFunction, useFunctionActions } from '../../data/functions';
import { ErrorBox, Link, NoticeLine, Progress } from '../../components/ui';
import { useNotice } from '../../hooks';
import { DeleteConfirm } from '../../components/confirm';
import type { ProjectPageProps } from '../project-shell';
import { FunctionForm, functionDraftKey } from './function-form';
import { GitHint } from './git-hint';
import { hasDraft } from '../../drafts';
import { useSession } from '../../session';
import { SigningSecret } from './signing-secret';
import { Secrets } from './secrets';
import { TestPanel } from './test-panel';
import { Versions } from './versions';
import { Invocations } from './invocations';
import './functions.css';
import { CodeView } from './code-view';
import { breakerWords, MEMBER_WORDS, runtimeWords, shortSha, triggerWords } from './words';

export function FunctionPage({ project, functionId }: ProjectPageProps & { functionId: string }) {
  const fn = useFunction(project.id, functionId);
  const actions = useFunctionActions(project.id);
  // A draft kept as the session ended reopens the edit form, which takes it back.
  const developerId = useSession().developer?.id;
  const [editing, setEditing] = useState(() =>
    hasDraft(developerId, functionDraftKey(project.id, functionId)),
  );
  const [secret, setSecret] = useState('');
  const { notice, setNotice, act, fail } = useNotice();
  const list = `/projects/${project.id}/functions`;
  const admin = project.role === 'admin';

  if (fn.error) {
    return (
      <>
        <ErrorBox error={fn.error} />
        <Link to={list}>← Functions</Link>
      </>
    );
  }
  if (!fn.data) return <Progress label="Loading the function…" />;
  const f = fn.data;

  return (
    <>
      <p>
        <Link to={list}>← Functions</Link>
      </p>
      <h1>Function {f.name}</h1>
      {!admin && <p data-testid="member-note">{MEMBER_WORDS}</p>}
      <dl className="facts fn-facts">
        <dt>Trigger</dt>
        <dd>{triggerWords(f)}</dd>
        {f.trigger.type === 'callable' && (
          <>
            <dt>Calls a minute</dt>
            <dd>{f.rateLimitPerMinute ? `at most ${f.rateLimitPerMinute}` : 'no limit of its own'}</dd>
          </>
        )}
        <dt>Runtime</dt>
        <dd>{runtimeWords(f)}</dd>
        <dt>State</dt>
        <dd>
          <strong>{f.enabled ? 'Enabled' : 'Disabled'}</strong> · fails {f.failurePolicy}
        </dd>
        <dt>Active version</dt>
        <dd>
          v{f.version} of {f.latestVersion} · SHA-256{' '}
          <span className="mono" title={f.sha256} data-testid="active-sha">
            {shortSha(f.sha256)}
          </span>
        </dd>
        {f.breaker && (
          <>
            <dt>Circuit breaker</dt>
            <dd data-testid="breaker">{breakerWords(f)}</dd>
          </>
        )}
      </dl>
      {admin && (
        <div className="row">
          <button
            type="button"
            className="secondary"
            onClick={() =>
              act(actions.update.mutateAsync({ functionId: f.id, body: { enabled: !f.enabled } }), (now) =>
                now.function.enabled
                  ? 'Function enabled.'
                  : 'Function disabled: it runs no more until enabled.',
              )
            }
          >
            {f.enabled ? 'Disable' : 'Enable'}
          </button>
          <button
            type="button"
            className="secondary"
            onClick={() => setEditing(!editing)}
            aria-expanded={editing}
          >
            Edit
          </button>
          <DeleteConfirm
            thing="function"
            onConfirm={() =>
              actions.remove.mutate(f.id, {
                onSuccess: () => navigate(list),
                onError: fail,
              })
            }
          >
            <p>{f.name} runs no more; its versions, secrets and invocation log go. This cannot be undone.</p>
          </DeleteConfirm>
        </div>
      )}
      <NoticeLine notice={notice} />
      {secret && <SigningSecret secret={secret} onDismiss={() => setSecret('')} />}
      {editing && (
        <section className="card" aria-labelledby="edit-function">
          <h2 id="edit-function">Edit</h2>
          <p className="muted">
            A change of trigger, runtime or failure policy saves a new version and makes it active.
          </p>
          <FunctionForm
            fn={f}
            projectId={project.id}
            submitLabel="Save function"
            onCancel={() => setEditing(false)}
            onSubmit={async (body) => {
              const { function: now, signingSecret } = await actions.update.mutateAsync({
                functionId: f.id,
                body,
              });
              setEditing(false);
              if (signingSecret) setSecret(signingSecret);
              setNotice({
                text:
                  now.version !== f.version
                    ? `Saved as version ${now.version}, now active.`
                    : 'Saved; the definition is unchanged, so no new version.',
              });
            }}
          />
        </section>
      )}
      {!admin && <CodeView fn={f} />}
      <GitHint />
      <Secrets fn={f} projectId={project.id} admin={admin} />
      {admin && <TestPanel fn={f} projectId={project.id} />}
      <Versions fn={f} projectId={project.id} admin={admin} />
      <Invocations fn={f} projectId={project.id} />
    </>
  );
}
