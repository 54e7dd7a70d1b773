// The filter rows of the grid (the data API's suffixes) and the sort and page size. Filters apply
// on "Apply"; each change becomes the URL's state (see url-state.ts).
import { useState, type FormEvent } from 'react';

const OPERATORS = [
  ['', 'equals'],
  ['_ne', 'not equal'],
  ['_gt', 'greater than'],
  ['_gte', 'at least'],
  ['_lt', 'less than'],
  ['_lte', 'at most'],
  ['_in', 'one of (comma-separated)'],
  ['_regex', 'matches (regex)'],
  ['_exists', 'exists (true/false)'],
] as const;
const SUFFIXES = OPERATORS.map(([s]) => s).filter(Boolean);

interface Filter {
  field: string;
  op: string;
  value: string;
}

/** `price_gte` → field `price`, op `_gte`. */
function split(key: string, value: string): Filter {
  const op = SUFFIXES.find((s) => key.endsWith(s)) ?? '';
  return { field: op ? key.slice(0, -op.length) : key, op, value };
}

interface Props {
  fieldNames: string[];
  filters: Record<string, string>;
  sort: string;
  limit: number;
  limits: number[];
  onApply: (filters: Record<string, string>) => void;
  onSort: (sort: string) => void;
  onLimit: (limit: number) => void;
}

export function FiltersForm({ fieldNames, filters, sort, limit, limits, onApply, onSort, onLimit }: Props) {
  const [draft, setDraft] = useState<Filter[]>(() => Object.entries(filters).map(([k, v]) => split(k, v)));
  const set = (i: number, patch: Partial<Filter>) =>
    setDraft(draft.map((x, j) => (j === i ? { ...x, ...patch } : x)));
  const apply = (e: FormEvent) => {
    e.preventDefault();
    onApply(
      Object.fromEntries(draft.filter((f) => f.field.trim()).map((f) => [f.field.trim() + f.op, f.value])),
    );
  };
  const sortable = ['createdAt', 'updatedAt', '_id', ...fieldNames];
  if (!sortable.includes(sort.replace(/^-/, ''))) sortable.push(sort.replace(/^-/, ''));
  return (
    <form className="filters card" onSubmit={apply} aria-label="Filters and sort">
      {draft.map((f, i) => (
        <div className="row" key={i}>
          <label className="sr-only" htmlFor={`flt-field-${i}`}>
            Field
          </label>
          <input
            id={`flt-field-${i}`}
            list="field-names"
            placeholder="field"
            value={f.field}
            onChange={(e) => set(i, { field: e.target.value })}
          />
          <label className="sr-only" htmlFor={`flt-op-${i}`}>
            Operator
          </label>
          <select id={`flt-op-${i}`} value={f.op} onChange={(e) => set(i, { op: e.target.value })}>
            {OPERATORS.map(([suffix, label]) => (
              <option key={suffix} value={suffix}>
                {label}
              </option>
            ))}
          </select>
          <label className="sr-only" htmlFor={`flt-value-${i}`}>
            Value
          </label>
          <input
            id={`flt-value-${i}`}
            placeholder="value"
            value={f.value}
            onChange={(e) => set(i, { value: e.target.value })}
          />
          <button
            type="button"
            className="secondary"
            onClick={() => setDraft(draft.filter((_, j) => j !== i))}
            aria-label={`Remove filter ${i + 1}`}
          >
            ✕
          </button>
        </div>
      ))}
      <datalist id="field-names">
        {['_id', 'createdAt', 'updatedAt', ...fieldNames].map((n) => (
          <option key={n} value={n} />
        ))}
      </datalist>
      <div className="row">
        <button
          type="button"
          className="secondary"
          onClick={() => setDraft([...draft, { field: '', op: '', value: '' }])}
        >
          Add filter
        </button>
        <button type="submit">Apply filters</button>
        <label htmlFor="sort">Sort</label>
        <select id="sort" value={sort} onChange={(e) => onSort(e.target.value)}>
          {sortable.flatMap((n) => [
            <option key={`-${n}`} value={`-${n}`}>
              {n} ↓
            </option>,
            <option key={n} value={n}>
              {n} ↑
            </option>,
          ])}
        </select>
        <label htmlFor="limit">Per page</label>
        <select id="limit" value={limit} onChange={(e) => onLimit(Number(e.target.value))}>
          {limits.map((n) => (
            <option key={n}>{n}</option>
          ))}
        </select>
      </div>
    </form>
  );
}
