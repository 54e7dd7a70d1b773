// The column picker: show or hide each column and move it left or right; kept per collection.
import * as Popover from '@radix-ui/react-popover';
import type { ColumnPrefs } from './columns';

interface Props {
  ordered: string[];
  prefs: ColumnPrefs;
  onChange: (prefs: ColumnPrefs) => void;
}

export function ColumnPicker({ ordered, prefs, onChange }: Props) {
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
        </Popover.Content>
      </Popover.Portal>
    </Popover.Root>
  );
}
