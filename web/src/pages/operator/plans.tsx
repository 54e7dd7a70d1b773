// The plans in force, every limit of each (`unlimited` where there is none), their scheduled
// backups, and where they come from. Without a plan file the operator edits the limits, the
// backups and the plan of new accounts here and the installation stores them (PUT
// /api/admin/plans), checked first with the API's own schema; with PLANS_FILE the page is read-only.
import { useState, type FormEvent } from 'react';
import { ApiFailure } from '../../api';
import { ErrorBox, Notice, Progress } from '../../components/ui';
import { durationText } from '../../data/indexes';
import { usePlans, useSavePlans, type InstallationPlans, type PlansEdit } from '../../data/plans';
import { problemsOf } from '../../forms/validate';
import { BackupInput, LimitInput } from './plan-inputs';
import { BACKUPS, backupKey, cellId, cellOf, editable, parsed, shown } from './plan-values';

type Limits = Record<string, number | boolean>;
type Plan = InstallationPlans['plans'][number];
type Backups = Plan['backups'];
const limitsOf = (plan: Plan) => plan.limits as Limits;
/** How long a save takes to reach every process (PLANS_REFRESH_MS): "5 seconds", "500 ms". */
const refreshWords = (ms: number) => (ms % 1000 === 0 ? durationText(ms / 1000) : `${ms} ms`);

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
          <BackupRows plans={all} />
        </tbody>
      </table>
    </div>
  );
}

function BackupRows({ plans }: { plans: Plan[] }) {
  return BACKUPS.map((key) => (
    <tr key={key}>
      <th scope="row">backups.{key}</th>
      {plans.map((p) => (
        <td key={p.name}>{String(p.backups[key])}</td>
      ))}
    </tr>
  ));
}

/** Each input's plan and field (`Free`, `backups.kept`) by id, to name it in a problem. */
function inputNames(plans: readonly Plan[], names: readonly string[]) {
  const out: Record<string, [plan: string, field: string]> = {};
  for (const p of plans) {
    for (const n of names) out[cellId(p.name, n)] = [p.label, n];
    for (const key of BACKUPS) out[cellId(p.name, backupKey(key))] = [p.label, `backups.${key}`];
  }
  return out;
}

function PlansForm({ data, onSaved }: { data: InstallationPlans; onSaved: (saved: boolean) => void }) {
  const save = useSavePlans();
  const names = Object.keys(data.operator.limits);
  const [draft, setDraft] = useState<Record<string, Record<string, string>>>(() =>
    Object.fromEntries(
      data.plans.map((p) => [
        p.name,
        {
          ...Object.fromEntries(names.map((n) => [n, editable(n, limitsOf(p)[n]!)])),
          ...Object.fromEntries(BACKUPS.map((key) => [backupKey(key), String(p.backups[key])])),
        },
      ]),
    ),
  );
  const [defaultPlan, setDefaultPlan] = useState(data.defaultPlan);
  const [problems, setProblems] = useState<Record<string, string>>({});
  const inputs = inputNames(data.plans, names);
  /** A problem of a body path (the schema's or the API's words) at its input: "Free: backups.kept: …". */
  const place = (found: Record<string, string>, path: string, message: string) => {
    const cell = cellOf(path) ?? 'plans-form';
    const [plan, field] = inputs[cell] ?? [];
    found[cell] ??= !plan || message.startsWith(`${plan}:`) ? message : `${plan}: ${field}: ${message}`;
  };

  const set = (plan: string, limit: string, value: string) => {
    onSaved(false);
    setDraft((d) => ({ ...d, [plan]: { ...d[plan], [limit]: value } }));
  };

  /** Shows the problems at their inputs, the first focused; true when there are any. */
  const show = (found: Record<string, string>) => {
    setProblems(found);
    const first = Object.keys(found)[0];
    if (first) document.getElementById(first)?.focus();
    return first !== undefined;
  };

  const submit = (e: FormEvent) => {
    e.preventDefault();
    const found: Record<string, string> = {};
    const edit: NonNullable<PlansEdit['plans']> = {};
    for (const plan of data.plans) {
      const values = draft[plan.name]!;
      const limits: Record<string, number | boolean | 'unlimited'> = {};
      for (const n of names) {
        const value = parsed(n, values[n]!, typeof limitsOf(plan)[n] === 'boolean');
        if (value instanceof Error) found[cellId(plan.name, n)] = `${plan.label}: ${n} ${value.message}`;
        else limits[n] = value;
      }
      // Not a number reads as NaN: the API's schema below names it ("Enter a number.").
      const kept = values[backupKey('kept')]!.trim();
      const backups = {
        kept: kept === '' ? Number.NaN : Number(kept),
        every: values[backupKey('every')] as Backups['every'],
      };
      edit[plan.name] = { limits: limits as NonNullable<PlansEdit['plans']>[string]['limits'], backups };
    }
    if (show(found)) return;
    const body: PlansEdit = { plans: edit, ...(data.defaultPlanSetting ? {} : { defaultPlan }) };
    // The API's own rules (its request schema): a backup count from 1, a log size's bounds.
    for (const { path, message } of problemsOf('updatePlans', body)) place(found, path, message);
    if (show(found)) return;
    save.mutate(body, {
      onSuccess: () => onSaved(true),
      // The API's refusal of a field (a rule its schema cannot state) goes to that field's input.
      onError: (error) => {
        const refused: Record<string, string> = {};
        for (const { path, message } of error instanceof ApiFailure ? error.details : [])
          if (cellOf(path)) place(refused, path, message);
        show(refused);
      },
    });
  };
  const refused = save.error instanceof ApiFailure ? save.error : undefined;
  // A refusal whose every field is shown at its input needs no second message.
  const unplaced = !refused?.details.length || refused.details.some((d) => !cellOf(d.path));

  return (
    <form onSubmit={submit} noValidate aria-label="Plans">
      <p>
        The spec’s Free and Pro, with the limits and backups set here: the installation stores them, this
        process applies a save at once and every other (public, dashboard, worker) within{' '}
        {refreshWords(data.refreshMs)}. A count or size is a number (a size may say KB, MB or GB) or{' '}
        <code>unlimited</code>; <code>backups.kept</code> is how many backups of each kind (made on request,
        scheduled) a project keeps, <code>backups.every</code> how often the worker takes a scheduled one. To
        define plans of your own, name a plan file in <code>PLANS_FILE</code> and restart (docs/plans.md): the
        file then wins. Your own account has no plan limits.
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
            {BACKUPS.map((key) => (
              <tr key={key}>
                <th scope="row">backups.{key}</th>
                {data.plans.map((p) => (
                  <td key={p.name}>
                    <BackupInput
                      id={cellId(p.name, backupKey(key))}
                      label={`${p.label}: backups.${key}`}
                      name={key}
                      value={draft[p.name]![backupKey(key)]!}
                      problem={problems[cellId(p.name, backupKey(key))]}
                      onChange={(value) => set(p.name, backupKey(key), value)}
                    />
                  </td>
                ))}
                <td>{String(data.operator.backups[key])}</td>
              </tr>
            ))}
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
      <ErrorBox error={unplaced ? save.error : null} />
      <button type="submit" disabled={save.isPending}>
        {save.isPending ? 'Saving…' : 'Save plans'}
      </button>
    </form>
  );
}
