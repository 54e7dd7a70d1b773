// The inline editor of one grid cell, by the field's type: a text, number or date input, a
// true/false choice, JSON for Objects, Arrays and undeclared keys (checked before sending), and
// the Ref picker. Enter saves (Ctrl+Enter in JSON), Escape cancels; the message stays under the
// editor until the text changes.
import { useState, type KeyboardEvent } from 'react';
import type { FieldDef } from '../../api';
import { parseText, toText, typeOf } from './cell-value';
import { RefPicker } from './ref-picker';

interface Props {
  projectId: string;
  column: string;
  field: FieldDef | undefined;
  value: unknown;
  /** The API's refusal of the last save. */
  serverError?: string;
  busy: boolean;
  onSave: (value: unknown) => void;
  onCancel: () => void;
}

export function CellEditor({ projectId, column, field, value, serverError, busy, onSave, onCancel }: Props) {
  const type = typeOf(field);
  const [text, setText] = useState(() => toText(type, value));
  const [error, setError] = useState<string | undefined>(undefined);
  const id = `edit-${column}`;
  const message = error ?? serverError;

  if (type === 'Ref' && field?.ref) {
    return (
      <RefPicker
        projectId={projectId}
        target={field.ref}
        value={typeof value === 'string' ? value : null}
        label={column}
        defaultOpen
        onChange={(next) => onSave(next)}
        onClose={onCancel}
      />
    );
  }

  const multiline = type === 'Object' || type === 'Array' || type === 'Json';
  const save = () => {
    const parsed = parseText(type, text);
    if ('error' in parsed) setError(parsed.error);
    else onSave(parsed.value);
  };
  const onKey = (e: KeyboardEvent) => {
    e.stopPropagation();
    if (e.key === 'Escape') onCancel();
    else if (e.key === 'Enter' && (!multiline || e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      save();
    }
  };
  const change = (next: string) => {
    setText(next);
    setError(undefined);
  };
  const common = {
    id,
    'aria-label': `${column} (${type === 'Json' ? 'JSON' : type})`,
    'aria-invalid': message ? true : undefined,
    'aria-describedby': message ? `${id}-err` : undefined,
    autoFocus: true,
    disabled: busy,
    onKeyDown: onKey,
  };
  return (
    <div className="cell-editor">
      {type === 'Boolean' ? (
        <select {...common} value={text} onChange={(e) => change(e.target.value)}>
          <option value="">(not set)</option>
          <option value="true">true</option>
          <option value="false">false</option>
        </select>
      ) : multiline ? (
        <textarea
          {...common}
          className="mono"
          rows={4}
          value={text}
          onChange={(e) => change(e.target.value)}
        />
      ) : (
        <input
          {...common}
          type={type === 'Number' ? 'number' : 'text'}
          step="any"
          placeholder={type === 'Date' ? '2026-01-31T12:00:00Z' : undefined}
          value={text}
          onChange={(e) => change(e.target.value)}
        />
      )}
      {message && (
        <small className="field-error" id={`${id}-err`} role="alert">
          {message}
        </small>
      )}
      <div className="row">
        <button type="button" onClick={save} disabled={busy}>
          {busy ? 'Saving…' : 'Save'}
        </button>
        <button type="button" className="secondary" onClick={onCancel} disabled={busy}>
          Cancel
        </button>
      </div>
      {multiline && <small className="hint">Ctrl+Enter saves, Escape cancels.</small>}
    </div>
  );
}
