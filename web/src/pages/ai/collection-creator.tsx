// The AI Collection Creator: a conversation in which the model asks and proposes a collection
// definition (already checked by the collections API); it is created only when confirmed.
import { useState, type FormEvent } from 'react';
import { errorText } from '../../api';
import { navigate } from '../../router';
import { useAiActions, type AiSession } from '../../data/ai';
import { FieldError, Progress } from '../../components/ui';
import { Confirm } from '../../components/confirm';
import { problemsOf } from '../../forms/validate';

interface Proposal {
  name?: string;
  mode?: string;
  fields?: { name: string; type: string; required?: boolean; unique?: boolean }[];
}

export function CollectionCreator({ projectId }: { projectId: string }) {
  const { start, send, confirm } = useAiActions(projectId);
  const [session, setSession] = useState<AiSession>();
  const [message, setMessage] = useState('');
  const [problem, setProblem] = useState('');
  const [failure, setFailure] = useState('');
  const busy = start.isPending || send.isPending;

  const submit = (e: FormEvent) => {
    e.preventDefault();
    setFailure('');
    const text = message.trim();
    const problems = problemsOf('sendAiCollectionMessage', { message: text });
    if (problems.length) return setProblem(problems[0]!.message);
    const next = session
      ? send.mutateAsync({ sessionId: session.id, message: text })
      : start.mutateAsync(text);
    next.then(
      (s) => {
        setSession(s);
        setMessage('');
      },
      (err: unknown) => setFailure(errorText(err)),
    );
  };
  const proposal = session?.proposal as Proposal | null | undefined;

  return (
    <section className="card" aria-labelledby="cc-heading">
      <h2 id="cc-heading">Collection Creator</h2>
      <p className="muted">
        Describe the data; the model asks what it needs and proposes a collection you confirm.
      </p>
      {session && (
        <ol className="conversation" aria-label="Conversation">
          {session.messages.map((m, i) => (
            <li key={i} className={m.role}>
              <span className="who">{m.role === 'user' ? 'You' : 'Assistant'}</span>
              <p>{m.content}</p>
            </li>
          ))}
        </ol>
      )}
      {proposal && (
        <div className="proposal" data-testid="ai-proposal">
          <h3>
            Proposed: {proposal.name} ({proposal.mode ?? 'flexible'})
          </h3>
          <div className="table-wrap">
            <table>
              <caption className="sr-only">Proposed fields</caption>
              <thead>
                <tr>
                  <th scope="col">Field</th>
                  <th scope="col">Type</th>
                  <th scope="col">Rules</th>
                </tr>
              </thead>
              <tbody>
                {(proposal.fields ?? []).map((f) => (
                  <tr key={f.name}>
                    <th scope="row">{f.name}</th>
                    <td>{f.type}</td>
                    <td>
                      {[f.required && 'required', f.unique && 'unique'].filter(Boolean).join(', ') || '—'}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          <Confirm
            title={`Create the collection ${proposal.name}?`}
            action="Create collection"
            onConfirm={() =>
              confirm.mutate(session!.id, {
                onSuccess: (made) =>
                  navigate(`/projects/${projectId}/collections/${encodeURIComponent(made.name)}`),
                onError: (err) => setFailure(errorText(err)),
              })
            }
            trigger={<button type="button">Create this collection</button>}
          >
            <p>It is registered with the fields above; you can change them later in the collection editor.</p>
          </Confirm>
        </div>
      )}
      <form onSubmit={submit} noValidate>
        <div className="field">
          <label htmlFor="cc-message">{session ? 'Your answer' : 'What should the collection hold?'}</label>
          <textarea
            id="cc-message"
            rows={3}
            value={message}
            onChange={(e) => {
              setMessage(e.target.value);
              setProblem('');
            }}
            aria-invalid={problem ? true : undefined}
          />
          <FieldError message={problem} />
        </div>
        {failure && (
          <div className="error" role="alert">
            {failure}
          </div>
        )}
        {busy && <Progress label="The model is thinking…" />}
        <button type="submit" disabled={busy}>
          {session ? 'Send' : 'Start'}
        </button>
        {session && (
          <p className="muted">
            {session.platformIterationsLeft} answers left on the platform key in this conversation.
          </p>
        )}
      </form>
    </section>
  );
}
