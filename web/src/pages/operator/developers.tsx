// The installation's developer accounts: search, plan, projects owned, last sign-in; the
// operator moves an account to another plan, disables or enables it, or deletes it (saying first
// what goes with it), and invites new ones (./invite.tsx). The operator's own row has no plan
// limits and no controls.
import { useState } from 'react';
import { ErrorBox, Notice, Progress } from '../../components/ui';
import { Confirm } from '../../components/confirm';
import { useDeveloperChanges, useDevelopers, type DeveloperRow } from '../../data/operator';
import { usePlans } from '../../data/plans';
import { InviteDevelopers } from './invite';

const when = (iso: string | null) => (iso ? new Date(iso).toLocaleString() : 'never');

export function DevelopersPage() {
  const [search, setSearch] = useState('');
  const developers = useDevelopers(search.trim());
  const changes = useDeveloperChanges();
  const [done, setDone] = useState<string>();
  const failed = changes.setPlan.error ?? changes.setDisabled.error ?? changes.remove.error;
  return (
    <>
      <h1>Developers</h1>
      <InviteDevelopers />
      <h2>Accounts</h2>
      <div className="field">
        <label htmlFor="developer-search">Search by email or name</label>
        <input
          id="developer-search"
          type="search"
          value={search}
          onChange={(e) => setSearch(e.target.value)}
          autoComplete="off"
        />
      </div>
      <ErrorBox error={developers.error ?? failed} />
      {done && <Notice>{done}</Notice>}
      {!developers.data ? (
        <Progress label="Loading the accounts…" />
      ) : (
        <div className="table-wrap" tabIndex={0} role="region" aria-label="Developer accounts">
          <table>
            <thead>
              <tr>
                <th scope="col">Account</th>
                <th scope="col">Plan</th>
                <th scope="col">Projects</th>
                <th scope="col">Last sign-in</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {developers.data.map((row) => (
                <DeveloperLine key={row.developer.id} row={row} changes={changes} onDone={setDone} />
              ))}
            </tbody>
          </table>
        </div>
      )}
      {developers.data?.length === 0 && <p>No account matches “{search}”.</p>}
    </>
  );
}

function DeveloperLine({
  row,
  changes,
  onDone,
}: {
  row: DeveloperRow;
  changes: ReturnType<typeof useDeveloperChanges>;
  onDone: (text: string) => void;
}) {
  const { developer, projectsOwned, lastSignInAt } = row;
  const plans = usePlans();
  const { setPlan, setDisabled, remove } = changes;
  const who = developer.email;
  const planSelect = `plan-${developer.id}`;
  return (
    <tr>
      <th scope="row">
        {who}
        {developer.name && <div className="muted">{developer.name}</div>}
        {developer.isOperator && <div className="muted">Operator (you)</div>}
        {developer.disabled && <div className="muted">Disabled</div>}
      </th>
      <td>
        {developer.isOperator ? (
          'No plan limits'
        ) : (
          <>
            <label htmlFor={planSelect} className="sr-only">
              Plan of {who}
            </label>
            <select
              id={planSelect}
              value={developer.plan}
              disabled={setPlan.isPending}
              onChange={(e) => {
                const plan = e.target.value;
                setPlan.mutate(
                  { developerId: developer.id, plan },
                  { onSuccess: () => onDone(`${who} is now on ${plan}.`) },
                );
              }}
            >
              {plans.data?.plans.map((p) => (
                <option key={p.name} value={p.name}>
                  {p.label}
                </option>
              ))}
            </select>
          </>
        )}
      </td>
      <td>{projectsOwned}</td>
      <td>{when(lastSignInAt)}</td>
      <td className="actions">
        {!developer.isOperator && (
          <>
            <button
              type="button"
              className="secondary"
              disabled={setDisabled.isPending}
              onClick={() =>
                setDisabled.mutate(
                  { developerId: developer.id, disabled: !developer.disabled },
                  { onSuccess: () => onDone(`${who} is ${developer.disabled ? 'enabled' : 'disabled'}.`) },
                )
              }
            >
              {developer.disabled ? 'Enable' : 'Disable'}
              <span className="sr-only"> {who}</span>
            </button>
            <Confirm
              title={`Delete ${who}?`}
              action="Delete account"
              typeToConfirm={who}
              onConfirm={() =>
                remove.mutate(developer.id, {
                  onSuccess: (res) =>
                    onDone(
                      `${who} is deleted${
                        res.data.deletedProjects.length ? `, with ${res.data.deletedProjects.join(', ')}` : ''
                      }.`,
                    ),
                })
              }
              trigger={
                <button type="button" className="secondary danger">
                  Delete<span className="sr-only"> {who}</span>
                </button>
              }
            >
              <p>
                This deletes the account, its sessions and its memberships of other projects
                {projectsOwned
                  ? `, and the ${projectsOwned} project${projectsOwned === 1 ? '' : 's'} it owns with all their documents, files and backups`
                  : ''}
                . It cannot be undone.
              </p>
            </Confirm>
          </>
        )}
      </td>
    </tr>
  );
}
