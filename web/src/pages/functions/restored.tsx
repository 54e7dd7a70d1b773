// The functions a restore into this project brought back disabled (their `disabledReason`), named
// above the list with what was left off and, for admins, one button each that enables it; an HTTP
// hook's new signing secret, which the API answers once on enabling it, is shown until dismissed.
import { useState } from 'react';
import { useFunctionActions, type HostedFunction } from '../../data/functions';
import { ErrorBox, Link } from '../../components/ui';
import { SigningSecret } from './signing-secret';

export function RestoredFunctions({
  projectId,
  functions,
  admin,
}: {
  projectId: string;
  functions: HostedFunction[];
  admin: boolean;
}) {
  const { update } = useFunctionActions(projectId);
  const [secret, setSecret] = useState<{ name: string; value: string }>();
  const held = functions.filter((f) => !f.enabled && f.disabledReason);
  const shown = secret && (
    <section className="card" aria-labelledby="enabled-secret">
      <h2 id="enabled-secret">{secret.name} is enabled: its new signing secret</h2>
      <SigningSecret secret={secret.value} onDismiss={() => setSecret(undefined)} />
    </section>
  );
  if (!held.length) return shown ?? null;
  return (
    <>
      {shown}
      <section className="card" aria-labelledby="restored-heading" data-testid="restored-functions">
        <h2 id="restored-heading">
          {held.length === 1 ? '1 function was' : `${held.length} functions were`} restored disabled
        </h2>
        <p>
          A restore from a backup brought them back off: their secrets’ values were not copied (their names
          were), and an HTTP hook signs with a new secret. Set what they need on each one’s page, then enable
          it.
        </p>
        <ErrorBox error={update.error} />
        <ul className="restored-functions">
          {held.map((f) => (
            <li key={f.id}>
              <Link to={`/projects/${projectId}/functions/${f.id}`}>{f.name}</Link>
              {f.env.length > 0 && <span className="muted"> (secrets to set: {f.env.join(', ')})</span>}{' '}
              {admin && (
                <button
                  type="button"
                  aria-label={`Enable ${f.name}`}
                  disabled={update.isPending}
                  onClick={() =>
                    update.mutate(
                      { functionId: f.id, body: { enabled: true } },
                      {
                        onSuccess: ({ signingSecret }) =>
                          setSecret(signingSecret ? { name: f.name, value: signingSecret } : undefined),
                      },
                    )
                  }
                >
                  Enable
                </button>
              )}
            </li>
          ))}
        </ul>
      </section>
    </>
  );
}
