// A finished restore's conflicts as the job reports them: the rows that could not come back as they
// were, by collection, row (the line in the archive's part), field and reason, with how many more
// there are than the API lists; or, when there are none, that every row came back.
import type { Conflicts } from '../../data/backups';

export function RestoreConflicts({ conflicts }: { conflicts: Conflicts | null }) {
  if (!conflicts || conflicts.total === 0)
    return (
      <p className="notice" role="status" data-testid="restore-conflicts">
        No conflicts: every row came back as it was.
      </p>
    );
  const { total, items } = conflicts;
  const more = total - items.length;
  return (
    <div data-testid="restore-conflicts">
      <p className="warning" role="status">
        {total.toLocaleString('en')} conflict{total === 1 ? '' : 's'}: rows that did not come back as they
        were. A row whose unique value another row has was not restored; a row whose Ref points at a missing
        document was restored as it was.
      </p>
      <div className="table-wrap conflicts" tabIndex={0} role="region" aria-label="Conflicts">
        <table>
          <caption className="sr-only">Conflicts of the restore, by collection and row</caption>
          <thead>
            <tr>
              <th scope="col">Collection</th>
              <th scope="col">Row</th>
              <th scope="col">Field</th>
              <th scope="col">Reason</th>
            </tr>
          </thead>
          <tbody>
            {items.map((c, i) => (
              <tr key={`${c.collection}-${c.row}-${c.field}-${i}`} data-testid="conflict-row">
                <td className="mono">{c.collection}</td>
                <th scope="row">{c.row.toLocaleString('en')}</th>
                <td className="mono">{c.field}</td>
                <td>{c.reason}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {more > 0 && (
        <p className="muted" data-testid="conflicts-more">
          {more.toLocaleString('en')} more not listed (the restore lists the first{' '}
          {items.length.toLocaleString('en')}).
        </p>
      )}
      <p className="muted">Row: the document’s line in the archive’s part of that collection (1 = first).</p>
    </div>
  );
}
