// A collection's documents as a grid: filters, sort, page size, cursor and the trash view in the
// URL; every field a column (chosen and ordered per collection); inline edit; selection with bulk
// trash and restore; live updates from the collection's stream. Loading, an empty collection and
// filters that match nothing are told apart.
import { useState } from 'react';
import type { RowSelectionState } from '@tanstack/react-table';
import { errorText } from '../../api';
import { ErrorBox, Link, Notice, Progress } from '../../components/ui';
import { DataQueryProvider } from '../../data/query-client';
import { outcomeWords, useCollectionDef, useDocumentList, useDocumentWrites } from '../../data/documents';
import type { ProjectPageProps } from '../project-shell';
import { ColumnPicker } from './column-picker';
import { availableColumns, orderedColumns, useColumnPrefs } from './columns';
import { FiltersForm } from './filters';
import { DocumentGrid } from './grid';
import { useLiveDocuments, type LiveState } from './live';
import { LIMITS, useGridUrlState } from './url-state';
import { CollectionTransfer } from './transfer';
import { useDisplayFields } from './ref-labels';
import './grid.css';

/** The cursor of the page before each page seen in this tab, for "Previous". */
const previousOf = new Map<string, string>();

const LIVE_LABEL: Record<LiveState, string> = {
  connecting: 'Connecting…',
  live: 'Live',
  reconnecting: 'Reconnecting…',
  closed: 'Live updates off',
};

export function DataBrowserPage(props: ProjectPageProps & { name: string }) {
  return (
    <DataQueryProvider>
      <GridPage {...props} />
    </DataQueryProvider>
  );
}

