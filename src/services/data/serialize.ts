// The wire form of documents (DECISIONS §3): `_id` and Ref values are already strings when they
// leave src/db; Dates (Date fields, createdAt, updatedAt, deletedAt) become ISO 8601 strings.
// Reads hand their documents to the response as they are: JSON.stringify writes a Date as
// `toJSON()`, which is `toISOString()`, so a second walk of every document would change nothing
// on the wire. Writes convert here, because their documents also go to webhooks and realtime
// events, whose consumers read the fields.
import { isoFormatter } from '../../lib/time.js';

const iso = isoFormatter();

/** A document as a response carries it (Dates of a read are still Date objects until serialised). */
export type ApiDocument = Record<string, unknown> & { _id: string };

/**
 * Changes the tree in place: every caller hands over a document just read or written (from
 * src/db, a fresh tree of its own), and a response should not cost another copy of it.
 */
function plain(value: unknown): unknown {
  if (value instanceof Date) return iso(value.getTime());
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) value[i] = plain(value[i]);
    return value;
  }
  if (value !== null && typeof value === 'object') {
    const doc = value as Record<string, unknown>;
    for (const key in doc) doc[key] = plain(doc[key]);
    return doc;
  }
  return value;
}

/** The wire form of a document from src/db; the document itself becomes it (see `plain`). */
export const toApi = (doc: Record<string, unknown>) => plain(doc) as ApiDocument;
