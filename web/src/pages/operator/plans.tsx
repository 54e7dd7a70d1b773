// The plans in force, every limit of each (`unlimited` where there is none), and where they come
// from. Without a plan file the operator edits the limits and the plan of new accounts here and
// the installation stores them (PUT /api/admin/plans); with PLANS_FILE the page is read-only.
import { useState, type FormEvent } from 'react';
import { ErrorBox, Notice, Progress } from '../../components/ui';
import { usePlans, useSavePlans, type InstallationPlans, type PlansEdit } from '../../data/plans';
import { editable, parsed, shown } from './plan-values';

type Limits = Record<string, number | boolean>;
type Plan = InstallationPlans['plans'][number];
const limitsOf = (plan: Plan) => plan.limits as Limits;

export function PlansPage() {
  const plans = usePlans();
  // Kept here: a save replaces the plans in force, which starts a fresh form.
  const [saved, setSaved] = useState(false);
  if (plans.error) return <ErrorBox error={plans.error} />;
  if (!plans.data) return <Progress label="Loading the plans…" />;
  const data = plans.data;
  return (
    <>
      <h1>Plans</h1>
      {data.plansFile ? (
        <>
          <p>
            Read from the file <code>{data.plansFile}</code> (<code>PLANS_FILE</code>) at start: edit the file
            and restart to change them. New accounts get <strong>{data.defaultPlan}</strong>. Your own account
            has no plan limits.
          </p>
          <ReadOnlyTable data={data} />
        </>
      ) : (
        // Keyed by the plans in force: a save or another operator's change starts a fresh form.
        <PlansForm key={JSON.stringify([data.plans, data.defaultPlan])} data={data} onSaved={setSaved} />
      )}
      {saved && <Notice>Plans saved.</Notice>}
    </>
  );
}

