// The project's external database (admins, Pro): whether the project uses its own MongoDB, the
// addresses its network access list must allow, and connecting one (the API verifies it from
// both services before storing anything) or going back to the managed database.
import { useState } from 'react';
import { ApiFailure } from '../../api';
import { useForm } from 'react-hook-form';
import { useExternalDatabase, useExternalDatabaseActions } from '../../data/database';
import { CopyButton, ErrorBox, Field, Notice, Progress } from '../../components/ui';
import { Confirm } from '../../components/confirm';
import { apiResolver, FormMessage, showFailure } from '../../forms/form';
import type { ProjectPageProps } from '../project-shell';
import { PlanNeeded } from '../../components/plan-needed';

function Addresses({ label, ips, setting }: { label: string; ips: string[]; setting: string }) {
  return (
    <li>
      {label}:{' '}
      {ips.length ? (
        <>
          <span className="mono">{ips.join(', ')}</span>{' '}
          <CopyButton text={ips.join('\n')} label={`Copy ${label}`} />
        </>
      ) : (
        <span className="muted">
          Not listed yet: the operator of this installation sets them in <code>{setting}</code>.
        </span>
      )}
    </li>
  );
}

export function DatabasePage({ project }: ProjectPageProps) {
  const db = useExternalDatabase(project.id);
  const { connect, disconnect } = useExternalDatabaseActions(project.id);
  const [notice, setNotice] = useState('');
  const form = useForm<{ uri: string }>({
    defaultValues: { uri: '' },
    resolver: apiResolver<{ uri: string }>('setExternalDatabase', (v) => ({ uri: v.uri.trim() })),
  });
  const { errors, isSubmitting } = form.formState;
  const submit = form.handleSubmit(async ({ uri }) => {
    setNotice('');
    try {
      await connect.mutateAsync(uri.trim());
      form.reset();
      setNotice('Connected and verified: the project’s data now lives in your database.');
    } catch (err) {
      // The verification's refusal concerns the address typed: its words go under the field
      // (a plan refusal stays on the form).
      if (err instanceof ApiFailure && err.status === 400)
        form.setError('uri', { type: 'server', message: err.message });
      else showFailure(form, err, []);
    }
  });
  const d = db.data;
  const allowed = project.limits.externalDatabase !== false;

  return (
    <>
      <h1>External database</h1>
      <ErrorBox error={db.error} />
      {db.isPending && <Progress label="Loading the database setting…" />}
      {notice && <Notice>{notice}</Notice>}
      {d && (
        <>
          <section className="card" aria-labelledby="db-status">
            <h2 id="db-status">Status</h2>
            {d.connected ? (
              <p data-testid="db-state">
                Uses your MongoDB at <span className="mono">{d.host}</span>
                {d.database ? `, database ${d.database}` : ''}; verified{' '}
                {d.verifiedAt ? new Date(d.verifiedAt).toLocaleString() : '—'}.
              </p>
            ) : (
              <p data-testid="db-state">Uses the managed database.</p>
            )}
            <p>Your cluster’s network access list must allow these addresses:</p>
            <ul>
              <Addresses
                label="Dashboard service"
                ips={d.egressIps.dashboard}
                setting="DASHBOARD_EGRESS_IPS"
              />
              <Addresses label="Public API service" ips={d.egressIps.public} setting="PUBLIC_EGRESS_IPS" />
            </ul>
          </section>
          <section className="card" aria-labelledby="db-connect">
            <h2 id="db-connect">{d.connected ? 'Use another database' : 'Connect your MongoDB'}</h2>
            {!allowed && <PlanNeeded what="An external database" />}
            <form onSubmit={submit} onChange={() => form.clearErrors('root')} noValidate>
              <Field
                label="Connection string"
                required
                type="password"
                autoComplete="off"
                placeholder="mongodb+srv://user:password@cluster0.example.mongodb.net/shop"
                hint="Stored encrypted and never shown again. Checked from both services before it is used."
                {...form.register('uri')}
                error={errors.uri?.message}
              />
              <FormMessage errors={errors} />
              {isSubmitting && (
                <Progress label="Verifying the connection from both services (up to 10 seconds)…" />
              )}
              <button type="submit" disabled={isSubmitting || !allowed}>
                Verify and connect
              </button>
            </form>
          </section>
          {d.connected && (
            <section className="card danger-zone" aria-labelledby="db-managed">
              <h2 id="db-managed">Back to the managed database</h2>
              <Confirm
                title="Go back to the managed database?"
                action="Use the managed database"
                onConfirm={() =>
                  disconnect.mutate(undefined, {
                    onSuccess: () => setNotice('The project uses the managed database again.'),
                  })
                }
                trigger={
                  <button type="button" className="danger">
                    Use the managed database
                  </button>
                }
              >
                <p>
                  The data in your database stays there; the project reads and writes the managed one from now
                  on.
                </p>
              </Confirm>
              <ErrorBox error={disconnect.error} />
            </section>
          )}
        </>
      )}
    </>
  );
}
