// Hooks and functions of a project: the list with each one's trigger, runtime, state, active
// version and, for HTTP hooks, the circuit breaker; for admins, the form to add one (an HTTP
// hook's signing secret is shown once). Each one's page (function.tsx) shows, edits, tests and logs it.
import { useState } from 'react';
import { useFunctionActions, useFunctions } from '../../data/functions';
import { ErrorBox, Link, Progress } from '../../components/ui';
import { isLimit } from '../../data/plans';
import { navigate } from '../../router';
import type { ProjectPageProps } from '../project-shell';
import { FunctionForm } from './function-form';
import { RestoredFunctions } from './restored';
import { SigningSecret } from './signing-secret';
import { GitHint } from './git-hint';
import { FunctionQuotaWarning } from './quota-warning';
import './functions.css';
import { breakerWords, MEMBER_WORDS, triggerWords } from './words';

export function FunctionsPage({ project }: ProjectPageProps) {
  const fns = useFunctions(project.id);
  const { create } = useFunctionActions(project.id);
  const [made, setMade] = useState<{ id: string; name: string; secret: string }>();
  const base = `/projects/${project.id}/functions`;
  const limit = project.limits.functionsPerProject;
  const admin = project.role === 'admin';

  return (
    <>
      <h1>Functions</h1>
      <p className="muted">
        Your own logic: hooks that check or change writes, functions called by clients or on a schedule. Each
        runs as hosted JavaScript or on your own HTTP endpoint.
      </p>
      {!admin && <p data-testid="member-note">{MEMBER_WORDS}</p>}
      <FunctionQuotaWarning projectId={project.id} />
      <ErrorBox error={fns.error} />
      {fns.isPending && <Progress label="Loading functions…" />}
      {fns.data && <RestoredFunctions projectId={project.id} functions={fns.data} admin={admin} />}
      {fns.data?.length === 0 && <p>{admin ? 'No functions yet. Add one below.' : 'No functions yet.'}</p>}
      {fns.data && fns.data.length > 0 && (
        <div className="table-wrap">
          <table>
            <caption className="sr-only">Functions</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Trigger</th>
                <th scope="col">Runtime</th>
                <th scope="col">State</th>
                <th scope="col">Version</th>
                <th scope="col">Breaker</th>
              </tr>
            </thead>
            <tbody>
              {fns.data.map((f) => (
                <tr key={f.id}>
                  <th scope="row">
                    <Link to={`${base}/${f.id}`}>{f.name}</Link>
                  </th>
                  <td>{triggerWords(f)}</td>
                  <td>{f.runtime.type === 'http' ? 'HTTP' : 'JavaScript'}</td>
                  <td>{f.enabled ? 'Enabled' : 'Disabled'}</td>
                  <td>
                    v{f.version}
                    {f.version !== f.latestVersion && ` of ${f.latestVersion}`}
                  </td>
                  <td>{breakerWords(f)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {made && (
        <section className="card" aria-labelledby="made-secret">
          <h2 id="made-secret">{made.name} is created</h2>
          <SigningSecret secret={made.secret} onDismiss={() => navigate(`${base}/${made.id}`)} />
        </section>
      )}
      {admin && (
        <section className="card" aria-labelledby="new-function">
          <h2 id="new-function">Add a function</h2>
          {fns.data && isLimit(limit) && (
            <p className="muted">
              {fns.data.length} of {limit} functions of this project’s plan.
            </p>
          )}
          <GitHint />
          <FunctionForm
            projectId={project.id}
            submitLabel="Add function"
            onSubmit={async (body) => {
              setMade(undefined);
              const { function: fn, signingSecret } = await create.mutateAsync(body);
              // The secret must be copied before leaving; without one, go straight to the new page.
              if (signingSecret) setMade({ id: fn.id, name: fn.name, secret: signingSecret });
              else navigate(`${base}/${fn.id}`);
            }}
          />
        </section>
      )}
    </>
  );
}
