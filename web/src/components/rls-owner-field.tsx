// The RLS owner field of the collection editor, chosen among the fields that can hold an end
// user's id (String fields, Refs to `users`): nothing is preselected that the collection does not
// have (a default `userId` would be refused, naming a field the user never saw), and with no such
// field the editor offers to add an `ownerId` field.
import { FieldError } from './ui';

interface Props {
  value: string;
  /** Names of the collection's top-level String fields and Refs to users, as drafted. */
  choices: string[];
  onChange: (ownerField: string) => void;
  /** Adds a String field to hold the owner's id, and chooses it. */
  onAddField: () => void;
  /** The form's or the API's message about `rls.ownerField`. */
  error?: string;
}

export function RlsOwnerField({ value, choices, onChange, onAddField, error }: Props) {
  const chosen = choices.includes(value) ? value : '';
  const hint = choices.length
    ? chosen
      ? `End users own the documents whose “${chosen}” holds their id.`
      : 'Choose the field that holds the owning end user’s id.'
    : 'No field can hold an end user’s id: it takes a String field (or a Ref to users).';
  return (
    <div className="field owner-field">
      <label htmlFor="rls-owner">Owner field</label>
      <select
        id="rls-owner"
        value={chosen}
        aria-invalid={error ? true : undefined}
        aria-describedby="rls-owner-msg"
        onChange={(e) => onChange(e.target.value)}
        disabled={!choices.length}
      >
        <option value="" disabled>
          {choices.length ? 'Choose a field…' : 'No String field yet'}
        </option>
        {choices.map((o) => (
          <option key={o} value={o}>
            {o}
          </option>
        ))}
      </select>
      <FieldError message={error} id={error ? 'rls-owner-msg' : undefined} />
      {/* With nothing to choose, what it takes is said even beside the error. */}
      {(!error || !choices.length) && (
        <small className="hint" id={error ? undefined : 'rls-owner-msg'}>
          {hint}
        </small>
      )}
      {!choices.length && (
        <button type="button" className="secondary" onClick={onAddField}>
          Add an ownerId field
        </button>
      )}
    </div>
  );
}
