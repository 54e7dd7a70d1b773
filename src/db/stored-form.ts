// The services' form of a stored document: object ids as hex strings, Dates kept, the trash
// bookkeeping key dropped. Made in place from what the driver returns (src/db/documents.ts).
import type { Document as MongoDocument } from 'mongodb';
import { ObjectId } from './ids.js';
import { IMPORT_KEY, TRASH_KEY } from './project-indexes.js';

/** A stored document as the services see it: `_id` and nested object ids as hex strings, Dates as Date. */
export type StoredDocument = Record<string, unknown> & { _id: string };

/**
 * Converts driver values for the services: object ids become hex strings, the rest is kept.
 * Documents and arrays are changed in place: what the driver returns is a fresh tree no one else
 * holds, and a read on the hot path should not copy it once more.
 */
function fromStored(value: unknown): unknown {
  if (value instanceof ObjectId) return value.toHexString();
  if (value instanceof Date || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) value[i] = fromStored(value[i]);
    return value;
  }
  const bsonType = (value as { _bsontype?: string })._bsontype;
  if (bsonType) {
    // Values an external database may hold (Decimal128, Long, Binary, ...): their JSON form.
    const json = (value as { toJSON?: () => unknown }).toJSON?.();
    return json === undefined ? String(value) : json;
  }
  const doc = value as Record<string, unknown>;
  // TRASH_KEY is index bookkeeping (project-indexes.ts); clients never see it, nor can set it.
  if (TRASH_KEY in doc) delete doc[TRASH_KEY];
  for (const key in doc) doc[key] = fromStored(doc[key]);
  return doc;
}

/** A document from the driver, or handed over by a service, in the services' form (in place). */
export function toDocument(doc: MongoDocument): StoredDocument {
  // A row of an import under way carries its job's tag at the top level only (import-rows.ts).
  if (IMPORT_KEY in doc) delete doc[IMPORT_KEY];
  return fromStored(doc) as StoredDocument;
}
