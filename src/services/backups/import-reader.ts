// The rows of an import read from its body as it arrives, with bounded memory: JSON Lines split at
// line ends, CSV parsed record by record (RFC 4180: quoted cells may hold commas, quotes and line
// breaks). The body is counted as it is read: past `maxBytes` the import is refused (413), and a
// single row longer than `maxRowBytes` too, so that no row is buffered without bound.
import { badRequest, payloadTooLarge } from '../../http/errors.js';

export type IoFormat = 'jsonl' | 'csv';

/** One row as read: its number (JSON Lines: its line; CSV: its spreadsheet row, header = 1). */
export type ReadRow =
  | { row: number; value: unknown; unreadable?: undefined }
  | { row: number; value?: undefined; unreadable: string };

export interface ReadLimits {
  maxBytes: number;
  maxRowBytes: number;
}

/** The body as text chunks, refused (413) once more than `maxBytes` bytes came in. */
async function* textOf(
  body: AsyncIterable<Buffer | string> | Iterable<string>,
  maxBytes: number,
): AsyncGenerator<string> {
  const decoder = new TextDecoder('utf-8');
  let bytes = 0;
  for await (const chunk of body) {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    bytes += buf.length;
    if (bytes > maxBytes) {
      throw payloadTooLarge(`The import is larger than the import limit of ${maxBytes} bytes`);
    }
    yield decoder.decode(buf, { stream: true });
  }
  const rest = decoder.decode();
  if (rest) yield rest;
}

const rowTooLarge = (row: number, max: number) =>
  payloadTooLarge(`Row ${row} is longer than the largest row an import takes (${max} bytes)`);

async function* jsonLines(text: AsyncIterable<string>, maxRow: number): AsyncGenerator<ReadRow> {
  let pending = '';
  let line = 0;
  const parse = (raw: string): ReadRow | undefined => {
    line += 1;
    if (!raw.trim()) return undefined;
    try {
      return { row: line, value: JSON.parse(raw) as unknown };
    } catch {
      return { row: line, unreadable: 'not a JSON object' };
    }
  };
  for await (const chunk of text) {
    pending += chunk;
    let start = 0;
    let end: number;
    while ((end = pending.indexOf('\n', start)) >= 0) {
      if (end - start > maxRow) throw rowTooLarge(line + 1, maxRow);
      const row = parse(pending.slice(start, end));
      start = end + 1;
      if (row) yield row;
    }
    pending = pending.slice(start);
    if (pending.length > maxRow) throw rowTooLarge(line + 1, maxRow);
  }
  const last = parse(pending);
  if (last) yield last;
}

/** CSV records (arrays of cells) as they complete; throws on a quote left open at the end. */
async function* csvRecords(text: AsyncIterable<string>, maxRow: number): AsyncGenerator<string[]> {
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  let afterQuote = false; // the last character was a quote inside a quoted cell
  let size = 0;
  let records = 0;
  for await (const chunk of text) {
    for (let i = 0; i < chunk.length; i++) {
      const ch = chunk[i]!;
      if (afterQuote) {
        afterQuote = false;
        if (ch === '"') {
          cell += '"'; // a doubled quote
          continue;
        }
        quoted = false; // the closing quote: this character is read as outside
      }
      if (quoted) {
        if (ch === '"') afterQuote = true;
        else cell += ch;
      } else if (ch === '"' && cell === '') quoted = true;
      else if (ch === ',') {
        row.push(cell);
        cell = '';
      } else if (ch === '\n' || ch === '\r') {
        // CRLF: the LF after a CR ends an empty record, dropped below.
        row.push(cell);
        if (!(row.length === 1 && row[0] === '')) {
          records += 1;
          yield row;
        }
        row = [];
        cell = '';
        size = 0;
        continue;
      } else cell += ch;
      if (++size > maxRow) throw rowTooLarge(records + 1, maxRow);
    }
  }
  if (quoted && !afterQuote) throw badRequest('The CSV cannot be read: a quoted field is not closed');
  if (cell !== '' || row.length) yield [...row, cell];
}

/** The rows of an import body; a CSV's header names the columns, read as `columnValue` says. */
export async function* readRows(
  body: AsyncIterable<Buffer | string> | Iterable<string>,
  format: IoFormat,
  limits: ReadLimits,
  columnValue: (column: string, cell: string) => unknown,
): AsyncGenerator<ReadRow> {
  const text = textOf(body, limits.maxBytes);
  if (format === 'jsonl') {
    yield* jsonLines(text, limits.maxRowBytes);
    return;
  }
  let header: string[] | undefined;
  let row = 0;
  for await (const cells of csvRecords(text, limits.maxRowBytes)) {
    row += 1; // numbered as a spreadsheet shows them: the header is row 1
    if (!header) {
      header = cells;
      continue;
    }
    const value: Record<string, unknown> = {};
    header.forEach((column, c) => {
      const typed = columnValue(column, cells[c] ?? '');
      if (typed !== undefined) value[column] = typed;
    });
    yield { row, value };
  }
  if (!header) throw badRequest('The CSV has no header row');
}
