// The documents of one page as a grid: TanStack Table holds the rows and their selection,
// TanStack Virtual renders only the rows in view (a 1000-row page stays light), and this file
// supplies the cells: click-to-sort headers, inline editors per type, keyboard navigation (arrow
// keys, Home/End, Enter to edit or open, Escape to cancel, Space to select).
import { rowSelectionFeature, tableFeatures, useTable, type RowSelectionState } from '@tanstack/react-table';
import { useVirtualizer } from '@tanstack/react-virtual';
import {
  useEffect,
  useMemo,
  useRef,
  useState,
  type Dispatch,
  type KeyboardEvent,
  type SetStateAction,
} from 'react';
import { errorText, type ApiDocument, type Collection } from '../../api';
import { navigate } from '../../router';
import { CellEditor } from './cell-editor';
import { preview, typeOf } from './cell-value';
import { fieldOf } from './columns';
import { JsonView } from './json-view';
import { RefLink, useRefLabels } from './ref-labels';

const features = tableFeatures({ rowSelectionFeature });
const UNSORTABLE = new Set(['Object', 'Array']);
const ROW_HEIGHT = 37;

interface Props {
  projectId: string;
  name: string;
  def: Collection | undefined;
  rows: ApiDocument[];
  columns: string[];
  sort: string;
  trash: boolean;
  selection: RowSelectionState;
  onSelection: Dispatch<SetStateAction<RowSelectionState>>;
  onSort: (sort: string) => void;
  onSave: (id: string, column: string, value: unknown) => Promise<void>;
  /** The display field chosen per Ref target (none: its first String field). */
  displayFields: Record<string, string>;
}

interface Editing {
  rowId: string;
  column: string;
  error?: string;
  busy: boolean;
}

const sortState = (sort: string, column: string) =>
  sort === column ? 'ascending' : sort === `-${column}` ? 'descending' : undefined;

