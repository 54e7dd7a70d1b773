// The RLS owner field of the collection editor, chosen among the collection's String and Ref
// fields: nothing is preselected that the collection does not have (a default `userId` would be
// refused, or worse, silently name no field), and with no such field the editor says what to add.
import { FieldError } from './ui';

interface Props {
  value: string;
  /** Names of the collection's top-level String and Ref fields, as drafted. */
  choices: string[];
  onChange: (ownerField: string) => void;
  /** The API's message about `rls.ownerField`. */
  error?: string;
}

export function RlsOwnerField({ value, choices, onChange, error }: Props) {
  const chosen = choices.includes(value) ? value : '';
  const hint = choices.length
    ? chosen
      ? `End users own the documents whose “${chosen}” holds their id.`
      : 'Choose the field that holds the owning end user’s id.'
    : 'Add a String or Ref field to hold the owning end user’s id (such as ownerId), then choose it here.';
  // The API's refusal, or the missing choice, is an error; a valid choice is explained.
  const problem = error ?? (chosen ? undefined : hint);
  return (
    <div className="field">
      <label htmlFor="rls-owner">Owner field (String or Ref)</label>
      <select
        id="rls-owner"
        value={chosen}
        aria-invalid={problem ? true : undefined}
        aria-describedby="rls-owner-msg"
        onChange={(e) => onChange(e.target.value)}
        disabled={!choices.length}
      >
        <option value="" disabled>
          {choices.length ? 'Choose a field…' : 'No String or Ref field yet'}
        </option>
        {choices.map((o) => (
          <option key={o} value={o}>
            {o}
          </option>
        ))}
      </select>
      {problem ? (
        <FieldError message={problem} id="rls-owner-msg" />
      ) : (
        <small className="hint" id="rls-owner-msg">
          {hint}
        </small>
      )}
    </div>
  );
}
