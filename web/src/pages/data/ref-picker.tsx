// A Ref's value is chosen among the documents of its target collection (searched by id or by the
// text of its first String field), never typed: an id that names no document cannot be set.
import * as Popover from '@radix-ui/react-popover';
import { useQuery } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { errorText } from '../../api';
import { fetchDocuments, useCollectionDef } from '../../data/documents';

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
  /** Opens at once (inline edit in the grid). */
  defaultOpen?: boolean;
  onClose?: () => void;
}

export function RefPicker({ id, projectId, target, value, label, onChange, defaultOpen, onClose }: Props) {
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
  return (
    <Popover.Root open={open} onOpenChange={setOpenState}>
      <Popover.Trigger asChild>
        <button
          id={id}
          type="button"
          className="secondary ref-trigger mono"
          aria-label={`${label}: ${value ?? `Choose a ${target} document`}`}
        >
          {value ?? `Choose a ${target} document`}
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
