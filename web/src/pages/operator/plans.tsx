// The plans in force, every limit of each (`unlimited` where there is none), and where they come
// from: the spec's Free and Pro, or the plan file (PLANS_FILE), read at start.
import { formatBytes } from '../../api';
import { ErrorBox, Progress } from '../../components/ui';
import { isLimit, usePlans } from '../../data/plans';

const BYTES = /Bytes$/;

function shown(name: string, value: number | boolean) {
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (!isLimit(value)) return 'unlimited';
  return BYTES.test(name) ? formatBytes(value) : value.toLocaleString('en');
}

export function PlansPage() {
  const plans = usePlans();
  if (plans.error) return <ErrorBox error={plans.error} />;
  if (!plans.data) return <Progress label="Loading the plans…" />;
  const all = [...plans.data.plans, plans.data.operator];
  const names = Object.keys(plans.data.operator.limits);
  return (
    <>
      <h1>Plans</h1>
      <p>
        {plans.data.plansFile ? (
          <>
            Read from the file <code>{plans.data.plansFile}</code> (<code>PLANS_FILE</code>) at start: edit
            the file and restart to change them.
          </>
        ) : (
          <>
            The spec’s Free and Pro. To define your own, name a plan file in <code>PLANS_FILE</code> and
            restart (docs/plans.md).
          </>
        )}{' '}
        New accounts get <strong>{plans.data.defaultPlan}</strong> (<code>DEFAULT_PLAN</code>). Your own
        account has no plan limits.
      </p>
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
            {names.map((n) => (
              <tr key={n}>
                <th scope="row">{n}</th>
                {all.map((p) => (
                  <td key={p.name}>{shown(n, (p.limits as Record<string, number | boolean>)[n]!)}</td>
                ))}
              </tr>
            ))}
            <tr>
              <th scope="row">backups kept, taken</th>
              {all.map((p) => (
                <td key={p.name}>
                  {p.backups.kept}, every {p.backups.every}
                </td>
              ))}
            </tr>
          </tbody>
        </table>
      </div>
    </>
  );
}
