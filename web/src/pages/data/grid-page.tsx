// A collection's documents: filters (the data API's suffixes), sort, paging, and the trash with
// restore. Documents open as a form (schema mode) or as JSON (flexible mode).
import { useState, type FormEvent } from 'react';
import { api, call, type ApiDocument } from '../api';
import { ErrorBox, Link, Notice, Progress } from '../components/ui';
import { useAction, useLoad } from '../hooks';
import type { ProjectPageProps } from './project-shell';

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

interface Filter {
  field: string;
  op: string;
  value: string;
}

const preview = (value: unknown) => {
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text === undefined ? '' : text.length > 60 ? `${text.slice(0, 57)}…` : text;
};

export function DataBrowserPage({ project, name }: ProjectPageProps & { name: string }) {
  const projectId = project.id;
  const path = { projectId, collectionName: name };
  const def = useLoad(
    async () =>
      (await call(api.GET('/api/projects/{projectId}/collections/{collectionName}', { params: { path } })))
        .data.collection,
    [projectId, name],
  );
  const [draft, setDraft] = useState<Filter[]>([]);
  const [filters, setFilters] = useState<Filter[]>([]);
  const [sort, setSort] = useState('-createdAt');
  const [page, setPage] = useState(1);
  const [limit, setLimit] = useState(20);
  const [trash, setTrash] = useState(false);
  const [notice, setNotice] = useState('');
  const action = useAction();

  const docs = useLoad(async () => {
    const query: Record<string, string | number | boolean> = { page, limit, sort, total: true, trash };
    for (const f of filters) if (f.field) query[f.field + f.op] = f.value;
    const res = await call(
      api.GET('/api/projects/{projectId}/data/{collectionName}', { params: { path, query: query as never } }),
    );
    return res;
  }, [projectId, name, page, limit, sort, trash, JSON.stringify(filters)]);

  const fieldNames = def.value ? def.value.fields.map((f) => f.name) : [];
  const columns = fieldNames.slice(0, 4);
  const rows = (docs.value && Array.isArray(docs.value.data) ? docs.value.data : []) as ApiDocument[];
  const pagination = docs.value?.pagination;
  const base = `/projects/${projectId}/data/${encodeURIComponent(name)}`;

  const apply = (e: FormEvent) => {
    e.preventDefault();
    setPage(1);
    setFilters(draft.filter((f) => f.field));
  };
  const act = (doc: ApiDocument, kind: 'trash' | 'restore') =>
    action.run(async () => {
      const params = { params: { path: { ...path, id: String(doc._id) } } };
      if (kind === 'trash')
        await call(api.DELETE('/api/projects/{projectId}/data/{collectionName}/{id}', params));
      else await call(api.POST('/api/projects/{projectId}/data/{collectionName}/{id}/restore', params));
      setNotice(
        kind === 'trash' ? 'Moved to the trash. It can be restored for 30 days.' : 'Document restored.',
      );
      await docs.reload();
    });

  return (
    <>
      <div className="heading-row">
        <h1>
          {name} {trash ? '— trash' : ''}
        </h1>
        <div className="row">
          <button
            type="button"
            className="secondary"
            aria-pressed={trash}
            onClick={() => (setTrash(!trash), setPage(1), setNotice(''))}
          >
            {trash ? 'Back to documents' : 'Show trash'}
          </button>
          {!trash && (
            <Link to={`${base}/new`} className="button">
              Add document
            </Link>
          )}
        </div>
      </div>
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
              onChange={(e) => setDraft(draft.map((x, j) => (j === i ? { ...x, field: e.target.value } : x)))}
            />
            <label className="sr-only" htmlFor={`flt-op-${i}`}>
              Operator
            </label>
            <select
              id={`flt-op-${i}`}
              value={f.op}
              onChange={(e) => setDraft(draft.map((x, j) => (j === i ? { ...x, op: e.target.value } : x)))}
            >
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
              onChange={(e) => setDraft(draft.map((x, j) => (j === i ? { ...x, value: e.target.value } : x)))}
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
          <label htmlFor="sort">Sort</label>
          <select id="sort" value={sort} onChange={(e) => (setSort(e.target.value), setPage(1))}>
            {['createdAt', 'updatedAt', '_id', ...fieldNames].flatMap((n) => [
              <option key={`-${n}`} value={`-${n}`}>
                {n} ↓
              </option>,
              <option key={n} value={n}>
                {n} ↑
              </option>,
            ])}
          </select>
          <label htmlFor="limit">Per page</label>
          <select id="limit" value={limit} onChange={(e) => (setLimit(Number(e.target.value)), setPage(1))}>
            {[10, 20, 50, 100].map((n) => (
              <option key={n}>{n}</option>
            ))}
          </select>
          <button type="submit">Apply</button>
        </div>
      </form>
      <ErrorBox error={docs.error ?? def.error} />
      <ErrorBox error={action.error} />
      {notice && <Notice>{notice}</Notice>}
      {docs.loading && <Progress label="Loading documents…" />}
      {docs.value && rows.length === 0 && <p>{trash ? 'The trash is empty.' : 'No documents match.'}</p>}
      {rows.length > 0 && (
        <div className="table-wrap">
          <table>
            <caption className="sr-only">Documents of {name}</caption>
            <thead>
              <tr>
                <th scope="col">_id</th>
                {columns.map((c) => (
                  <th scope="col" key={c}>
                    {c}
                  </th>
                ))}
                <th scope="col">{trash ? 'Trashed' : 'Updated'}</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {rows.map((doc) => (
                <tr key={String(doc._id)}>
                  <td className="mono">
                    <Link to={`${base}/${doc._id}`}>{String(doc._id)}</Link>
                  </td>
                  {columns.map((c) => (
                    <td key={c}>{preview(doc[c])}</td>
                  ))}
                  <td>{new Date(String(trash ? doc.deletedAt : doc.updatedAt)).toLocaleString()}</td>
                  <td className="actions">
                    {trash ? (
                      <button
                        type="button"
                        className="secondary"
                        onClick={() => act(doc, 'restore')}
                        disabled={action.busy}
                      >
                        Restore
                      </button>
                    ) : (
                      <button
                        type="button"
                        className="secondary danger"
                        onClick={() => act(doc, 'trash')}
                        disabled={action.busy}
                      >
                        Trash
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {pagination && (
        <nav className="pager" aria-label="Pages">
          <button type="button" className="secondary" disabled={page <= 1} onClick={() => setPage(page - 1)}>
            Previous
          </button>
          <span>
            Page {page}
            {pagination.total !== undefined
              ? ` of ${Math.max(1, Math.ceil(pagination.total / limit))} (${pagination.total} documents)`
              : ''}
          </span>
          <button
            type="button"
            className="secondary"
            disabled={!pagination.hasMore}
            onClick={() => setPage(page + 1)}
          >
            Next
          </button>
        </nav>
      )}
    </>
  );
}
