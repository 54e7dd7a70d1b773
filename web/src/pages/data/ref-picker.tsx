// A Ref's value is chosen among the documents of its target collection (searched by id or by the
// text of its first String field), never typed: an id that names no document cannot be set.
import * as Popover from '@radix-ui/react-popover';
import { useQuery } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { errorText } from '../../api';
import { fetchDocuments, useCollectionDef } from '../../data/documents';
import { useRefLabel } from './ref-labels';

const HEX_ID = /^[0-9a-f]{24}$/i;
const escapeRegex = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

interface Props {
  /** The trigger's id, for a `<label htmlFor>`. */
  id?: string;
  projectId: string;
  target: string;
  value: string | null;
  label: string;
  onChange: (id: string | null) => void;
  /** The form's problem with the value: the trigger is marked invalid and described by it. */
  errorId?: string;
  /** A required field: said in the trigger's name (a button cannot carry aria-required). */
  required?: boolean;
  /** Opens at once (inline edit in the grid). */
  defaultOpen?: boolean;
  onClose?: () => void;
}

export function RefPicker(props: Props) {
  const { id, projectId, target, value, label, onChange, defaultOpen, onClose, errorId, required } = props;
  const [open, setOpen] = useState(!!defaultOpen);
  const [text, setText] = useState('');
  const searchId = useId();
  const def = useCollectionDef(projectId, target);
  const labelField = def.data?.fields.find((f) => f.type === 'String')?.name;
  const term = text.trim();
  const filters: Record<string, string> = {};
  if (HEX_ID.test(term)) filters._id = term.toLowerCase();
  else if (term && labelField) filters[`${labelField}_regex`] = escapeRegex(term);
  const results = useQuery({
    queryKey: ['ref-search', projectId, target, filters],
    enabled: open && (!!def.data || def.isError),
    queryFn: ({ signal }) =>
      fetchDocuments(
        { projectId, name: target, filters, sort: '-createdAt', limit: 10, trash: false },
        signal,
      ),
  });
  const setOpenState = (next: boolean) => {
    setOpen(next);
    if (!next) onClose?.();
  };
  const choose = (id: string | null) => {
    onChange(id);
    setOpenState(false);
  };
  const rows = results.data?.rows ?? [];
  // The picked document as the grid shows it (its display field), the id on hover; the id alone
  // while the label loads or when the document has none.
  const picked = useRefLabel(projectId, target, value);
  const shown = value ? (picked ?? value) : `Choose a ${target} document`;
  return (
    <Popover.Root open={open} onOpenChange={setOpenState}>
      <Popover.Trigger asChild>
        <button
          id={id}
          type="button"
          className={picked ? 'secondary ref-trigger' : 'secondary ref-trigger mono'}
          title={value ?? undefined}
          aria-label={`${label}${required ? ' (required)' : ''}: ${shown}`}
          aria-invalid={errorId ? true : undefined}
          aria-describedby={errorId}
        >
          {shown}
        </button>
      </Popover.Trigger>
      <Popover.Portal>
        <Popover.Content
          className="popover ref-picker"
          align="start"
          sideOffset={4}
          aria-label={`Choose a ${target} document for ${label}`}
        >
          <label htmlFor={searchId}>Search {target}</label>
          <input
            id={searchId}
            value={text}
            autoFocus
            placeholder={labelField ? `${labelField} or id` : 'id (24 hex characters)'}
            onChange={(e) => setText(e.target.value)}
            onKeyDown={(e) => e.stopPropagation()}
          />
          {results.isPending && results.fetchStatus !== 'idle' && <p className="muted">Searching…</p>}
          {results.isError && <p className="field-error">{errorText(results.error)}</p>}
          {results.isSuccess && rows.length === 0 && (
            <p className="muted">
              No {target} document matches{term ? ` “${term}”` : ''}.
            </p>
          )}
          <ul className="ref-results" aria-label={`Documents of ${target}`}>
            {rows.map((row) => (
              <li key={String(row._id)}>
                <button type="button" className="link" onClick={() => choose(String(row._id))}>
                  {labelField && row[labelField] !== undefined ? `${String(row[labelField])} · ` : ''}
                  <span className="mono">{String(row._id)}</span>
                </button>
              </li>
            ))}
          </ul>
          <div className="row">
            {value && (
              <button type="button" className="secondary" onClick={() => choose(null)}>
                Clear
              </button>
            )}
            <Popover.Close asChild>
              <button type="button" className="secondary">
                Cancel
              </button>
            </Popover.Close>
          </div>
        </Popover.Content>
      </Popover.Portal>
    </Popover.Root>
  );
}
