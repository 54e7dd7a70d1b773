// The wire form of documents (DECISIONS §3): `_id` and Ref values are already strings when they
// leave src/db; Dates (Date fields, createdAt, updatedAt, deletedAt) become ISO 8601 strings.
export type ApiDocument = Record<string, unknown> & { _id: string };

function plain(value: unknown): unknown {
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return value.map(plain);
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) out[key] = plain(item);
    return out;
  }
  return value;
}

export const toApi = (doc: Record<string, unknown>) => plain(doc) as ApiDocument;
