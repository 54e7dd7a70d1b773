// CSV as RFC 4180 writes it: fields separated by commas, quoted when they hold a comma, a quote or
// a line break (a quote doubled inside), records ended by CRLF. Used by the collection export and
// import; a row's cells come back as strings.
export function csvLine(cells: string[]): string {
  return `${cells.map((c) => (/[",\r\n]/.test(c) ? `"${c.replace(/"/g, '""')}"` : c)).join(',')}\r\n`;
}

/** The records of a CSV text, each an array of cells; throws on an unclosed quote. */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i]!;
    if (quoted) {
      if (ch === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (ch === '"') quoted = false;
      else cell += ch;
    } else if (ch === '"' && cell === '') quoted = true;
    else if (ch === ',') {
      row.push(cell);
      cell = '';
    } else if (ch === '\n' || ch === '\r') {
      if (ch === '\r' && text[i + 1] === '\n') i++;
      row.push(cell);
      rows.push(row);
      row = [];
      cell = '';
    } else cell += ch;
  }
  if (quoted) throw new Error('a quoted field is not closed');
  if (cell !== '' || row.length) rows.push([...row, cell]);
  return rows.filter((r) => !(r.length === 1 && r[0] === ''));
}
