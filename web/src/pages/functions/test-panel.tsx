// The Test panel: runs the active version on a sample event the developer edits, and shows what a
// real run would give (status, duration, value or refusal, error, log lines). The API writes
// nothing for a test: no document, no log entry, and hosted code's ctx.db refuses writes.
import { useState } from 'react';
import { errorText } from '../../api';
import { errorWords } from './words';
import { useFunctionActions, type HostedFunction, type Outcome } from '../../data/functions';

/** A sample event of the trigger's shape (docs/functions.md, Events), to start from. */
export function sampleEvent(fn: HostedFunction): Record<string, unknown> {
  const { type, collection } = fn.trigger;
  const caller = { key: 'secret', userId: null };
  const id = '65f1c2a4b7e8d9001234567b';
  switch (type) {
    case 'beforeCreate':
      return { collection, caller, operation: 'create', documents: [{ title: 'Hello' }] };
    case 'beforeUpdate':
      return { collection, caller, operation: 'update', documentId: id, changes: { title: 'Hi' } };
    case 'beforeSignUp':
      return {
        caller: { key: 'publishable', userId: null },
        email: 'ada@example.com',
        fields: { name: 'Ada' },
        provider: 'password',
      };
    case 'tokenClaims':
      return { caller: { key: 'publishable', userId: id }, userId: id, reason: 'login' };
    case 'callable':
      return { caller, name: fn.name, body: {} };
    case 'schedule':
      return { scheduledAt: new Date().toISOString().slice(0, 16) + ':00.000Z' };
    default:
      return { collection, caller, operation: 'trash', documentIds: [id] };
  }
}

export function TestPanel({ fn, projectId }: { fn: HostedFunction; projectId: string }) {
  const { test } = useFunctionActions(projectId);
  const [text, setText] = useState(() => JSON.stringify(sampleEvent(fn), null, 2));
  const [problem, setProblem] = useState('');
  const [outcome, setOutcome] = useState<Outcome>();

  const run = () => {
    setProblem('');
    setOutcome(undefined);
    let event: unknown;
    try {
      event = JSON.parse(text);
    } catch (err) {
      setProblem(`The sample event is not JSON: ${(err as Error).message}`);
      return;
    }
    if (!event || typeof event !== 'object' || Array.isArray(event)) {
      setProblem('The sample event must be a JSON object.');
      return;
    }
    test.mutate(
      { functionId: fn.id, event: event as Record<string, unknown> },
      { onSuccess: setOutcome, onError: (err) => setProblem(errorText(err)) },
    );
  };

  return (
    <section className="card" aria-labelledby="fn-test">
      <h2 id="fn-test">Test</h2>
      <p className="muted">
        Runs the active version (v{fn.version}) on this event as its trigger would. A test writes nothing: no
        document changes, no log entry.
      </p>
      <div className="field">
        <label htmlFor={`test-${fn.id}`}>Sample event (JSON)</label>
        <textarea
          id={`test-${fn.id}`}
          className="mono"
          rows={8}
          value={text}
          onChange={(e) => setText(e.target.value)}
          aria-invalid={problem ? true : undefined}
        />
      </div>
      <button type="button" onClick={run} disabled={test.isPending}>
        {test.isPending ? 'Running…' : 'Run test'}
      </button>
      {problem && (
        <div className="error" role="alert">
          {problem}
        </div>
      )}
      {outcome && <OutcomeView outcome={outcome} />}
    </section>
  );
}

function OutcomeView({ outcome }: { outcome: Outcome }) {
  return (
    <div className="outcome" role="status" aria-label="Test result">
      <p>
        <strong data-testid="test-status">{outcome.status}</strong> in {outcome.durationMs} ms
      </p>
      {outcome.refusal && (
        <p>
          A client would get HTTP {outcome.refusal.status}{' '}
          <span className="mono">HOOK_{outcome.refusal.code}</span>: {outcome.refusal.message}
        </p>
      )}
      {outcome.status === 'ok' && (
        <>
          <h3>Answer</h3>
          <pre data-testid="test-value">{JSON.stringify(outcome.value ?? null, null, 2)}</pre>
        </>
      )}
      {outcome.error && (
        <>
          <h3>Error</h3>
          <pre className="excerpt">{errorWords(outcome.error)}</pre>
        </>
      )}
      <LogLines logs={outcome.logs} />
    </div>
  );
}

export function LogLines({ logs }: { logs: { level: string; message: string; atMs: number }[] }) {
  if (logs.length === 0) return <p className="muted">No log lines.</p>;
  return (
    <ol className="log-lines" aria-label="Log lines">
      {logs.map((l, i) => (
        <li key={i}>
          <span className="muted mono">
            +{l.atMs} ms {l.level}
          </span>{' '}
          <span className="mono">{l.message}</span>
        </li>
      ))}
    </ol>
  );
}
