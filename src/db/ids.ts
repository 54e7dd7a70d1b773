// Object id helpers for the data layer: ids are strings above src/db.
import { ObjectId } from 'mongodb';

export const isObjectId = (value: unknown): value is string =>
  typeof value === 'string' && /^[0-9a-f]{24}$/i.test(value);

/** The ObjectId of a valid id string, or undefined (callers answer 400 or 404). */
export const toObjectId = (id: string): ObjectId | undefined =>
  isObjectId(id) ? new ObjectId(id) : undefined;

export const newId = () => new ObjectId().toHexString();

export { ObjectId };
