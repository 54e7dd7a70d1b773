// A field's value as the grid shows it, as an editor's text, and back: typed by the field's
// declared type (an undeclared key of a flexible collection is edited as JSON). Parsing answers
// a value or a message in words; nothing invalid is sent.
import type { FieldDef } from '../../api';

export type CellType = FieldDef['type'] | 'Json';

export const typeOf = (field: FieldDef | undefined): CellType => field?.type ?? 'Json';

export function preview(value: unknown): string {
  if (value === undefined || value === null) return '';
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  return text.length > 80 ? `${text.slice(0, 77)}…` : text;
}

export function toText(type: CellType, value: unknown): string {
  if (value === undefined || value === null) return '';
  if (type === 'Object' || type === 'Array' || type === 'Json') return JSON.stringify(value, null, 2);
  return String(value);
}

export type Parsed = { value: unknown } | { error: string };

export function parseText(type: CellType, text: string): Parsed {
  const trimmed = text.trim();
  switch (type) {
    case 'String':
      return { value: text };
    case 'Number': {
      if (trimmed === '') return { value: null };
      const n = Number(trimmed);
      return Number.isFinite(n) ? { value: n } : { error: 'Enter a number, such as 12 or 4.5.' };
    }
    case 'Boolean':
      return { value: trimmed === '' ? null : trimmed === 'true' };
    case 'Date': {
      if (trimmed === '') return { value: null };
      const time = Date.parse(trimmed);
      return Number.isNaN(time)
        ? { error: 'Enter a date and time, such as 2026-01-31T12:00:00Z.' }
        : { value: new Date(time).toISOString() };
    }
    case 'Ref':
      return { value: trimmed === '' ? null : trimmed };
    default: {
      if (trimmed === '') return { value: null };
      let parsed: unknown;
      try {
        parsed = JSON.parse(trimmed);
      } catch (err) {
        return { error: `This is not valid JSON (${(err as Error).message}).` };
      }
      if (type === 'Array' && !Array.isArray(parsed))
        return { error: 'Enter a JSON array, such as ["a", "b"].' };
      if (type === 'Object' && (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)))
        return { error: 'Enter a JSON object, such as {"key": "value"}.' };
      return { value: parsed };
    }
  }
}