export function DocumentGrid(props: Props) {
  const { projectId, name, def, rows, columns, sort, trash } = props;
  const table = useTable({
    features,
    columns: useMemo(() => [{ id: '_id', accessorKey: '_id' }], []),
    data: rows,
    getRowId: (row) => String(row._id),
    state: { rowSelection: props.selection },
    // The state setter itself: an updater applied to the latest selection, not a render's copy.
    onRowSelectionChange: props.onSelection,
    enableRowSelection: true,
  });
  const modelRows = table.getRowModel().rows;
  const refLabels = useRefLabels(projectId, def, rows, props.displayFields);
  const scrollRef = useRef<HTMLDivElement>(null);
  const virtualizer = useVirtualizer({
    count: modelRows.length,
    getScrollElement: () => scrollRef.current,
    estimateSize: () => ROW_HEIGHT,
    getItemKey: (index) => modelRows[index]!.id,
    overscan: 12,
  });
  // Columns of the grid, left to right: selection, id, the fields, the row's actions.
  const gridColumns = ['$select', '_id', ...columns, '$actions'];
  const [active, setActive] = useState({ r: 0, c: 1 });
  const [editing, setEditing] = useState<Editing | undefined>(undefined);
  const [json, setJson] = useState<ApiDocument | undefined>(undefined);
  const moved = useRef(false);

  // The focus follows the active cell after a keyboard move, once the row is rendered.
  useEffect(() => {
    if (!moved.current) return;
    moved.current = false;
    scrollRef.current?.querySelector<HTMLElement>(`[data-pos="${active.r}:${active.c}"]`)?.focus();
  });
  const r = Math.min(active.r, Math.max(0, modelRows.length - 1));

  const move = (dr: number, dc: number, absolute?: { r?: number; c?: number }) => {
    const nr = Math.max(0, Math.min(modelRows.length - 1, absolute?.r ?? r + dr));
    const nc = Math.max(0, Math.min(gridColumns.length - 1, absolute?.c ?? active.c + dc));
    moved.current = true;
    setActive({ r: nr, c: nc });
    virtualizer.scrollToIndex(nr);
  };
  const editable = (column: string) =>
    !trash &&
    column !== '$select' &&
    column !== '$actions' &&
    column !== '_id' &&
    !['createdAt', 'updatedAt'].includes(column);

  const onKey = (e: KeyboardEvent<HTMLElement>, rowIndex: number, column: string) => {
    if (editing) return;
    const keys: Record<string, () => void> = {
      ArrowDown: () => move(1, 0),
      ArrowUp: () => move(-1, 0),
      ArrowRight: () => move(0, 1),
      ArrowLeft: () => move(0, -1),
      Home: () => move(0, 0, e.ctrlKey ? { r: 0, c: 0 } : { c: 0 }),
      End: () =>
        move(
          0,
          0,
          e.ctrlKey ? { r: modelRows.length - 1, c: gridColumns.length - 1 } : { c: gridColumns.length - 1 },
        ),
      PageDown: () => move(10, 0),
      PageUp: () => move(-10, 0),
    };
    const row = modelRows[rowIndex]!;
    if (keys[e.key]) {
      e.preventDefault();
      keys[e.key]!();
    } else if (e.key === 'Enter' && e.target === e.currentTarget) {
      e.preventDefault();
      if (editable(column)) setEditing({ rowId: row.id, column, busy: false });
      else if (column === '_id') (e.currentTarget.querySelector('a') as HTMLElement | null)?.click();
      else if (column === '$actions') setJson(row.original);
    } else if (e.key === ' ' && column === '$select') {
      e.preventDefault();
      row.toggleSelected();
    }
  };

  const save = async (rowId: string, column: string, value: unknown) => {
    setEditing({ rowId, column, busy: true });
    try {
      await props.onSave(rowId, column, value);
      setEditing(undefined);
      moved.current = true;
    } catch (err) {
      setEditing({ rowId, column, busy: false, error: errorText(err) });
    }
  };
  const cancel = () => {
    setEditing(undefined);
    moved.current = true;
  };

  const items = virtualizer.getVirtualItems();
  const padTop = items[0]?.start ?? 0;
  const padBottom = virtualizer.getTotalSize() - (items[items.length - 1]?.end ?? 0);
  const allSelected = table.getIsAllPageRowsSelected();

  const header = (column: string, c: number) => {
    if (column === '$select')
      return (
        <input
          type="checkbox"
          aria-label="Select every document of this page"
          checked={allSelected}
          onChange={table.getToggleAllPageRowsSelectedHandler()}
          data-col={c}
        />
      );
    if (column === '$actions') return 'Row';
    const type = typeOf(fieldOf(def, column));
    if (UNSORTABLE.has(type) && fieldOf(def, column)) return column;
    const state = sortState(sort, column);
    return (
      <button
        type="button"
        className="sort-button"
        onClick={() => props.onSort(state === 'ascending' ? `-${column}` : column)}
        aria-label={`Sort by ${column}${state === 'ascending' ? ', descending' : ', ascending'}`}
      >
        {column}
        <span aria-hidden="true">{state === 'ascending' ? ' ↑' : state === 'descending' ? ' ↓' : ''}</span>
      </button>
    );
  };

  const cell = (doc: ApiDocument, rowId: string, column: string, selected: boolean, toggle: () => void) => {
    if (column === '$select')
      return (
        <input
          type="checkbox"
          tabIndex={-1}
          aria-label={`Select ${rowId}`}
          checked={selected}
          onChange={toggle}
        />
      );
    if (column === '_id')
      return (
        <a
          href={`/projects/${projectId}/data/${encodeURIComponent(name)}/${rowId}`}
          className="mono"
          tabIndex={-1}
          onClick={(e) => {
            if (e.metaKey || e.ctrlKey || e.shiftKey || e.button !== 0) return;
            e.preventDefault();
            navigate(e.currentTarget.getAttribute('href')!);
          }}
        >
          {rowId}
        </a>
      );
    if (column === '$actions')
      return (
        <button type="button" className="secondary small" tabIndex={-1} onClick={() => setJson(doc)}>
          JSON
        </button>
      );
    if (editing && editing.rowId === rowId && editing.column === column)
      return (
        <CellEditor
          projectId={projectId}
          column={column}
          field={fieldOf(def, column)}
          value={doc[column]}
          serverError={editing.error}
          busy={editing.busy}
          onSave={(value) => void save(rowId, column, value)}
          onCancel={cancel}
        />
      );
    const value = doc[column];
    if (column === 'createdAt' || column === 'updatedAt')
      return value ? new Date(String(value)).toLocaleString() : '';
    const field = fieldOf(def, column);
    if (field?.type === 'Ref' && field.ref && typeof value === 'string' && value)
      return <RefLink projectId={projectId} target={field.ref} id={value} labels={refLabels} />;
    return preview(value);
  };

  return (
    <>
      <div className="grid-scroll" ref={scrollRef}>
        <table
          role="grid"
          aria-label={`Documents of ${name}`}
          aria-rowcount={rows.length + 1}
          className="data-grid"
        >
          <thead>
            <tr aria-rowindex={1}>
              {gridColumns.map((column, c) => (
                <th
                  key={column}
                  scope="col"
                  className={column.startsWith('$') ? 'narrow' : undefined}
                  aria-sort={column.startsWith('$') ? undefined : (sortState(sort, column) ?? 'none')}
                >
                  {header(column, c)}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {padTop > 0 && (
              <tr aria-hidden="true" className="pad">
                <td style={{ height: padTop }} colSpan={gridColumns.length} />
              </tr>
            )}
            {items.map((item) => {
              const row = modelRows[item.index]!;
              const selected = row.getIsSelected();
              return (
                <tr
                  key={row.id}
                  data-index={item.index}
                  ref={virtualizer.measureElement}
                  aria-rowindex={item.index + 2}
                  aria-selected={selected}
                  className={selected ? 'selected' : undefined}
                >
                  {gridColumns.map((column, c) => {
                    const isActive = item.index === r && c === active.c;
                    const Tag = column === '_id' ? 'th' : 'td';
                    return (
                      <Tag
                        key={column}
                        scope={column === '_id' ? 'row' : undefined}
                        data-pos={`${item.index}:${c}`}
                        tabIndex={isActive ? 0 : -1}
                        className={column.startsWith('$') ? 'narrow' : undefined}
                        onFocus={() =>
                          (item.index !== r || c !== active.c) && setActive({ r: item.index, c })
                        }
                        onDoubleClick={() =>
                          editable(column) && setEditing({ rowId: row.id, column, busy: false })
                        }
                        onKeyDown={(e) => onKey(e, item.index, column)}
                      >
                        {cell(row.original, row.id, column, selected, () => row.toggleSelected())}
                      </Tag>
                    );
                  })}
                </tr>
              );
            })}
            {padBottom > 0 && (
              <tr aria-hidden="true" className="pad">
                <td style={{ height: padBottom }} colSpan={gridColumns.length} />
              </tr>
            )}
          </tbody>
        </table>
      </div>
      <JsonView doc={json} onClose={() => setJson(undefined)} />
    </>
  );
}