function ReadOnlyTable({ data }: { data: InstallationPlans }) {
  const all = [...data.plans, data.operator];
  return (
    <div className="table-wrap" tabIndex={0} role="region" aria-label="Limits of each plan">
      <table>
        <thead>
          <tr>
            <th scope="col">Limit</th>
            {all.map((p) => (
              <th scope="col" key={p.name}>
                {p.label}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {Object.keys(data.operator.limits).map((n) => (
            <tr key={n}>
              <th scope="row">{n}</th>
              {all.map((p) => (
                <td key={p.name}>{shown(n, limitsOf(p)[n]!)}</td>
              ))}
            </tr>
          ))}
          <Backups plans={all} />
        </tbody>
      </table>
    </div>
  );
}

function Backups({ plans }: { plans: Plan[] }) {
  return (
    <tr>
      <th scope="row">backups kept, taken</th>
      {plans.map((p) => (
        <td key={p.name}>
          {p.backups.kept}, every {p.backups.every}
        </td>
      ))}
    </tr>
  );
}

const cellId = (plan: string, limit: string) => `plan-${plan}-${limit}`;

function PlansForm({ data, onSaved }: { data: InstallationPlans; onSaved: (saved: boolean) => void }) {
  const save = useSavePlans();
  const names = Object.keys(data.operator.limits);
  const [draft, setDraft] = useState<Record<string, Record<string, string>>>(() =>
    Object.fromEntries(
      data.plans.map((p) => [
        p.name,
        Object.fromEntries(names.map((n) => [n, editable(n, limitsOf(p)[n]!)])),
      ]),
    ),
  );
  const [defaultPlan, setDefaultPlan] = useState(data.defaultPlan);
  const [problems, setProblems] = useState<Record<string, string>>({});

  const set = (plan: string, limit: string, value: string) => {
    onSaved(false);
    setDraft((d) => ({ ...d, [plan]: { ...d[plan], [limit]: value } }));
  };

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const found: Record<string, string> = {};
    const edit: Record<string, { limits: Record<string, number | boolean | 'unlimited'> }> = {};
    for (const plan of data.plans) {
      const limits: Record<string, number | boolean | 'unlimited'> = {};
      for (const n of names) {
        const value = parsed(n, draft[plan.name]![n]!, typeof limitsOf(plan)[n] === 'boolean');
        if (value instanceof Error) found[cellId(plan.name, n)] = `${plan.label}: ${n} ${value.message}`;
        else limits[n] = value;
      }
      edit[plan.name] = { limits };
    }
    setProblems(found);
    if (Object.keys(found).length) {
      document.getElementById(Object.keys(found)[0]!)?.focus();
      return;
    }
    const body = { plans: edit, ...(data.defaultPlanSetting ? {} : { defaultPlan }) } as PlansEdit;
    save.mutate(body, { onSuccess: () => onSaved(true) });
  };

  return (
    <form onSubmit={submit} noValidate aria-label="Plans">
      <p>
        The spec’s Free and Pro, with the limits set here: the installation stores them, this process applies
        a save at once and every other (public, dashboard, worker) within 5 seconds. A count or size is a
        number (a size may say KB, MB or GB) or <code>unlimited</code>. To define plans of your own, name a
        plan file in <code>PLANS_FILE</code> and restart (docs/plans.md): the file then wins. Your own account
        has no plan limits.
      </p>
      <div className="field">
        <label htmlFor="default-plan">Plan of new accounts</label>
        <select
          id="default-plan"
          value={defaultPlan}
          disabled={data.defaultPlanSetting}
          aria-describedby={data.defaultPlanSetting ? 'default-plan-hint' : undefined}
          onChange={(e) => {
            onSaved(false);
            setDefaultPlan(e.target.value);
          }}
        >
          {data.plans.map((p) => (
            <option key={p.name} value={p.name}>
              {p.label}
            </option>
          ))}
        </select>
        {data.defaultPlanSetting && (
          <small className="hint" id="default-plan-hint">
            Set by <code>DEFAULT_PLAN</code>: unset it and restart to choose here.
          </small>
        )}
      </div>
      <div className="table-wrap" tabIndex={0} role="region" aria-label="Limits of each plan">
        <table>
          <thead>
            <tr>
              <th scope="col">Limit</th>
              {data.plans.map((p) => (
                <th scope="col" key={p.name}>
                  {p.label}
                </th>
              ))}
              <th scope="col">{data.operator.label}</th>
            </tr>
          </thead>
          <tbody>
            {names.map((n) => (
              <tr key={n}>
                <th scope="row">{n}</th>
                {data.plans.map((p) => (
                  <td key={p.name}>
                    <LimitInput
                      id={cellId(p.name, n)}
                      label={`${p.label}: ${n}`}
                      feature={typeof limitsOf(p)[n] === 'boolean'}
                      value={draft[p.name]![n]!}
                      problem={problems[cellId(p.name, n)]}
                      onChange={(value) => set(p.name, n, value)}
                    />
                  </td>
                ))}
                <td>{shown(n, limitsOf(data.operator)[n]!)}</td>
              </tr>
            ))}
            <Backups plans={[...data.plans, data.operator]} />
          </tbody>
        </table>
      </div>
      {Object.keys(problems).length > 0 && (
        <div className="error" role="alert">
          <ul>
            {Object.entries(problems).map(([id, text]) => (
              <li key={id} id={`${id}-err`}>
                {text}
              </li>
            ))}
          </ul>
        </div>
      )}
      <ErrorBox error={save.error} />
      <button type="submit" disabled={save.isPending}>
        {save.isPending ? 'Saving…' : 'Save plans'}
      </button>
    </form>
  );
}

function LimitInput(props: {
  id: string;
  label: string;
  feature: boolean;
  value: string;
  problem?: string;
  onChange: (value: string) => void;
}) {
  const { id, label, feature, value, problem, onChange } = props;
  const shared = {
    id,
    'aria-label': label,
    'aria-invalid': problem ? true : undefined,
    'aria-describedby': problem ? `${id}-err` : undefined,
  };
  if (feature)
    return (
      <select {...shared} value={value} onChange={(e) => onChange(e.target.value)}>
        <option value="yes">yes</option>
        <option value="no">no</option>
      </select>
    );
  return <input {...shared} size={10} value={value} onChange={(e) => onChange(e.target.value)} />;
}
