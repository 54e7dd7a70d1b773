// CSV as RFC 4180 writes it: fields separated by commas, quoted when they hold a comma, a quote or
// a line break (a quote doubled inside), records ended by CRLF. Used by the collection export (the
// import reads CSV as it streams in: import-reader.ts).
export function csvLine(cells: string[]): string {
  return `${cells.map((c) => (/[",\r\n]/.test(c) ? `"${c.replace(/"/g, '""')}"` : c)).join(',')}\r\n`;
}
