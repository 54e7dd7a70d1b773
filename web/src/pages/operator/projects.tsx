// Every project of the installation: owner, plan, what it uses against its limits, and the
// operator's per-project overrides (PUT /api/admin/projects/{id}/limits replaces them all).
import { useState, type FormEvent } from 'react';
import { formatBytes } from '../../api';
import { ErrorBox, Link, Notice, Progress } from '../../components/ui';
import { useAllProjects, useSetProjectLimits, type PlanLimits, type ProjectRow } from '../../data/operator';
import { isLimit, usePlanLabel } from '../../data/plans';

const of = (used: string | number, limit: number | undefined, format = (n: number) => String(n)) =>
  isLimit(limit) ? `${used} of ${format(limit)}` : `${used} (no limit)`;

export function ProjectsPage() {
  const projects = useAllProjects();
  const [done, setDone] = useState<string>();
  if (projects.error) return <ErrorBox error={projects.error} />;
  if (!projects.data) return <Progress label="Loading the projects…" />;
  return (
    <>
      <h1>Projects</h1>
      <p className="muted">
        Limits follow the owner’s plan (change it on the <Link to="/admin/developers">Developers</Link> page);
        an override here sets one limit for one project.
      </p>
      {done && <Notice>{done}</Notice>}
      <div className="table-wrap" tabIndex={0} role="region" aria-label="Every project">
        <table>
          <thead>
            <tr>
              <th scope="col">Project</th>
              <th scope="col">Owner</th>
              <th scope="col">Collections</th>
              <th scope="col">Database</th>
              <th scope="col">Files</th>
              <th scope="col">Overrides</th>
            </tr>
          </thead>
          <tbody>
            {projects.data.map((p) => (
              <ProjectLine key={p.id} row={p} onDone={setDone} />
            ))}
          </tbody>
        </table>
      </div>
      {projects.data.length === 0 && <p>No project yet.</p>}
    </>
  );
}

function ProjectLine({ row, onDone }: { row: ProjectRow; onDone: (text: string) => void }) {
  const plan = usePlanLabel(row.plan);
  return (
    <tr>
      <th scope="row">
        <Link to={`/projects/${row.id}`}>{row.name}</Link>
      </th>
      <td>
        {row.owner?.email ?? 'no owner'}
        <div className="muted">{row.plan === 'operator' ? 'No plan limits' : plan}</div>
      </td>
      <td>{of(row.collections, row.limits.collectionsPerProject)}</td>
      <td>{of(formatBytes(row.usage.databaseUsed), row.limits.databaseBytes, formatBytes)}</td>
      <td>{of(formatBytes(row.usage.storageUsed), row.limits.storageBytes, formatBytes)}</td>
      <td>
        <Overrides row={row} onDone={onDone} />
      </td>
    </tr>
  );
}

function Overrides({ row, onDone }: { row: ProjectRow; onDone: (text: string) => void }) {
  const save = useSetProjectLimits();
  const names = Object.keys(row.limits).filter(
    (k) => typeof row.limits[k as keyof PlanLimits] === 'number',
  ) as (keyof PlanLimits)[];
  const [name, setName] = useState<keyof PlanLimits>('collectionsPerProject');
  const [value, setValue] = useState('');
  const overrides = row.overrides as Partial<Record<keyof PlanLimits, number | boolean>>;
  const put = (limits: Partial<PlanLimits>, text: string) =>
    save.mutate({ projectId: row.id, limits }, { onSuccess: () => onDone(text) });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    put(
      { ...overrides, [name]: Number(value) } as Partial<PlanLimits>,
      `${row.name}: ${name} is now ${value}.`,
    );
    setValue('');
  };
  const id = `override-${row.id}`;
  return (
    <details>
      <summary>
        {Object.keys(overrides).length
          ? `${Object.keys(overrides).length} override${Object.keys(overrides).length === 1 ? '' : 's'}`
          : 'None'}
        <span className="sr-only"> for {row.name}</span>
      </summary>
      <ul>
        {Object.entries(overrides).map(([key, v]) => (
          <li key={key}>
            {key}: {String(v)}{' '}
            <button
              type="button"
              className="link"
              onClick={() => {
                const { [key as keyof PlanLimits]: _gone, ...left } = overrides;
                put(left as Partial<PlanLimits>, `${row.name}: ${key} follows the plan again.`);
              }}
            >
              Remove<span className="sr-only"> {key}</span>
            </button>
          </li>
        ))}
      </ul>
      <form onSubmit={submit} noValidate>
        <div className="field">
          <label htmlFor={`${id}-name`}>Limit</label>
          <select
            id={`${id}-name`}
            value={name}
            onChange={(e) => setName(e.target.value as keyof PlanLimits)}
          >
            {names.map((n) => (
              <option key={n} value={n}>
                {n}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor={`${id}-value`}>Value</label>
          <input
            id={`${id}-value`}
            inputMode="numeric"
            value={value}
            onChange={(e) => setValue(e.target.value)}
          />
        </div>
        <ErrorBox error={save.error} />
        <button type="submit" disabled={save.isPending || !/^\d+$/.test(value)}>
          Set override
        </button>
      </form>
    </details>
  );
}
