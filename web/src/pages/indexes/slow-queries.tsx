// The collection's slow queries beside its indexes: each shape (fields filtered and sorted, never
// values), how often and how slow, whether an index serves it; and, where none serves it whole,
// "Create this index" with the suggested keys, confirmed in the app's dialog.
import { ErrorBox, Notice, Progress } from '../../components/ui';
import { Confirm } from '../../components/confirm';
import { keysText, useIndexWrites, useSlowQueries, type SlowQuery } from '../../data/indexes';

const fieldsText = (q: SlowQuery) => {
  const parts = [
    q.filter.equality.length && `equal: ${q.filter.equality.join(', ')}`,
    q.filter.range.length && `range: ${q.filter.range.join(', ')}`,
    q.filter.other.length && `other: ${q.filter.other.join(', ')}`,
  ].filter(Boolean);
  return parts.length ? parts.join('; ') : 'none';
};

function served(q: SlowQuery): string {
  if (q.filterServed && q.sortServed) return `Served by ${q.index}`;
  if (!q.index) return 'No index serves it';
  return `Partly served by ${q.index} (${q.filterServed ? 'filter' : 'sort'} only)`;
}

export function SlowQueries({ projectId, name }: { projectId: string; name: string }) {
  const slow = useSlowQueries(projectId, name);
  const { create, forget } = useIndexWrites(projectId, name);
  const queries = slow.data?.queries ?? [];
  return (
    <section className="card" aria-labelledby="slow-heading">
      <h2 id="slow-heading">Slow queries</h2>
      {slow.data && (
        <p className="muted">
          Lists of {name} that took {slow.data.thresholdMs} ms or more, by shape (the fields, never the
          values).
        </p>
      )}
      <ErrorBox error={slow.error} />
      {slow.isPending && <Progress label="Loading slow queries…" />}
      {slow.data && queries.length === 0 && <p>No slow queries recorded for this collection.</p>}
      {queries.length > 0 && (
        <div className="table-wrap" tabIndex={0} role="region" aria-label={`Slow queries of ${name}`}>
          <table>
            <caption className="sr-only">Slow queries of {name}</caption>
            <thead>
              <tr>
                <th scope="col">Filtered</th>
                <th scope="col">Sorted</th>
                <th scope="col">Times slow</th>
                <th scope="col">Worst</th>
                <th scope="col">Index</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              {queries.map((q) => {
                const key = `${q.kind}|${q.total}|${fieldsText(q)}|${keysText(q.sort)}`;
                return (
                  <tr key={key} data-testid="slow-query">
                    <td>
                      {fieldsText(q)}
                      {q.kind === 'count' && <span className="muted"> (count)</span>}
                      {q.total && <span className="muted"> (with total)</span>}
                    </td>
                    <td>{keysText(q.sort)}</td>
                    <td>{q.count.toLocaleString('en')}</td>
                    <td>{Math.round(q.worstMs).toLocaleString('en')} ms</td>
                    <td>{served(q)}</td>
                    <td className="actions">
                      {q.suggestedIndex && (
                        <Confirm
                          trigger={<button type="button">Create this index</button>}
                          title="Create this index?"
                          action="Create index"
                          safe
                          onConfirm={() => create.mutate({ keys: q.suggestedIndex!, unique: false })}
                        >
                          <p>
                            An index on <strong>{keysText(q.suggestedIndex)}</strong> would serve this query
                            whole. It is built now; the answer comes when it is done.
                          </p>
                        </Confirm>
                      )}
                    </td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </div>
      )}
      {create.isPending && <Progress label="Building the index…" />}
      <ErrorBox error={create.error} />
      {create.isSuccess && <Notice>Index {create.data.name} created.</Notice>}
      {queries.length > 0 && (
        <button
          type="button"
          className="secondary"
          onClick={() => forget.mutate()}
          disabled={forget.isPending}
        >
          Forget these slow queries
        </button>
      )}
      <ErrorBox error={forget.error} />
    </section>
  );
}
