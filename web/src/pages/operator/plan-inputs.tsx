// The inputs of the Plans page's form: a limit (a count, a size or a feature) and a plan's
// scheduled backups (how many are kept, how often one is taken), each named for assistive
// technology and tied to its problem in the list below the table.
import type { InstallationPlans } from '../../data/plans';
import type { BackupName } from './plan-values';

/** The periods of a scheduled backup: every value of the API's enum (the type keeps them all). */
const EVERY: Record<InstallationPlans['plans'][number]['backups']['every'], true> = { day: true, hour: true };

/** An input's name, and its problem (listed below the table under `${id}-err`) when it has one. */
const inputProps = (id: string, label: string, problem: string | undefined) => ({
  id,
  'aria-label': label,
  'aria-invalid': problem ? true : undefined,
  'aria-describedby': problem ? `${id}-err` : undefined,
});

/** What every input of the form takes: its id and name, its text, its problem, its change. */
interface InputProps {
  id: string;
  label: string;
  value: string;
  problem?: string;
  onChange: (value: string) => void;
}

export function LimitInput(props: InputProps & { feature: boolean }) {
  const { id, label, feature, value, problem, onChange } = props;
  const shared = inputProps(id, label, problem);
  if (feature)
    return (
      <select {...shared} value={value} onChange={(e) => onChange(e.target.value)}>
        <option value="yes">yes</option>
        <option value="no">no</option>
      </select>
    );
  return <input {...shared} size={10} value={value} onChange={(e) => onChange(e.target.value)} />;
}

/** A plan's backup count (a number from 1) or period (day or hour). */
export function BackupInput(props: InputProps & { name: BackupName }) {
  const { id, label, name, value, problem, onChange } = props;
  const shared = inputProps(id, label, problem);
  if (name === 'every')
    return (
      <select {...shared} value={value} onChange={(e) => onChange(e.target.value)}>
        {Object.keys(EVERY).map((every) => (
          <option key={every} value={every}>
            {every}
          </option>
        ))}
      </select>
    );
  return (
    <input
      {...shared}
      type="number"
      className="plan-count"
      min={1}
      step={1}
      inputMode="numeric"
      value={value}
      onChange={(e) => onChange(e.target.value)}
    />
  );
}
