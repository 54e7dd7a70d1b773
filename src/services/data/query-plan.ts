// Which index serves a list, by MongoDB's rules for compound indexes, and which one would: pure
// functions over a list's shape (the fields it filters and sorts on, never the values).
//
// An index serves a filter when its first keys are the equality fields (in any order), followed,
// when there is one, by a range field. It serves the sort when, after the equality fields, its
// keys are the sort keys in order, in the same directions or all reversed. So the index that
// serves both is: equality fields, then the sort keys, then the range field ("ESR"). The list's
// sort always ends with `_id` (the tie-break that makes cursors exact), so an index that serves
// the sort of a list ends with `_id` too; `_id` alone is served by the `_id_` index.
import type { IndexKey } from '../types.js';
import type { SortKey } from './cursor.js';
import type { Condition } from './filters.js';

export interface QueryShape {
  /** Fields compared for equality (`field=`, `_in`), sorted. */
  equality: string[];
  /** Fields with a range (`_gt`, `_gte`, `_lt`, `_lte`), sorted. */
  range: string[];
  /** Fields with operators an index narrows poorly or not at all (`_ne`, `_exists`, `_regex`), sorted. */
  other: string[];
  sort: IndexKey[];
}

export interface IndexPattern {
  name: string;
  keys: readonly IndexKey[];
}

export interface IndexUse {
  /** The index the planner would pick, or null when none narrows the scan or orders it. */
  index: string | null;
  filterServed: boolean;
  sortServed: boolean;
}

const EQUALITY = new Set(['$eq', '$in']);
const RANGE = new Set(['$gt', '$gte', '$lt', '$lte']);

/** The shape of a list: its conditions (filters and the RLS scope) and its whole sort. */
export function shapeOf(conditions: readonly Condition[], sort: readonly SortKey[]): QueryShape {
  const equality = new Set<string>();
  const range = new Set<string>();
  const other = new Set<string>();
  for (const condition of conditions) {
    for (const [path, value] of Object.entries(condition)) {
      if (path.startsWith('$')) continue;
      const ops = value && typeof value === 'object' ? Object.keys(value) : ['$eq'];
      if (ops.some((op) => EQUALITY.has(op))) equality.add(path);
      else if (ops.some((op) => RANGE.has(op))) range.add(path);
      else other.add(path);
    }
  }
  for (const path of equality) range.delete(path);
  return {
    equality: [...equality].sort(),
    range: [...range].sort(),
    other: [...other].filter((p) => !equality.has(p) && !range.has(p)).sort(),
    sort: sort.map((k) => ({ field: k.path, direction: k.dir })),
  };
}

/** The keys of `index` from `at` are the sort keys, all in their direction or all reversed. */
function servesSort(keys: readonly IndexKey[], at: number, sort: readonly IndexKey[]): boolean {
  if (sort.length === 0) return true;
  const sign = keys[at]?.field === sort[0]!.field ? keys[at]!.direction * sort[0]!.direction : 0;
  return (
    sign !== 0 &&
    sort.every((s, j) => keys[at + j]?.field === s.field && keys[at + j]!.direction * s.direction === sign)
  );
}

/**
 * The sort an index has to give: none when the list is in `_id` order alone (the `_id_` index
 * gives it when nothing is filtered, and sorting the matches of a narrowing index costs little),
 * else every key, the `_id` tie-break included.
 */
const neededSort = (shape: QueryShape): IndexKey[] =>
  shape.sort.length === 1 && shape.sort[0]!.field === '_id' ? [] : shape.sort;

function useOf(index: IndexPattern, shape: QueryShape, sort: IndexKey[]): IndexUse & { score: number } {
  const keys = index.keys;
  const equality = new Set(shape.equality);
  let at = 0;
  while (at < keys.length && equality.has(keys[at]!.field)) at += 1;
  const sortServed = servesSort(keys, at, sort);
  const next = keys[sortServed ? at + sort.length : at];
  // A range on a sort key is bounded within the ordered scan too.
  const rangeUsed =
    (next !== undefined && shape.range.includes(next.field)) ||
    (sortServed && sort.some((key) => shape.range.includes(key.field)));
  const filterServed = at === equality.size && (shape.range.length === 0 || rangeUsed);
  // What the index saves: equality keys narrow most, then an ordered scan, then a range.
  const score = at * 4 + (sortServed && sort.length ? 2 : 0) + (rangeUsed ? 1 : 0);
  return { index: index.name, filterServed, sortServed, score };
}

/** The best of `indexes` for `shape` (`_id_` is always there). */
export function servingIndex(indexes: readonly IndexPattern[], shape: QueryShape): IndexUse {
  const sort = neededSort(shape);
  if (!shape.equality.length && !shape.range.length && !sort.length) {
    return { index: '_id_', filterServed: true, sortServed: true };
  }
  const all: IndexPattern[] = [{ name: '_id_', keys: [{ field: '_id', direction: 1 }] }, ...indexes];
  const full = (u: IndexUse) => (u.filterServed && u.sortServed ? 1 : 0);
  let best: (IndexUse & { score: number }) | undefined;
  for (const index of all) {
    const use = useOf(index, shape, sort);
    if (use.score === 0) continue;
    if (!best || full(use) > full(best) || (full(use) === full(best) && use.score > best.score)) best = use;
  }
  if (!best) return { index: null, filterServed: false, sortServed: sort.length === 0 };
  return { index: best.index, filterServed: best.filterServed, sortServed: best.sortServed };
}

/**
 * The index that would serve `shape` whole: the equality fields, the sort keys (with the `_id`
 * tie-break), then the first range field unless the sort has one. Null when `_id_` serves it.
 */
export function suggestedIndex(shape: QueryShape): IndexKey[] | null {
  const sort = neededSort(shape);
  if (!shape.equality.length && !shape.range.length && !sort.length) return null;
  const keys: IndexKey[] = shape.equality.map((field) => ({ field, direction: 1 }));
  keys.push(...sort);
  const range = shape.range.find((field) => !keys.some((key) => key.field === field));
  if (range && !sort.some((key) => shape.range.includes(key.field)))
    keys.push({ field: range, direction: 1 });
  return keys;
}
