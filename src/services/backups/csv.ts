// CSV as RFC 4180 writes it: fields separated by commas, quoted when they hold a comma, a quote or
// a line break (a quote doubled inside), records ended by CRLF. Used by the collection export (the
// import reads CSV as it streams in: import-reader.ts).
/** First characters a spreadsheet reads as the start of a formula (or of a DDE payload). */
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * A text cell as a spreadsheet must show it: one starting like a formula gets a leading `'`, which
 * spreadsheets take as "text" and hide (OWASP's CSV injection advice). Only text values: a
 * negative number is no formula.
 */
export const escapeFormula = (text: string) => (FORMULA_START.test(text) ? `'${text}` : text);

export function csvLine(cells: string[]): string {
  return `${cells.map((c) => (/[",\r\n]/.test(c) ? `"${c.replace(/"/g, '""')}"` : c)).join(',')}\r\n`;
}
