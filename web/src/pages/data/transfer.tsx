// Export and import of one collection, on its data page: export as JSON Lines or CSV (read through
// the typed client, then saved as a file; a refusal is said in words), and import from a file (format, "all or nothing" or "skip invalid rows")
// with the result: how many rows were imported and the rejected ones (row, field, reason) as the
// API reports them, whether it refused the whole file or skipped them.
import { useId, useState, type FormEvent } from 'react';
import { ApiFailure, errorText } from '../../api';
import { useExport, useImport, type ImportBody } from '../../data/backups';
import '../backups/backups.css';

type Format = ImportBody['format'];
type Mode = NonNullable<ImportBody['mode']>;
interface Rejected {
  row: number;
  field: string;
  reason: string;
}
interface Outcome {
  imported: number;
  rejected: Rejected[];
  refused?: string;
}

/** An all-or-nothing refusal names each row as `row N: field` in its details. */
function rejectedOf(failure: ApiFailure): Rejected[] {
  return failure.details.flatMap((d) => {
    const m = /^row (\d+): (.*)$/.exec(d.path);
    return m ? [{ row: Number(m[1]), field: m[2]!, reason: d.message }] : [];
  });
}

const formatOf = (file: File): Format => (/\.csv$/i.test(file.name) ? 'csv' : 'jsonl');

/** Hands a fetched file to the browser's downloads under its name. */
function save(blob: Blob, filename: string) {
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  document.body.appendChild(a);
  a.click();
  a.remove();
  // The download has taken the URL once the click is handled.
  setTimeout(() => URL.revokeObjectURL(url), 0);
}

function RejectedRows({ rows }: { rows: Rejected[] }) {
  return (
    <div className="table-wrap rejected-rows" tabIndex={0} role="region" aria-label="Rejected rows">
      <table>
        <caption className="sr-only">Rejected rows</caption>
        <thead>
          <tr>
            <th scope="col">Row</th>
            <th scope="col">Field</th>
            <th scope="col">Reason</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r, i) => (
            <tr key={`${r.row}-${r.field}-${i}`} data-testid="rejected-row">
              <th scope="row">{r.row}</th>
              <td className="mono">{r.field}</td>
              <td>{r.reason}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

export function CollectionTransfer({ projectId, name }: { projectId: string; name: string }) {
  // The API neither exports nor imports the end users (their password hashes travel in backups).
  if (name === 'users')
    return (
      <p className="muted transfer">
        End users are not exported or imported here: a backup holds them (Backups, for admins).
      </p>
    );
  return <Transfer projectId={projectId} name={name} />;
}

function Transfer({ projectId, name }: { projectId: string; name: string }) {
  const id = useId();
  const [exportFormat, setExportFormat] = useState<Format>('csv');
  const [file, setFile] = useState<File | undefined>(undefined);
  const [format, setFormat] = useState<Format>('jsonl');
  const [mode, setMode] = useState<Mode>('all-or-nothing');
  const [problem, setProblem] = useState('');
  const [outcome, setOutcome] = useState<Outcome | undefined>(undefined);
  const importRows = useImport(projectId, name);
  const exportRows = useExport(projectId, name);
  const exportLabel = exportFormat === 'csv' ? 'CSV' : 'JSON Lines';

  const download = () =>
    exportRows.mutate(exportFormat, {
      onSuccess: (blob, format) => save(blob, `${name}.${format}`),
    });

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setOutcome(undefined);
    if (!file) return setProblem('Choose a file to import.');
    setProblem('');
    try {
      const result = await importRows.mutateAsync({ file, format, mode });
      setOutcome(result);
    } catch (err) {
      if (err instanceof ApiFailure && err.code === 'VALIDATION_FAILED' && rejectedOf(err).length)
        setOutcome({ imported: 0, rejected: rejectedOf(err), refused: err.message });
      else setProblem(errorText(err));
    }
  };

  return (
    <section className="card transfer" aria-labelledby={`${id}-heading`}>
      <h2 id={`${id}-heading`}>Export and import</h2>
      <div className="row">
        <div className="field">
          <label htmlFor={`${id}-export-format`}>Export format</label>
          <select
            id={`${id}-export-format`}
            value={exportFormat}
            onChange={(e) => {
              setExportFormat(e.target.value as Format);
              exportRows.reset();
            }}
          >
            <option value="csv">CSV</option>
            <option value="jsonl">JSON Lines</option>
          </select>
        </div>
        <button type="button" onClick={download} disabled={exportRows.isPending}>
          {exportRows.isPending ? `Exporting ${exportLabel}…` : `Export ${exportLabel}`}
        </button>
      </div>
      {exportRows.error && (
        <div className="error" role="alert">
          The export failed: {errorText(exportRows.error)}
        </div>
      )}
      <p className="muted">The documents not in the trash, by id. The end users are in backups, not here.</p>

      <form onSubmit={(e) => void submit(e)} noValidate aria-label={`Import into ${name}`}>
        <h3>Import into “{name}”</h3>
        <div className="row">
          <div className="field">
            <label htmlFor={`${id}-file`}>File</label>
            <input
              id={`${id}-file`}
              type="file"
              accept=".csv,.jsonl,.ndjson,.json,text/csv,application/x-ndjson"
              aria-invalid={problem === 'Choose a file to import.' ? true : undefined}
              onChange={(e) => {
                const chosen = e.target.files?.[0];
                setFile(chosen);
                setProblem('');
                setOutcome(undefined);
                if (chosen) setFormat(formatOf(chosen));
              }}
            />
          </div>
          <div className="field">
            <label htmlFor={`${id}-format`}>Import format</label>
            <select id={`${id}-format`} value={format} onChange={(e) => setFormat(e.target.value as Format)}>
              <option value="jsonl">JSON Lines</option>
              <option value="csv">CSV</option>
            </select>
          </div>
        </div>
        <fieldset>
          <legend>When a row is invalid</legend>
          <label className="check">
            <input
              type="radio"
              name={`${id}-mode`}
              checked={mode === 'all-or-nothing'}
              onChange={() => setMode('all-or-nothing')}
            />
            All or nothing: import no row
          </label>
          <label className="check">
            <input
              type="radio"
              name={`${id}-mode`}
              checked={mode === 'skip-invalid'}
              onChange={() => setMode('skip-invalid')}
            />
            Skip invalid rows: import the others
          </label>
        </fieldset>
        <p className="muted">
          Every row is checked against the schema first. Rows become new documents (new ids); a CSV’s header
          is row 1.
        </p>
        {problem && (
          <div className="error" role="alert">
            {problem}
          </div>
        )}
        <button type="submit" disabled={importRows.isPending}>
          {importRows.isPending ? 'Importing…' : 'Import'}
        </button>
      </form>
      {outcome && (
        <div data-testid="import-result">
          <div className={outcome.refused ? 'error' : 'notice'} role={outcome.refused ? 'alert' : 'status'}>
            {outcome.refused
              ? `${outcome.refused}.`
              : `${outcome.imported} row${outcome.imported === 1 ? '' : 's'} imported` +
                (outcome.rejected.length
                  ? `; ${new Set(outcome.rejected.map((r) => r.row)).size} rejected.`
                  : '.')}
          </div>
          {outcome.rejected.length > 0 && <RejectedRows rows={outcome.rejected} />}
        </div>
      )}
    </section>
  );
}
