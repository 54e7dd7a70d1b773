// Sizes a write is charged by before it is made (the database quota): a document's BSON size as
// it will be stored, and a bound of what a `$set` can add to a document not read yet.
import { BSON, type Document as MongoDocument } from 'mongodb';
import { ObjectId } from './ids.js';

const SIZE_PLACEHOLDER_ID = new ObjectId('000000000000000000000000');
/** An `_id` element: type byte, the name `_id` with its terminator, 12 bytes of ObjectId. */
const ID_ELEMENT_BYTES = 1 + 4 + 12;

/** The BSON size of a document as stored (its `_id`, hex above src/db, counted as an ObjectId). */
export function bsonSize(doc: Record<string, unknown>): number {
  // A new document (no `_id` yet) is measured as it is, without a copy to add one.
  if (!Object.hasOwn(doc, '_id')) return BSON.calculateObjectSize(doc as MongoDocument) + ID_ELEMENT_BYTES;
  return BSON.calculateObjectSize({ ...doc, _id: SIZE_PLACEHOLDER_ID } as MongoDocument);
}

/**
 * At least what a `$set` of these paths can add to any document (each value with the objects its
 * path may create), for a quota reservation made before the document is read. Undefined when a
 * path has a numeric segment: setting an array element past its end pads the array, which no
 * bound of the value alone covers.
 */
export function setGrowthBound(set: Record<string, unknown>): number | undefined {
  let bound = 0;
  for (const [path, value] of Object.entries(set)) {
    const segments = path.split('.');
    if (segments.some((segment, i) => i > 0 && /^\d+$/.test(segment))) return undefined;
    const element = segments.reduceRight<unknown>((inner, segment) => ({ [segment]: inner }), value);
    // The size of a document holding just this element, less the document's own 5 bytes.
    bound += BSON.calculateObjectSize(element as MongoDocument) - 5;
  }
  return bound;
}
