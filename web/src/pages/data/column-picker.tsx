// The column picker: show or hide each column and move it left or right; kept per collection.
// It also says which field of a Ref's target collection names its documents in the grid.
import * as Popover from '@radix-ui/react-popover';
import { useQueries } from '@tanstack/react-query';
import type { Collection } from '../../api';
import { collectionDefQuery } from '../../data/documents';
import type { ColumnPrefs } from './columns';

interface Props {
  ordered: string[];
  prefs: ColumnPrefs;
  onChange: (prefs: ColumnPrefs) => void;
  projectId: string;
  def: Collection | undefined;
  displayFields: Record<string, string>;
  onDisplay: (target: string, field: string) => void;
}

export function ColumnPicker({ ordered, prefs, onChange, projectId, def, displayFields, onDisplay }: Props) {
  const targets = [
    ...new Set((def?.fields ?? []).filter((f) => f.type === 'Ref' && f.ref).map((f) => f.ref!)),
  ];
  const targetDefs = useQueries({ queries: targets.map((t) => collectionDefQuery(projectId, t)) });
  const toggle = (column: string, shown: boolean) =>
    onChange({
      order: ordered,
      hidden: shown ? prefs.hidden.filter((c) => c !== column) : [...prefs.hidden, column],
    });
  const shift = (index: number, by: number) => {
    const order = [...ordered];
    const [column] = order.splice(index, 1);
    order.splice(index + by, 0, column!);
    onChange({ ...prefs, order });
  };
  return (
    <Popover.Root>
      <Popover.Trigger asChild>
        <button type="button" className="secondary">
          Columns ({ordered.length - prefs.hidden.filter((c) => ordered.includes(c)).length} of{' '}
          {ordered.length})
        </button>
      </Popover.Trigger>
      <Popover.Portal>
        <Popover.Content className="popover column-picker" align="end" sideOffset={4} aria-label="Columns">
          <p className="muted">Columns shown, in order</p>
          <ul>
            {ordered.map((column, i) => (
              <li key={column} className="row">
                <label>
                  <input
                    type="checkbox"
                    checked={!prefs.hidden.includes(column)}
                    onChange={(e) => toggle(column, e.target.checked)}
                  />{' '}
                  {column}
                </label>
                <button
                  type="button"
                  className="secondary small"
                  disabled={i === 0}
                  onClick={() => shift(i, -1)}
                  aria-label={`Move ${column} left`}
                >
                  ↑
                </button>
                <button
                  type="button"
                  className="secondary small"
                  disabled={i === ordered.length - 1}
                  onClick={() => shift(i, 1)}
                  aria-label={`Move ${column} right`}
                >
                  ↓
                </button>
              </li>
            ))}
          </ul>
          <button type="button" className="secondary" onClick={() => onChange({ order: [], hidden: [] })}>
            Reset columns
          </button>
          {targets.map((target, i) => {
            const strings = (targetDefs[i]?.data?.fields ?? []).filter((f) => f.type === 'String');
            if (!strings.length) return null;
            const id = `ref-display-${target}`;
            return (
              <div className="field" key={target}>
                <label htmlFor={id}>Show {target} documents by</label>
                <select
                  id={id}
                  value={displayFields[target] ?? strings[0]!.name}
                  onChange={(e) => onDisplay(target, e.target.value)}
                >
                  {strings.map((f) => (
                    <option key={f.name}>{f.name}</option>
                  ))}
                </select>
              </div>
            );
          })}
        </Popover.Content>
      </Popover.Portal>
    </Popover.Root>
  );
}