function GridPage({ project, name }: ProjectPageProps & { name: string }) {
  const projectId = project.id;
  const [url, setUrl] = useGridUrlState();
  const def = useCollectionDef(projectId, name);
  const list = useDocumentList({ projectId, name, ...url });
  const writes = useDocumentWrites(projectId, name);
  const live = useLiveDocuments(projectId, name);
  const [prefs, setPrefs] = useColumnPrefs(projectId, name);
  const [displayFields, chooseDisplay] = useDisplayFields(projectId);
  const [selection, setSelection] = useState<RowSelectionState>({});
  const [notice, setNotice] = useState('');
  const [bulkError, setBulkError] = useState('');
  const [selectionKey, setSelectionKey] = useState('');

  // A new page, sort, filter or view starts with nothing selected.
  const key = JSON.stringify(url);
  if (key !== selectionKey) {
    setSelectionKey(key);
    setSelection({});
  }

  const rows = list.data?.rows ?? [];
  const { ordered, shown } = orderedColumns(availableColumns(def.data, rows), prefs);
  const fieldNames = (def.data?.fields ?? []).map((f) => f.name);
  const selected = rows.map((r) => String(r._id)).filter((id) => selection[id]);
  const filtered = Object.keys(url.filters).length > 0;
  const base = `/projects/${projectId}/data/${encodeURIComponent(name)}`;

  const change = (patch: Parameters<typeof setUrl>[0]) => {
    setNotice('');
    setBulkError('');
    setUrl({ cursor: undefined, ...patch });
  };
  const bulk = async (kind: 'trash' | 'restore') => {
    setNotice('');
    setBulkError('');
    const { results, counts } = await writes.lifecycle.mutateAsync({ ids: selected, kind });
    const hint = counts.trashed > 0 ? ' They can be restored from the trash for 30 days.' : '';
    setNotice(`${outcomeWords(counts)}.${hint}`);
    // Not found needs no more words (trashed or restored elsewhere); a refusal says why.
    const refused = results.filter((r) => r.status === 'forbidden' || r.status === 'conflict');
    if (refused.length) setBulkError(refused.map((r) => `${r.id}: ${r.message ?? r.status}`).join(' '));
    setSelection({});
  };
  const next = () => {
    const cursor = list.data?.nextCursor;
    if (!cursor) return;
    previousOf.set(cursor, url.cursor ?? '');
    setUrl({ cursor });
  };
  const previous = url.cursor !== undefined ? previousOf.get(url.cursor) : undefined;

  let body;
  if (list.isPending || def.isPending) body = <Progress label="Loading documents…" />;
  else if (list.isError) body = null;
  else if (rows.length === 0)
    body = url.trash ? (
      <p className="empty">The trash is empty.</p>
    ) : filtered ? (
      <div className="empty">
        <p>Nothing matches these filters.</p>
        <button type="button" className="secondary" onClick={() => change({ filters: {} })}>
          Clear filters
        </button>
      </div>
    ) : url.cursor ? (
      <p className="empty">No more documents.</p>
    ) : (
      <div className="empty">
        <p>No documents yet.</p>
        <Link to={`${base}/new`} className="button">
          Add the first document
        </Link>
      </div>
    );
  else
    body = (
      <DocumentGrid
        projectId={projectId}
        name={name}
        def={def.data}
        rows={rows}
        columns={shown}
        sort={url.sort}
        trash={url.trash}
        selection={selection}
        onSelection={setSelection}
        onSort={(sort) => change({ sort })}
        displayFields={displayFields}
        onSave={async (id, column, value) => {
          await writes.update.mutateAsync({ id, patch: { [column]: value } });
          setNotice(`Saved ${column}.`);
        }}
      />
    );

  return (
    <>
      <div className="heading-row">
        <h1>
          {name} {url.trash ? '— trash' : ''}
        </h1>
        <div className="row">
          <span className={`live live-${live}`} role="status" aria-live="polite">
            <span aria-hidden="true" className="live-dot" />
            {LIVE_LABEL[live]}
          </span>
          <ColumnPicker
            ordered={ordered}
            prefs={prefs}
            onChange={setPrefs}
            projectId={projectId}
            def={def.data}
            displayFields={displayFields}
            onDisplay={chooseDisplay}
          />
          <button
            type="button"
            className="secondary"
            aria-pressed={url.trash}
            onClick={() => change({ trash: !url.trash })}
          >
            {url.trash ? 'Back to documents' : 'Show trash'}
          </button>
          {!url.trash && (
            <Link to={`${base}/new`} className="button">
              Add document
            </Link>
          )}
        </div>
      </div>
      <FiltersForm
        key={JSON.stringify(url.filters)}
        fieldNames={fieldNames}
        filters={url.filters}
        sort={url.sort}
        limit={url.limit}
        limits={LIMITS}
        onApply={(filters) => change({ filters })}
        onSort={(sort) => change({ sort })}
        onLimit={(limit) => change({ limit })}
      />
      <ErrorBox error={list.error ?? def.error} />
      {bulkError && (
        <div className="error" role="alert">
          {bulkError}
        </div>
      )}
      {writes.lifecycle.error && (
        <div className="error" role="alert">
          {errorText(writes.lifecycle.error)}
        </div>
      )}
      {notice && <Notice>{notice}</Notice>}
      {selected.length > 0 && (
        <div className="bulk-bar card" role="region" aria-label="Selected documents">
          <span>{selected.length} selected</span>
          {url.trash ? (
            <button type="button" onClick={() => void bulk('restore')} disabled={writes.lifecycle.isPending}>
              Restore selected
            </button>
          ) : (
            <button
              type="button"
              className="danger"
              onClick={() => void bulk('trash')}
              disabled={writes.lifecycle.isPending}
            >
              Move selected to trash
            </button>
          )}
          <button type="button" className="secondary" onClick={() => setSelection({})}>
            Clear selection
          </button>
        </div>
      )}
      {body}
      {list.isSuccess && (rows.length > 0 || url.cursor) && (
        <nav className="pager" aria-label="Pages">
          <button
            type="button"
            className="secondary"
            disabled={!url.cursor}
            onClick={() => setUrl({ cursor: undefined })}
          >
            First page
          </button>
          <button
            type="button"
            className="secondary"
            disabled={previous === undefined}
            onClick={() => setUrl({ cursor: previous || undefined })}
          >
            Previous
          </button>
          <span>
            {rows.length} document{rows.length === 1 ? '' : 's'} on this page
            {list.data.hasMore ? ', more after it' : ''}
          </span>
          <button type="button" className="secondary" disabled={!list.data.hasMore} onClick={next}>
            Next
          </button>
        </nav>
      )}
      <CollectionTransfer projectId={projectId} name={name} />
    </>
  );
}
