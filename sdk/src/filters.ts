// Filters as the service reads them (`field`, `field_gt`, `field_in`, ...), typed by the
// collection's document: a wrong field name or a value of the wrong type does not compile.
import type { Query } from './transport.js';

type Element<V> = NonNullable<V> extends readonly (infer E)[] ? E : NonNullable<V>;
type Primitive<V> = Element<V> extends string | number | boolean ? Element<V> : string;

/** The conditions one field takes; a bare value means equality. */
export interface Condition<V> {
  eq?: Primitive<V>;
  ne?: Primitive<V>;
  gt?: Primitive<V>;
  gte?: Primitive<V>;
  lt?: Primitive<V>;
  lte?: Primitive<V>;
  /** At most 100 values. */
  in?: readonly Primitive<V>[];
  exists?: boolean;
  /** RE2 syntax, case-insensitive, at most 128 characters (string fields only). */
  regex?: Primitive<V> extends string ? string : never;
}

export type Filter<T> = {
  [K in keyof T & string]?: Primitive<T[K]> | Condition<T[K]>;
};

/** `price` or `-price` (descending); at most five keys. */
export type SortKey<T> = (keyof T & string) | `-${keyof T & string}`;

const OPERATORS = ['eq', 'ne', 'gt', 'gte', 'lt', 'lte', 'in', 'exists', 'regex'] as const;

/** The filter as query parameters. */
export function filterQuery<T>(filter: Filter<T> | undefined): Query {
  const query: Query = {};
  for (const [field, condition] of Object.entries(filter ?? {}) as [string, unknown][]) {
    if (condition === undefined) continue;
    if (condition === null || typeof condition !== 'object' || Array.isArray(condition)) {
      query[field] = condition as Query[string];
      continue;
    }
    for (const [operator, value] of Object.entries(condition as Record<string, unknown>)) {
      if (value === undefined) continue;
      if (!(OPERATORS as readonly string[]).includes(operator)) {
        throw new TypeError(
          `Unknown filter operator "${operator}" on ${field}: use one of ${OPERATORS.join(', ')}`,
        );
      }
      query[operator === 'eq' ? field : `${field}_${operator}`] = value as Query[string];
    }
  }
  return query;
}
