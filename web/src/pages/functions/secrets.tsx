// A function's secrets: the names only (values are write-only and never come back), each with,
// for admins, a Remove through the app's dialog. New ones are added with the Edit form.
import { useState } from 'react';
import { errorText } from '../../api';
import { useFunctionActions, type HostedFunction } from '../../data/functions';
import { Confirm } from '../../components/confirm';

interface Props {
  fn: HostedFunction;
  projectId: string;
  /** The project's role is admin (as the API answers it); a member gets no control to press. */
  admin: boolean;
}

export function Secrets({ fn, projectId, admin }: Props) {
  const { update } = useFunctionActions(projectId);
  const [failure, setFailure] = useState('');
  return (
    <section className="card" aria-labelledby="fn-secrets">
      <h2 id="fn-secrets">Secrets</h2>
      {fn.env.length === 0 ? (
        <p className="muted">
          {admin
            ? 'No secrets. Add them with Edit; the code reads them as ctx.env.NAME.'
            : 'No secrets; the code would read them as ctx.env.NAME.'}
        </p>
      ) : (
        <ul className="plain">
          {fn.env.map((name) => (
            <li key={name} className="row">
              <span className="mono">{name}</span>
              <span className="muted">value hidden</span>
              {admin && (
                <Confirm
                  title={`Remove the secret ${name}?`}
                  action="Remove secret"
                  onConfirm={() => {
                    setFailure('');
                    update.mutate(
                      { functionId: fn.id, body: { env: { [name]: null } } },
                      { onError: (err) => setFailure(errorText(err)) },
                    );
                  }}
                  trigger={
                    <button type="button" className="secondary" aria-label={`Remove ${name}`}>
                      Remove
                    </button>
                  }
                >
                  <p>
                    The code no longer gets ctx.env.{name} from its next run. The value cannot be shown or
                    brought back.
                  </p>
                </Confirm>
              )}
            </li>
          ))}
        </ul>
      )}
      {failure && (
        <div className="error" role="alert">
          {failure}
        </div>
      )}
    </section>
  );
}
