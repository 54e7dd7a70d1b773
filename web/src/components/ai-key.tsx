// The AI provider key form (bring your own key), for the account and for a project: it says
// whether a key is stored (never the key: the API does not return it), saves a new one, or
// removes it. The API's format message goes under the field; its Pro-plan refusal in plain words.
import { useState, type FormEvent, type ReactNode } from 'react';
import { ApiFailure } from '../api';
import { ErrorBox, Notice } from './ui';
import { useAction } from '../hooks';
import { useSession } from '../session';

interface Props {
  /** `account` or `project`: names the ids and the words. */
  scope: 'account' | 'project';
  hasKey: boolean;
  /** Sends `{ aiProviderKey }` (null removes); resolves with the stored state. */
  save: (aiProviderKey: string | null) => Promise<boolean>;
  /** What the key is used for, shown under the heading. */
  children: ReactNode;
}

/** The 403 of a plan without own AI keys, in words that say what to do. */
function planMessage(error: unknown, scope: Props['scope'], operator: boolean): string | undefined {
  if (!(error instanceof ApiFailure) || error.status !== 403) return undefined;
  // The operator's own account has no plan limits: what bites is the owner's plan, theirs to change.
  if (operator)
    return `Your own AI key needs the Pro plan, and this project's owner is on the Free plan. Move the owner to Pro on the Operator › Developers page (or set DEFAULT_PLAN for every new account); the AI tools meanwhile use the platform key with its monthly limits.`;
  const whose = scope === 'account' ? 'your account' : 'this project';
  return `Your own AI key needs the Pro plan, and ${whose} is on the Free plan. Ask the operator of this installation to upgrade it; the AI tools meanwhile use the platform key with its monthly limits.`;
}

export function AiKeyForm({ scope, hasKey, save, children }: Props) {
  const [key, setKey] = useState('');
  const [stored, setStored] = useState(hasKey);
  const [done, setDone] = useState<string | undefined>(undefined);
  const action = useAction();
  const failure = action.error instanceof ApiFailure ? action.error : undefined;
  const fieldError = failure?.status === 400 ? failure.message : undefined;
  const plan = planMessage(action.error, scope, Boolean(useSession().developer?.isOperator));
  const inputId = `ai-key-${scope}`;

  const submit = (value: string | null) => {
    setDone(undefined);
    void action.run(async () => {
      const now = await save(value);
      setStored(now);
      setKey('');
      setDone(
        value === null ? 'AI key removed.' : 'AI key saved. It is stored encrypted and never shown again.',
      );
    });
  };
  const onSubmit = (e: FormEvent) => {
    e.preventDefault();
    submit(key.trim());
  };

  const title = scope === 'account' ? 'Personal AI key' : 'Project AI key';
  return (
    <form onSubmit={onSubmit} className="card" noValidate aria-labelledby={`${inputId}-heading`}>
      <h2 id={`${inputId}-heading`}>{title}</h2>
      {children}
      <p data-testid={`${inputId}-state`}>
        {stored ? 'A key is set. Enter a new one to replace it.' : 'No key is set.'}
      </p>
      <div className="field">
        <label htmlFor={inputId}>AI provider key</label>
        <input
          id={inputId}
          type="password"
          autoComplete="off"
          spellCheck={false}
          value={key}
          placeholder="gsk_…"
          onChange={(e) => setKey(e.target.value)}
          aria-invalid={fieldError ? true : undefined}
          aria-describedby={fieldError ? `${inputId}-err` : undefined}
        />
        {fieldError ? (
          <small className="field-error" id={`${inputId}-err`}>
            {fieldError}
          </small>
        ) : (
          <small className="hint">
            The provider’s key, as it gave it to you (it starts with its prefix).
          </small>
        )}
      </div>
      {plan ? (
        <div className="error" role="alert">
          {plan}
        </div>
      ) : (
        !fieldError && <ErrorBox error={action.error} />
      )}
      {done && <Notice>{done}</Notice>}
      <div className="row">
        <button type="submit" disabled={action.busy || !key.trim()}>
          {action.busy ? 'Saving…' : 'Save AI key'}
        </button>
        {stored && (
          <button
            type="button"
            className="secondary danger"
            disabled={action.busy}
            onClick={() => submit(null)}
          >
            Remove AI key
          </button>
        )}
      </div>
    </form>
  );
}
